"""ConRAG's κ (passage and cluster level) and the δ stance rule, on hand-computed sums."""

from __future__ import annotations

import pytest

from conflictdesk.analysis.kappa import conflict_score, kappa, stance
from conflictdesk.analysis.types import Cluster, PassageTag, Stance
from conflictdesk.types import Tag


def _tag(pid: int, tag: Tag, u: float) -> PassageTag:
    return PassageTag(pid, tag, u, 0.0, 0.0, 0.0)


def test_kappa_matches_the_conrag_definition_by_hand():
    # U_sup = 0.9 + 0.6 = 1.5, U_ref = 0.8 → κ = 1 − 0.7 / 2.3
    tags = [
        _tag(0, Tag.SUPPORT, 0.9),
        _tag(1, Tag.SUPPORT, 0.6),
        _tag(2, Tag.REFUTE, 0.8),
        _tag(3, Tag.IRRELEVANT, 0.7),
    ]
    score = conflict_score(tags)
    assert score.u_support == pytest.approx(1.5)
    assert score.u_refute == pytest.approx(0.8)
    assert score.u_irrelevant == pytest.approx(0.7)
    assert score.kappa == pytest.approx(1 - 0.7 / 2.3, abs=1e-6)
    assert score.margin == pytest.approx(0.7 / 2.3, abs=1e-6)
    assert score.stance is Stance.SUPPORT


def test_kappa_extremes_one_sided_and_balanced():
    assert kappa(2.0, 0.0) == pytest.approx(0.0, abs=1e-6)
    assert kappa(1.2, 1.2) == pytest.approx(1.0)
    assert kappa(0.0, 3.0) == pytest.approx(0.0, abs=1e-6)


def test_irrelevant_passages_do_not_move_kappa():
    base = [_tag(0, Tag.SUPPORT, 0.9), _tag(1, Tag.REFUTE, 0.5)]
    more = base + [_tag(2, Tag.IRRELEVANT, 0.99), _tag(3, Tag.IRRELEVANT, 0.8)]
    assert conflict_score(more).kappa == pytest.approx(conflict_score(base).kappa)


def test_cluster_level_kappa_sums_cluster_confidences():
    clusters = [
        Cluster(0, (0, 1), Tag.SUPPORT, 0.8),
        Cluster(1, (2,), Tag.REFUTE, 0.6),
        Cluster(2, (3,), Tag.IRRELEVANT, 1.0),
    ]
    score = conflict_score([_tag(0, Tag.SUPPORT, 0.9)], clusters)
    assert score.cluster_u_support == pytest.approx(0.8)
    assert score.cluster_u_refute == pytest.approx(0.6)
    assert score.cluster_kappa == pytest.approx(1 - 0.2 / 1.4, abs=1e-6)


@pytest.mark.parametrize(
    ("u_sup", "u_ref", "expected"),
    [
        (1.5, 0.8, Stance.SUPPORT),  # margin 0.304 > δ
        (0.4, 1.2, Stance.REFUTE),  # margin −0.5 < −δ
        (1.0, 0.95, Stance.DISPUTED),  # margin 0.026
        (0.55, 0.45, Stance.DISPUTED),  # margin exactly 0.1 is not > δ
        (0.0, 0.0, Stance.NOT_ENOUGH_INFO),
        (0.3, 0.0, Stance.SUPPORT),
    ],
)
def test_stance_rule_with_delta(u_sup, u_ref, expected):
    assert stance(u_sup, u_ref, delta=0.1) is expected


def test_stance_compares_normalised_sums_not_raw_gaps():
    # raw gap 0.5 exceeds δ = 0.1, but 0.5 / 20.5 = 0.024 does not: the rule is scale free
    assert stance(10.5, 10.0) is Stance.DISPUTED
    assert stance(1.05, 1.0) is Stance.DISPUTED
