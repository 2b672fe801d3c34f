"""Training loop of the MPNet NLI cross-encoder (all-mpnet-base-v2, mean pooling, linear 3-way
head): the accurate tier of the labelling cascade. Training only: torch and transformers are
imported inside functions, never by the product.

It trains on the MiniLM recipe's rows (nli_recipe.build_rows, --extra sets included) and
reuses nli_train's length-bucketed batch plan, held-out scoring and checkpoint bookkeeping
(`Run`); only the tokenizer (RoBERTa-style `<s> A </s></s> B </s>`, pad id 1, no token types),
the model and the collation differ. Resumable: `ckpt.pt` holds model, optimiser, schedule,
step and torch RNG, and the batch plan is a function of (seed, epoch), so the step number is
the data position; a kill at any moment loses at most the steps since the last checkpoint.

On a GPU (`--device cuda`, a lent machine) the same loop runs with bf16 autocast, from rows
and base weights packed for the trip (`mpnet_kit`: `--kit-rows`); see docs/device_runbook.md."""

from __future__ import annotations

import math
import time
from argparse import Namespace
from pathlib import Path

import numpy as np

from conflictdesk.training import nli_train
from conflictdesk.training.mpnet_base import assemble
from conflictdesk.training.nli_recipe import build_rows

MAX_LENGTH = 256
PAD_ID = 1  # <pad> in the MPNet vocabulary; MPNet numbers positions from pad id + 1
DEFAULT_BASE = Path("/work/ckpt/all-mpnet-base-v2")
DEFAULT_WORK = Path("/work/ckpt/mpnet")


def tokenizer(base: Path, max_length: int = MAX_LENGTH):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(Path(base) / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_length, strategy="longest_first")
    return tok


def padded_width(longest: int, multiple: int = 1) -> int:
    """`longest` rounded up to a multiple of `multiple` (1: unchanged). Padding is masked out of
    attention and pooling, so it changes no result; on a CPU it bounds the number of distinct
    tensor shapes, which lets the allocator reuse freed blocks instead of fragmenting."""
    multiple = max(1, int(multiple))
    return -(-longest // multiple) * multiple


def collate(encoded, index: list[int], device=None, multiple: int = 1):
    """(ids padded with PAD_ID, attention mask) for the rows `index` of `encoded`, on
    `device` when given; the width is rounded up to a multiple of `multiple`."""
    import torch

    width = padded_width(max(len(encoded[i][0]) for i in index), multiple)
    ids = torch.full((len(index), width), PAD_ID, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for row, i in enumerate(index):
        tokens = encoded[i][0]
        ids[row, : len(tokens)] = torch.tensor(tokens)
        mask[row, : len(tokens)] = 1
    if device is not None and str(device) != "cpu":
        ids, mask = ids.to(device, non_blocking=True), mask.to(device, non_blocking=True)
    return ids, mask


def make_model(base: Path | None, dropout: float, config=None):
    """MPNet encoder (from the `base` folder, or randomly initialised from `config`), mean
    pooling over real tokens, dropout, linear head to 3 logits in nli_data.LABELS order."""
    import torch
    from transformers import MPNetModel

    class MPNetCrossEncoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            if config is not None:
                self.encoder = MPNetModel(config, add_pooling_layer=False)
            else:
                # float32 master weights whatever the file holds (a packed base is fp16)
                loaded = MPNetModel.from_pretrained(str(base), add_pooling_layer=False)
                self.encoder = loaded.float()
            self.dropout = torch.nn.Dropout(dropout)
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, 3)

        def forward(self, ids, mask):
            hidden = self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state
            weights = mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return self.head(self.dropout(pooled))

    return MPNetCrossEncoder()


def wants_bf16(device: str, asked: bool | None) -> bool:
    """Whether a run uses bf16 autocast: as `--bf16` / `--no-bf16` asked, else on a GPU only
    (a CPU gains from it only with avx512_bf16, and loses about 7x on an AVX2-only one)."""
    return str(device).startswith("cuda") if asked is None else bool(asked)


def autocast(device, bf16: bool):
    """bf16 autocast on `device` when asked (a GPU: `--device cuda` turns it on), else nothing."""
    import torch

    return torch.autocast(torch.device(device).type, dtype=torch.bfloat16, enabled=bf16)


def predict_logits(model, encoded, batch_size: int = 32, device="cpu", bf16=False) -> np.ndarray:
    """fp32 logits [len(encoded), 3], batches sorted by length."""
    import torch

    model.eval()
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]))
    out = np.zeros((len(encoded), 3), dtype=np.float32)
    with torch.no_grad(), autocast(device, bf16):
        for start in range(0, len(order), batch_size):
            index = order[start : start + batch_size]
            out[index] = model(*collate(encoded, index, device)).float().cpu().numpy()
    model.train()
    return out


