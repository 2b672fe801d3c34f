"""ConRAG evidence packet: budgets, balanced selection by rel·conf, per-cluster cap, fill."""

from __future__ import annotations

from conflictdesk.analysis.packet import budgets, build_packet
from conflictdesk.analysis.types import (
    ClaimFrame,
    Cluster,
    ConflictScore,
    PassageTag,
    QueryForm,
    Stance,
    Tagging,
)
from conflictdesk.types import Passage, Tag


def _score(kappa: float) -> ConflictScore:
    return ConflictScore(kappa, kappa, 1, 1, 0, 1, 1, 0, Stance.DISPUTED)


def _setup(spec):
    """spec: (id, tag, conf, relevance, cluster) rows; passages get distinct texts."""
    passages = [
        Passage(pid, f"passage number {pid} about topic {pid * 7}", relevance=rel)
        for pid, _, _, rel, _ in spec
    ]
    tags = tuple(PassageTag(pid, tag, conf, 0, 0, 0) for pid, tag, conf, _, _ in spec)
    groups: dict[int, list[int]] = {}
    for pid, *_, cluster in spec:
        groups.setdefault(cluster, []).append(pid)
    clusters = [Cluster(c, tuple(m), Tag.SUPPORT, 1.0) for c, m in groups.items()]
    return passages, Tagging(ClaimFrame("q", QueryForm.CLAIM, "q"), tags, "t"), clusters


def test_budget_formula():
    assert budgets(8, 2) == {"support": 3, "refute": 3, "irrelevant": 2}
    assert budgets(8, 0) == {"support": 4, "refute": 4, "irrelevant": 0}
    assert budgets(8, 1) == {"support": 3, "refute": 3, "irrelevant": 1}
    assert budgets(5, 2) == {"support": 1, "refute": 1, "irrelevant": 2}


S, R, I = Tag.SUPPORT, Tag.REFUTE, Tag.IRRELEVANT
BALANCED = [
    # id, tag, conf, relevance, cluster
    (0, S, 0.9, 1.0, 0),
    (1, S, 0.9, 0.95, 0),
    (2, S, 0.9, 0.9, 0),  # cluster 0: 3 strong
    (3, S, 0.5, 0.8, 1),
    (4, S, 0.9, 0.3, 2),
    (5, R, 0.8, 0.5, 3),
    (6, R, 0.7, 0.4, 3),
    (7, R, 0.9, 0.2, 4),
    (8, R, 0.25, 0.6, 5),
    (9, I, 0.9, 0.85, 6),
    (10, I, 0.9, 0.7, 6),
    (11, I, 0.9, 0.1, 7),
]


def test_balanced_packet_fills_support_and_refute_budgets_by_rel_times_conf():
    passages, tagging, clusters = _setup(BALANCED)
    packet = build_packet(passages, tagging, clusters, _score(0.8), k_prime=8, tau=0.5)
    assert packet.mode == "balanced"
    assert packet.budgets == {"support": 3, "refute": 3, "irrelevant": 2}
    chosen = packet.passage_ids
    assert len(chosen) == 8
    # support: rel·conf = 0.9, 0.855, 0.81 (cluster 0 capped at 2), 0.4, 0.27 → 0, 1, 3
    assert chosen[:3] == (0, 1, 3)
    # refute: 0.4 (5), 0.28 (6), 0.18 (7), 0.15 (8) → 5, 6, 7 even though 8 is more relevant
    assert chosen[3:6] == (5, 6, 7)
    # irrelevant: 9 (0.765), 10 (0.63)
    assert chosen[6:8] == (9, 10)


def test_per_cluster_cap_holds_in_the_first_pass():
    passages, tagging, clusters = _setup(BALANCED)
    packet = build_packet(passages, tagging, clusters, _score(0.9), k_prime=8, tau=0.5)
    cluster_of = {pid: c.id for c in clusters for pid in c.members}
    counts: dict[int, int] = {}
    for pid in packet.passage_ids:
        counts[cluster_of[pid]] = counts.get(cluster_of[pid], 0) + 1
    assert max(counts.values()) <= 2
    assert 2 not in packet.passage_ids  # third member of cluster 0


def test_low_kappa_takes_top_relevance_with_cap_then_fills():
    passages, tagging, clusters = _setup(BALANCED)
    packet = build_packet(passages, tagging, clusters, _score(0.2), k_prime=4, tau=0.5)
    assert packet.mode == "relevance"
    assert packet.budgets == {}
    # by relevance: 0 (1.0), 1 (.95), 2 (.9, cluster 0 capped), 9 (.85), 3 (.8)
    assert packet.passage_ids == (0, 1, 9, 3)


def test_fill_ignores_cap_when_passages_run_short():
    spec = [(0, S, 0.9, 1.0, 0), (1, S, 0.9, 0.9, 0), (2, S, 0.9, 0.8, 0), (3, R, 0.9, 0.5, 1)]
    passages, tagging, clusters = _setup(spec)
    packet = build_packet(passages, tagging, clusters, _score(0.7), k_prime=8, tau=0.5)
    assert sorted(packet.passage_ids) == [0, 1, 2, 3]
    assert packet.passage_ids[-1] == 2  # the capped passage comes only in the fill pass


def test_near_duplicates_are_skipped():
    passages = [
        Passage(0, "the vaccine was approved in 2021 by the agency", relevance=1.0),
        Passage(1, "the vaccine was approved in 2021 by the agency", relevance=0.9),
        Passage(2, "a different statement entirely", relevance=0.5),
    ]
    tags = tuple(PassageTag(i, S, 0.9, 0, 0, 0) for i in range(3))
    tagging = Tagging(ClaimFrame("q", QueryForm.CLAIM, "q"), tags, "t")
    clusters = [Cluster(i, (i,), S, 1.0) for i in range(3)]
    packet = build_packet(passages, tagging, clusters, _score(0.1), k_prime=8)
    assert packet.passage_ids == (0, 2)


def test_off_topic_passages_never_enter_the_packet():
    passages = [Passage(i, f"text number {i}", relevance=1.0 - i / 10) for i in range(4)]
    tags = (
        PassageTag(0, S, 0.9, 0, 0, 0),
        PassageTag(1, I, 0.8, 0, 0, 0, topicality=0.2, method="topicality"),
        PassageTag(2, R, 0.9, 0, 0, 0),
        PassageTag(3, I, 0.7, 0, 0, 0, topicality=0.3, method="topicality"),
    )
    tagging = Tagging(ClaimFrame("q", QueryForm.CLAIM, "q"), tags, "t")
    clusters = [Cluster(0, (0, 2), S, 0.5), Cluster(1, (1, 3), I, 1.0)]
    for kappa in (0.1, 0.9):
        packet = build_packet(passages, tagging, clusters, _score(kappa), k_prime=8)
        assert packet.passage_ids == (0, 2)
