"""The shipping rule for a new labelling model (docs/model_report.md), as one decision.

A candidate models folder replaces the shipped one only when, measured the same way on the
development sets:

- on the RAMDocs EVAL half and on QACC dev, the question-level conflict F1 and the claim ×
  document relation macro-F1 are not lower than the shipped models' (`eval_conflictscore`'s
  JSON report), and
- no NLI development set is more than `NLI_TOLERANCE` lower through the cascade (each folder's
  own stored rule and band; `cascade_rules`' per-set probabilities).

`figures` reads the two reports into flat numbers; `checks` compares two such sets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

DETECTION_SLICES = ("RAMDocs eval half", "QACC dev")
NLI_TOLERANCE = 0.02


@dataclass(frozen=True)
class Check:
    name: str
    shipped: float
    candidate: float
    tolerance: float  # how far below the shipped figure still passes

    @property
    def passes(self) -> bool:
        return self.candidate >= self.shipped - self.tolerance - 1e-12

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "difference": self.candidate - self.shipped, "passes": self.passes}


def detection_figures(report: Mapping[str, Any]) -> dict[str, float]:
    """Conflict F1 and relation macro-F1 of every slice the rule reads, from the JSON of
    `scripts/eval_conflictscore.py --json`."""
    out = {}
    for name in DETECTION_SLICES:
        if name not in report["slices"]:
            raise ValueError(f"the detection report has no slice {name!r}; run all datasets")
        model = report["slices"][name]["model"]
        out[f"{name}: conflict F1"] = float(model["detection"]["f1"])
        out[f"{name}: relation macro-F1"] = float(model["relations"]["macro_f1"])
    return out


def nli_figures(store: Mapping[str, Any], band: float, rule: str) -> dict[str, float]:
    """Accuracy of the cascade (`rule` at `band`) on every NLI set of a `cascade_rules` store."""
    from conflictdesk.training.cascade_rules import accuracy, combine

    out = {}
    for split, v in store.items():
        fast, accurate = np.asarray(v["fast"]), np.asarray(v["accurate"])
        out[f"NLI {split}"] = accuracy(split, v["gold"], combine(fast, accurate, band, rule))
    return out


def checks(shipped: Mapping[str, float], candidate: Mapping[str, float]) -> list[Check]:
    """One check per figure both sides have; a figure only one side has is an error (the two
    were not measured the same way)."""
    if set(shipped) != set(candidate):
        missing = sorted(set(shipped) ^ set(candidate))
        raise ValueError(f"figures measured on one side only: {missing}")
    tolerance = {name: NLI_TOLERANCE if name.startswith("NLI ") else 0.0 for name in shipped}
    return [Check(name, shipped[name], candidate[name], tolerance[name]) for name in shipped]


def verdict(results: list[Check]) -> str:
    failed = [c.name for c in results if not c.passes]
    return "ships" if not failed else "does not ship: " + "; ".join(failed)