class MPNetRun(nli_train.Run):
    """nli_train.Run with the MPNet tokenizer, model and collation; bf16 autocast on a GPU,
    and on a CPU when `--bf16` asks (1.75-2.7x faster than fp32 with avx512_bf16, about 7x
    slower on an AVX2-only CPU), else fp32."""

    def __init__(self, args: Namespace) -> None:
        import torch

        torch.set_num_threads(args.threads)
        torch.manual_seed(args.seed)
        self.args, self.work = args, Path(args.work)
        self.device = torch.device(getattr(args, "device", "cpu"))
        base = assemble(Path(args.base))
        if getattr(args, "kit_rows", None):  # rows tokenized before the trip (mpnet_kit)
            from conflictdesk.training.mpnet_kit import load_rows

            packed = load_rows(Path(args.kit_rows))
            self.encoded, self.held = packed.encoded, packed.held
            labels, self.held_labels, self.held_groups = (
                packed.labels,
                packed.held_labels,
                packed.held_groups,
            )
            nli_train.log(self.work, {"event": "data", "model": "mpnet", "kit": str(args.kit_rows),
                                      "train": len(self.encoded), "held": len(self.held)})  # fmt: skip
        else:
            rows = build_rows(args)
            nli_train.log(self.work, {"event": "data", "model": "mpnet", **rows.counts})
            tok = tokenizer(base, args.max_length)
            self.encoded, self.held = (
                nli_train.encode(tok, rows.train),
                nli_train.encode(tok, rows.held),
            )
            labels = [r.label for r in rows.train]
            self.held_labels = np.array([r.label for r in rows.held])
            self.held_groups = np.array([nli_train.heldout_group(r.source) for r in rows.held])
        self.labels = torch.tensor(labels).to(self.device)
        self.lengths = [len(e[0]) for e in self.encoded]
        self.steps_per_epoch = math.ceil(len(self.encoded) / args.batch_size)
        epochs_total = int(self.steps_per_epoch * args.epochs)
        self.total = epochs_total if args.max_steps <= 0 else args.max_steps
        self.model = make_model(base, args.dropout).to(self.device)
        self.optim, self.sched = nli_train.make_optimizer(self.model, args, self.total)
        self.step, self.best = 0, -1.0
        self.deadline = nli_train.deadline_at(args.deadline) if args.deadline else None
        self.soft = None  # no distillation into MPNet
        self.pad_multiple = int(getattr(args, "pad_multiple", 1) or 1)
        plan = nli_train.batches(self.lengths, args.batch_size, args.seed * 1000)
        self.padded_tokens = sum(
            len(b) * padded_width(max(self.lengths[i] for i in b), self.pad_multiple) for b in plan
        )
        nli_train.log(self.work, {"event": "plan", "steps_per_epoch": self.steps_per_epoch,
                                  "padded_tokens_per_epoch": self.padded_tokens})  # fmt: skip

    def evaluate(self) -> None:
        pred = predict_logits(
            self.model, self.held, device=self.device, bf16=self.args.bf16
        ).argmax(1)
        scores = nli_train.heldout_scores(pred, self.held_labels, self.held_groups)
        nli_train.log(self.work, {"event": "heldout", "step": self.step, **scores})
        if scores["score"] > self.best:
            self.best = scores["score"]
            state = {"model": self.model.state_dict(), "step": self.step, "score": self.best}
            nli_train.save_atomic(state, self.work / "best.pt")

    def train_step(self, index: list[int], loss_fn) -> float:

        started = time.process_time()
        with autocast(self.device, self.args.bf16):
            batch = collate(self.encoded, index, self.device, self.pad_multiple)
            logits = self.model(*batch)
        loss = loss_fn(logits.float(), self.labels[index])
        self.apply(loss)
        if self.args.log_step_cost:
            width = padded_width(max(len(self.encoded[i][0]) for i in index), self.pad_multiple)
            cpu_s = time.process_time() - started
            cost = {"step": self.step, "rows": len(index), "width": width, "cpu_s": round(cpu_s, 2)}
            # CPU-seconds per padded token times the epoch's padded tokens: the epoch estimate.
            cost["epoch_cpu_h"] = round(cpu_s / (len(index) * width) * self.padded_tokens / 3600, 1)
            nli_train.log(self.work, {"event": "step_cost", **cost})
        return loss.item()


