"""Accuracy against coverage and uncertain verdicts (conflictdesk.evaluation.abstention)."""

from __future__ import annotations

import numpy as np

from conflictdesk.evaluation.abstention import coverage, verdicts
from conflictdesk.evaluation.cases import Case
from conflictdesk.training.fusion import CaseSet


def case(gold: tuple[str, ...]) -> Case:
    return Case("t", "q?", "claim", "a", (), tuple("doc" for _ in gold), gold, "eval")


def test_coverage_and_verdicts_on_a_small_set():
    cases = [case(("SUPPORTS", "CONTRADICTS")), case(("SUPPORTS", "IRRELEVANT"))]
    probabilities = np.array([[0.9, 0.05, 0.05], [0.1, 0.5, 0.4],  # shaky contradiction
                              [0.95, 0.03, 0.02], [0.02, 0.03, 0.95]])  # fmt: skip
    case_set = CaseSet("t", cases, np.zeros((4, 1)), np.array([0, 1, 0, 2]),
                       np.array([0, 0, 1, 1]), np.zeros(4, dtype=bool))  # fmt: skip
    points = {p["threshold"]: p for p in coverage(probabilities, case_set)}
    assert points[0.0] == {"threshold": 0.0, "coverage": 1.0, "accuracy": 1.0}
    assert points[0.9]["coverage"] == 0.75
    result = verdicts(probabilities, case_set)
    assert result["uncertain_share"] == 0.5  # the first case turns on the shaky judgment
    assert result["settled"]["cases"] == 1 and result["settled"]["accuracy"] == 1.0
