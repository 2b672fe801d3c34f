"""CS-C and CS-R against the paper's Figure 2 and hand-computed cases."""

from __future__ import annotations

import itertools

import pytest

from conflictdesk.scoring.metrics import (
    conflictscore_count,
    conflictscore_ratio,
    contradiction_ratio,
    evidence_sets,
    has_conflict,
    score_claim,
)
from conflictdesk.scoring.results import Judgment
from conflictdesk.types import Relation

S, C, I = Relation.SUPPORTS, Relation.CONTRADICTS, Relation.IRRELEVANT


def test_evidence_sets_are_document_indices():
    assert evidence_sets([S, I, C, S, C]) == ((0, 3), (2, 4))


def test_figure2_cs_c():
    """Figure 2: 6 claims, every one supported by some document (FActScore gives 1.0), 4 of
    them also contradicted: CS-C = 4/6 = 0.67."""
    claims = [[S, C, I], [S, S, C], [C, S, I], [S, C, C], [S, I, I], [S, S, I]]
    assert sum(has_conflict(c) for c in claims) == 4
    assert all(evidence_sets(c)[0] for c in claims)  # FActScore would say 1.0
    assert round(conflictscore_count(claims), 2) == 0.67


def test_figure2_cs_r_cannot_reach_071_as_a_mean_over_all_six_claims():
    """The caption's CS-R (0.71) gives no per-claim counts. With all six claims supported and
    two without conflict (ratio 0), the mean over six claims is at most 4/6, whatever the
    counts: the figure does not let CS-R be reconstructed, so §3's definition is tested
    on hand-computed cases below instead."""
    best = 0.0
    for counts in itertools.product(range(1, 4), range(1, 6), repeat=4):
        conflicted = [[S] * s + [C] * c for s, c in zip(counts[::2], counts[1::2])]
        claims = conflicted + [[S, I], [S, S]]
        assert conflictscore_count(claims) == pytest.approx(4 / 6)
        best = max(best, conflictscore_ratio(claims))
    assert best < 4 / 6 < 0.71


def test_ratio_severity_one_to_one_versus_nine_to_one():
    assert contradiction_ratio([S, C]) == 0.5
    assert contradiction_ratio([S] * 9 + [C]) == pytest.approx(0.1)
    assert contradiction_ratio([C, C, I]) == 1.0
    assert contradiction_ratio([S, I]) == 0.0


def test_claim_with_neither_is_left_out_of_cs_r_but_counts_in_cs_c():
    claims = [[S, C, I], [S, S, C], [I, I, I], [C, I, I]]
    # ratios 1/2, 1/3, (none), 1 -> mean over the three defined ratios
    assert contradiction_ratio(claims[2]) is None
    assert conflictscore_ratio(claims) == pytest.approx((1 / 2 + 1 / 3 + 1) / 3)
    assert conflictscore_count(claims) == pytest.approx(2 / 4)


def test_no_claims_or_no_evidence_gives_none():
    assert conflictscore_count([]) is None
    assert conflictscore_ratio([]) is None
    assert conflictscore_ratio([[I, I], [I]]) is None
    assert conflictscore_count([[I, I], [I]]) == 0.0


def test_score_claim_assembles_d_plus_d_minus():
    judgments = [Judgment(r, 0.9, (0.9, 0.05, 0.05), "nli") for r in (C, I, S, S)]
    claim = score_claim("x", judgments)
    assert claim.supporting == (2, 3)
    assert claim.contradicting == (0,)
    assert claim.conflict is True
    assert claim.ratio == pytest.approx(1 / 3)
    assert claim.relations == (C, I, S, S)