def train(args: Namespace) -> None:
    """Train (or resume) as `args` says; checkpoints and log.jsonl go under args.work."""
    MPNetRun(args).run()


def step_cost(args: Namespace, widths: list[int]) -> list[dict]:
    """CPU-seconds (and wall seconds) of one training step (forward, backward, clipping,
    AdamW; bf16 autocast with `args.bf16`) on a batch of `args.batch_size` synthetic rows of
    each width, after one unmeasured warm-up step; no data is loaded, so it answers in
    minutes."""
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    model = make_model(assemble(Path(args.base)), args.dropout)
    optim, sched = nli_train.make_optimizer(model, args, 1000)
    loss_fn = torch.nn.CrossEntropyLoss()
    rows = []
    for width in [widths[0], *widths]:
        ids = torch.randint(3, 30000, (args.batch_size, width))
        labels = torch.randint(0, 3, (args.batch_size,))
        started, wall = time.process_time(), time.perf_counter()
        with autocast("cpu", args.bf16):
            logits = model(ids, torch.ones_like(ids))
        loss_fn(logits.float(), labels).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optim.step()
        sched.step()
        optim.zero_grad(set_to_none=True)
        rows.append({"rows": args.batch_size, "width": width, "bf16": bool(args.bf16),
                     "cpu_s": round(time.process_time() - started, 2),
                     "wall_s": round(time.perf_counter() - wall, 2)})  # fmt: skip
    return rows[1:]


def epoch_estimate(costs: list[dict], steps: int, padded_tokens: int) -> dict:
    """Least-squares cost = a + b * (rows * width) over `costs`, applied to an epoch of
    `steps` steps and `padded_tokens` padded tokens: CPU-hours per epoch, and wall-clock
    hours where the costs carry `wall_s`."""
    tokens = np.array([c["rows"] * c["width"] for c in costs], dtype=np.float64)

    def fitted(key: str) -> tuple[float, float, float]:
        seconds = np.array([c[key] for c in costs], dtype=np.float64)
        b, a = np.polyfit(tokens, seconds, 1)
        return float(a), float(b), float((steps * a + b * padded_tokens) / 3600)

    a, b, hours = fitted("cpu_s")
    out = {"per_step_s": round(a, 2), "per_1k_tokens_s": round(b * 1000, 3),
           "epoch_cpu_h": round(hours, 1)}  # fmt: skip
    if all("wall_s" in c for c in costs):
        out["epoch_wall_h"] = round(fitted("wall_s")[2], 1)
    return out
