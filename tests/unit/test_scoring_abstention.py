"""Calibrated abstention: judgments below UNCERTAIN_BELOW are `uncertain`, and a claim's
verdict is `uncertain` when the confident judgments do not settle it."""

from __future__ import annotations

import pytest

from conflictdesk.scoring.metrics import score_claim
from conflictdesk.scoring.results import UNCERTAIN_BELOW, Judgment
from conflictdesk.types import Relation

S, C, I = Relation.SUPPORTS, Relation.CONTRADICTS, Relation.IRRELEVANT


def j(relation: Relation, probabilities: tuple[float, float, float] | None) -> Judgment:
    confidence = max(probabilities) if probabilities else None
    return Judgment(relation, confidence, probabilities, "nli")


def test_threshold_marks_judgments():
    assert j(S, (0.9, 0.05, 0.05)).uncertain is False
    assert j(S, (0.5, 0.3, 0.2)).uncertain is True
    assert Judgment(I, None, None, "gate").uncertain is False  # no model judged it
    assert 0.5 < UNCERTAIN_BELOW < 0.9


@pytest.mark.parametrize(
    ("judgments", "conflict", "verdict"),
    [
        ([j(S, (0.9, 0.05, 0.05)), j(C, (0.05, 0.9, 0.05))], True, "conflict"),
        ([j(S, (0.9, 0.05, 0.05)), j(C, (0.1, 0.5, 0.4))], True, "uncertain"),
        ([j(S, (0.9, 0.05, 0.05)), j(I, (0.05, 0.3, 0.65))], False, "uncertain"),
        ([j(S, (0.9, 0.05, 0.05)), j(I, (0.3, 0.1, 0.6))], False, "no_conflict"),
        ([j(S, (0.95, 0.03, 0.02)), j(I, (0.02, 0.03, 0.95))], False, "no_conflict"),
    ],
    ids=["sure", "shaky-contradiction", "maybe-contradiction", "only-support-plausible", "clear"],
)
def test_verdict(judgments, conflict, verdict):
    claim = score_claim("x", judgments)
    assert claim.conflict is conflict and claim.verdict == verdict
