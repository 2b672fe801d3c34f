"""Side-by-side accuracy of exported NLI models (the product's CT2CrossEncoder, windowed
max-evidence rule) on the NLI evaluation sets and the held-out sides of the newer sets: the
evidence for replacing models/nli with a retrained model (scripts/train_nli.py --stage compare).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from pathlib import Path

from conflictdesk.training import nli_data, nli_extra

BINARY_SETS = ("med/test",)  # their "neutral" means "not entailed"


def _accuracy(split: str, gold: list[int], scores) -> float:
    pred = [
        int(max(range(3), key=lambda k: (s.entailment, s.neutral, s.contradiction)[k]))
        for s in scores
    ]
    if split in BINARY_SETS:
        return sum((g == 0) == (p == 0) for g, p in zip(gold, pred, strict=True)) / len(gold)
    return sum(g == p for g, p in zip(gold, pred, strict=True)) / len(gold)


def comparison_sets(limit: int, seed: int) -> dict[str, list[nli_data.NLIExample]]:
    """The NLI evaluation splits and each newer set's held-out side, sampled to `limit` rows
    each (0 = all) with a fixed seed."""
    sets = {split: nli_data.read_split(split) for split in nli_data.EVAL_SPLITS}
    for name in nli_extra.EXTRA_SETS:
        sets[f"{name}/heldout"] = nli_extra.load_extra(name, "heldout")
    if limit:
        sets = {
            name: random.Random(f"{seed}:{name}").sample(rows, min(limit, len(rows)))
            for name, rows in sets.items()
        }
    return sets


CASCADE = "cascade:"


def load_model(spec: str, threads: int):
    """An NLI back-end from `spec`: a MiniLM folder (CTranslate2), an MPNet folder (ONNX, it
    holds onnx_nli.CONFIG_FILE), or `cascade:FAST,ACCURATE[,BAND[,RULE]]` (the labelling
    cascade; BAND and RULE default to the ones stored with ACCURATE)."""
    from conflictdesk.backends.cascade_nli import CascadeNLI
    from conflictdesk.backends.ct2_nli import CT2CrossEncoder
    from conflictdesk.backends.onnx_nli import CONFIG_FILE, OnnxCrossEncoder

    if spec.startswith(CASCADE):
        fast, accurate, *rest = spec[len(CASCADE) :].split(",")
        accurate_model = load_model(accurate, threads)
        cut = float(rest[0]) if rest and rest[0] else accurate_model.cascade_band
        rule = rest[1] if len(rest) > 1 else accurate_model.cascade_rule
        return CascadeNLI(load_model(fast, threads), accurate_model, cut, rule)
    folder = Path(spec)
    kind = OnnxCrossEncoder if (folder / CONFIG_FILE).exists() else CT2CrossEncoder
    return kind(folder, model_id=spec, device="cpu", threads=threads)


def compare(specs: Sequence[str], limit: int, seed: int, threads: int) -> Iterator[dict]:
    """One row per set, as each set finishes: {"set", "n", <model spec>: accuracy, ...};
    specs as `load_model` reads them."""
    models = {str(spec): load_model(str(spec), threads) for spec in specs}
    for split, data in comparison_sets(limit, seed).items():
        pairs = [(r.premise, r.hypothesis) for r in data]
        gold = [r.label for r in data]
        row: dict = {"set": split, "n": len(data)}
        for name, model in models.items():
            row[name] = round(_accuracy(split, gold, model.classify(pairs)), 4)
        yield row
