"""Accuracy against coverage for the labellers' calibrated confidence, and how often a case's
verdict is `uncertain` (conflictdesk.scoring.results.UNCERTAIN_BELOW), on the held-out
development sets. Reads the NLI scores cached by scripts/train_fusion.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from conflictdesk.evaluation.cases import detection_metrics
from conflictdesk.scoring.metrics import score_claim
from conflictdesk.scoring.results import RELATIONS, UNCERTAIN_BELOW, Judgment
from conflictdesk.training.fusion import CaseSet
from conflictdesk.types import Relation

THRESHOLDS = (0.0, 0.5, 0.6, UNCERTAIN_BELOW, 0.8, 0.9)


def _argmax(probabilities: np.ndarray) -> np.ndarray:
    return np.atleast_2d(probabilities).argmax(axis=1)


def coverage(
    probabilities: np.ndarray, case_set: CaseSet, chosen: np.ndarray | None = None
) -> list[dict[str, float]]:
    """Pair accuracy of the labeller's decisions `chosen` (default: the argmax of P) over the
    model-judged (ungated) pairs whose confidence reaches each threshold, and the share kept."""
    open_rows = ~case_set.gate
    chosen = _argmax(probabilities) if chosen is None else np.asarray(chosen)
    p, y, chosen = probabilities[open_rows], case_set.y[open_rows], chosen[open_rows]
    confidence, correct = p[np.arange(len(p)), chosen], chosen == y
    return [
        {"threshold": t, "coverage": float((confidence >= t).mean()),
         "accuracy": float(correct[confidence >= t].mean()) if (confidence >= t).any() else 0.0}
        for t in THRESHOLDS
    ]  # fmt: skip


def judgments_of(
    probabilities: np.ndarray, case_set: CaseSet, case: int, chosen: np.ndarray | None = None
) -> list[Judgment]:
    """The judgments a labeller with these probabilities and decisions (default: the argmax)
    gives one case (gated pairs too)."""
    chosen = _argmax(probabilities) if chosen is None else np.asarray(chosen)
    out = []
    for row in np.where(case_set.groups == case)[0]:
        if case_set.gate[row]:
            out.append(Judgment(Relation.IRRELEVANT, None, None, "gate"))
            continue
        triple = tuple(float(v) for v in probabilities[row])
        best = int(chosen[row])
        out.append(Judgment(RELATIONS[best], triple[best], triple, "model"))  # type: ignore[arg-type]
    return out


def verdicts(
    probabilities: np.ndarray, case_set: CaseSet, chosen: np.ndarray | None = None
) -> dict[str, Any]:
    """Share of cases whose verdict is uncertain, and detection on the settled ones."""
    found = [score_claim("", judgments_of(probabilities, case_set, i, chosen)).verdict
             for i in range(len(case_set.cases))]  # fmt: skip
    gold = [c.conflict for c in case_set.cases]
    settled = [v != "uncertain" for v in found]
    return {
        "uncertain_share": 1 - float(np.mean(settled)) if found else 0.0,
        "settled": detection_metrics(_keep(gold, settled),
                                     _keep([v == "conflict" for v in found], settled)),
    }  # fmt: skip


def _keep(values: Sequence[bool], mask: Sequence[bool]) -> list[bool]:
    return [v for v, k in zip(values, mask, strict=True) if k]


def abstention_report(sets: dict[str, CaseSet], fusion: Any, skip: Sequence[str]) -> dict[str, Any]:
    """Coverage curve and verdicts of the encoder alone (and the fusion labeller when
    there is one) on every set not named in `skip` (the training sets)."""
    from conflictdesk.training.fusion import nli_alone

    report = {}
    for name, case_set in sets.items():
        if name in skip:
            continue
        labellers = {"nli": (nli_alone(case_set.x), None)}
        if fusion is not None:
            labellers["fusion"] = (fusion.probabilities(case_set.x), fusion.relations(case_set.x))
        report[name] = {label: {"coverage": coverage(p, case_set, chosen),
                                **verdicts(p, case_set, chosen)}
                        for label, (p, chosen) in labellers.items()}  # fmt: skip
    return report


def render_abstention(report: dict[str, Any]) -> str:
    lines = []
    for name, labellers in report.items():
        for label, r in labellers.items():
            s = r["settled"]
            lines.append(f"{name} / {label}: verdict uncertain on {r['uncertain_share']:.0%} of "
                         f"the cases; on the {s['cases']} settled ones conflict F1 {s['f1']:.3f}")  # fmt: skip
            lines += ["  t={threshold:.2f} coverage={coverage:.3f} accuracy={accuracy:.3f}".format(
                **point) for point in r["coverage"]]  # fmt: skip
    return "\n".join(lines)
