"""Which cascade rule and band: both NLI tiers' probabilities on every NLI development set
(nli_compare.comparison_sets), then the accuracy of each rule (cascade_nli.RULES) at each band
beside the MiniLM alone, computed from those probabilities without running the models again.

The tiers' probabilities are kept in a JSON file, so a rerun of the report reads them back."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from conflictdesk.backends.cascade_nli import RULES, second_tier
from conflictdesk.training.nli_compare import BINARY_SETS, comparison_sets, load_model

REPORT_BANDS = (0.6, 0.7, 0.8, 0.9, 1.01)


def tier_probabilities(path: Path, fast: str, accurate: str, limit: int, seed: int,
                       threads: int, log=None) -> dict:  # fmt: skip
    """{set: {"gold", "fast", "accurate"}}: read from `path`, else computed and saved there
    set by set, atomically (a killed run resumes at the set it was on); `log` gets a line
    per set."""
    log = log or (lambda message: print(message, file=sys.stderr, flush=True))
    store: dict = json.loads(path.read_text("utf-8")) if path.exists() else {}
    models = None
    sets = comparison_sets(limit, seed)
    for n, (split, rows) in enumerate(sets.items(), 1):
        if split in store:
            continue
        log(f"  [{n}/{len(sets)}] {split}: {len(rows)} rows through both tiers")
        models = models or (load_model(fast, threads), load_model(accurate, threads))
        pairs = [(r.premise, r.hypothesis) for r in rows]
        probs = [[[s.entailment, s.neutral, s.contradiction] for s in m.classify(pairs)]
                 for m in models]  # fmt: skip
        store[split] = {"gold": [r.label for r in rows], "fast": probs[0], "accurate": probs[1]}
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        partial.write_text(json.dumps(store), "utf-8")
        partial.replace(path)
    return store


def combine(fast: np.ndarray, accurate: np.ndarray, band: float, rule: str) -> np.ndarray:
    """The cascade's probabilities (as CascadeNLI gives them) from both tiers' [N, 3]."""
    return np.where((fast.max(1) < band)[:, None], second_tier(fast, accurate, rule), fast)


def accuracy(split: str, gold: Sequence[int], probs: np.ndarray) -> float:
    pred, gold_arr = probs.argmax(1), np.asarray(gold)
    if split in BINARY_SETS:  # "neutral" means "not entailed"
        return float(((gold_arr == 0) == (pred == 0)).mean())
    return float((pred == gold_arr).mean())


def rule_table(store: dict, bands: Sequence[float] = REPORT_BANDS) -> dict:
    """{"rows": {set: {column: accuracy}}, "mean": {...}, "worst_vs_fast": {...}}; columns
    `fast` and `RULE@BAND`."""
    rows = {}
    for split, v in store.items():
        fast, accurate = np.asarray(v["fast"]), np.asarray(v["accurate"])
        row = {"fast": accuracy(split, v["gold"], fast)}
        for rule in RULES:
            for band in bands:
                row[f"{rule}@{band:g}"] = accuracy(
                    split, v["gold"], combine(fast, accurate, band, rule)
                )
        rows[split] = row
    columns = list(next(iter(rows.values())))
    mean = {c: float(np.mean([r[c] for r in rows.values()])) for c in columns}
    worst = {c: float(min(r[c] - r["fast"] for r in rows.values())) for c in columns}
    return {"rows": rows, "mean": mean, "worst_vs_fast": worst}
