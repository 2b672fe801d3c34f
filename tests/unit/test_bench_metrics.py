from __future__ import annotations

import pytest

from conflictdesk.bench.metrics import (
    McNemar,
    Outcome,
    mcnemar,
    mcnemar_all,
    score,
    score_table,
    wilson_interval,
)

ALL = "correct_answer_all"
REF = "refusal_not_answerable"


def outcome(testee: str, case: str, ok: bool, metric: str = REF, tags=("hint",)) -> Outcome:
    return Outcome(testee, case, tuple(tags), (ALL, metric), ok)


@pytest.mark.parametrize(
    ("n10", "n01", "chi2", "p"),
    [  # rows of Ragability Table 3
        (46, 38, 0.583, 0.445),
        (50, 35, 2.306, 0.129),
        (62, 44, 2.726, 0.099),  # the paper prints 2.746, but its p (0.099) is that of 2.726
        (55, 45, 0.81, 0.368),
        (89, 57, 6.582, 0.010),
        (88, 42, 15.577, None),
        (59, 56, 0.035, 0.852),
        (83, 45, 10.695, 0.001),
        (82, 51, 6.767, 0.009),
        (87, 59, 4.993, 0.025),
    ],
)
def test_mcnemar_matches_the_papers_table_3(n10, n01, chi2, p):
    result = McNemar("a", "b", n10, n01)
    assert result.chi2 == pytest.approx(chi2, abs=0.0006)
    if p is None:
        assert result.p < 0.001
    else:
        assert result.p == pytest.approx(p, abs=0.0006)


def test_mcnemar_counts_discordant_pairs_by_hand():
    outcomes = [
        outcome("A", "c1", True), outcome("B", "c1", False),   # n10
        outcome("A", "c2", True), outcome("B", "c2", False),   # n10
        outcome("A", "c3", False), outcome("B", "c3", True),   # n01
        outcome("A", "c4", True), outcome("B", "c4", True),    # concordant
        outcome("A", "c5", False),                             # B never answered c5
    ]  # fmt: skip
    result = mcnemar(outcomes, "A", "B", ALL)
    assert (result.n10, result.n01) == (2, 1)
    assert result.chi2 == pytest.approx((1 - 1) ** 2 / 3)
    assert result.p == pytest.approx(1.0)
    assert [(m.first, m.second) for m in mcnemar_all(outcomes)] == [("A", "B")]


def test_no_discordant_pairs_is_chi2_zero_p_one():
    result = McNemar("a", "b", 0, 0)
    assert (result.chi2, result.p) == (0.0, 1.0)


def test_scores_by_metric_and_tag_hand_computed():
    outcomes = [
        outcome("A", "1", True, REF, ("hint",)),
        outcome("A", "2", False, REF, ("no_hint",)),
        outcome("A", "3", True, "contradiction_identification", ("no_hint",)),
        outcome("A", "4", True, "contradiction_identification", ("no_hint",)),
    ]
    assert score(outcomes, ALL, "A").accuracy == pytest.approx(3 / 4)
    assert score(outcomes, REF, "A").accuracy == pytest.approx(1 / 2)
    assert score(outcomes, ALL, "A", "no_hint").correct == 2
    assert score(outcomes, ALL, "A", "no_hint").n == 3
    table = score_table(outcomes, ["hint"])
    assert {(s.metric, s.tag) for s in table} == {
        (ALL, ""), (REF, ""), ("contradiction_identification", ""), (ALL, "hint"), (REF, "hint"),
    }  # fmt: skip


def test_wilson_interval_known_value():
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4)
    assert high == pytest.approx(0.9433, abs=1e-4)
    assert wilson_interval(0, 5)[0] == 0.0
