"""ConRAG conflict-aware re-ranking: the evidence packet P′ of k′ passages.

κ < τ: the top k′ passages by normalised relevance rel_i, with redundancy control.
κ ≥ τ: budgets B_sup = B_ref = floor((k′ − B_irr)/2) and B_irr for the Irrelevant
partition; within each partition passages are taken by rel_i·conf_i. In both modes no cluster
contributes more than m passages in the first pass, near-duplicates (word Jaccard ≥ 0.9 with
a chosen passage) are skipped, and slots left empty (a partition or the clusters ran short)
are filled with the remaining passages by relevance, as ConRAG's algorithm step 6 says.
Passages the tagger found off-topic (method "topicality") are never selected, so a small
collection yields a packet smaller than k′ rather than one padded with unrelated text.
rel_i = relevance / max relevance over the retrieved set (1 for all when none is positive)."""

from __future__ import annotations

from collections.abc import Sequence

from conflictdesk import vocabulary as vocab
from conflictdesk.analysis import text as tx
from conflictdesk.analysis.tag import relevance_weights
from conflictdesk.analysis.types import Cluster, ConflictScore, Packet, Tagging
from conflictdesk.types import Passage, Tag

K_PRIME = 8
TAU = 0.5
MAX_PER_CLUSTER = 2
B_IRRELEVANT = 2
DUPLICATE_JACCARD = 0.9


def budgets(k_prime: int = K_PRIME, b_irr: int = B_IRRELEVANT) -> dict[str, int]:
    """B_sup = B_ref = floor((k′ − B_irr)/2), B_irr as given."""
    side = (k_prime - b_irr) // 2
    return {"support": side, "refute": side, "irrelevant": b_irr}


class _Selector:
    """Greedy selection under the packet size, the per-cluster cap and duplicate control."""

    def __init__(self, passages: Sequence[Passage], clusters: Sequence[Cluster], k: int, m: int):
        self.k, self.m = k, m
        self.cluster_of = {pid: c.id for c in clusters for pid in c.members}
        self.words = {p.id: set(vocab.words(p.text)) for p in passages}
        self.chosen: list[int] = []
        self.per_cluster: dict[int, int] = {}

    def full(self) -> bool:
        return len(self.chosen) >= self.k

    def take(self, ordered: Sequence[int], limit: int, *, capped: bool) -> None:
        taken = 0
        for pid in ordered:
            if taken >= limit or self.full():
                return
            if pid in self.chosen or self._duplicate(pid):
                continue
            cluster = self.cluster_of.get(pid, -1 - pid)
            if capped and self.per_cluster.get(cluster, 0) >= self.m:
                continue
            self.chosen.append(pid)
            self.per_cluster[cluster] = self.per_cluster.get(cluster, 0) + 1
            taken += 1

    def _duplicate(self, pid: int) -> bool:
        return any(
            tx.jaccard(self.words[pid], self.words[other]) >= DUPLICATE_JACCARD
            for other in self.chosen
        )


def build_packet(
    passages: Sequence[Passage],
    tagging: Tagging,
    clusters: Sequence[Cluster],
    score: ConflictScore,
    *,
    k_prime: int = K_PRIME,
    tau: float = TAU,
    max_per_cluster: int = MAX_PER_CLUSTER,
    b_irr: int = B_IRRELEVANT,
) -> Packet:
    """Select P′ (module docstring); `passage_ids` in selection order."""
    rel = relevance_weights(passages)
    tags = tagging.by_id()
    eligible = [p.id for p in passages if tags[p.id].on_topic]
    by_relevance = sorted(eligible, key=lambda pid: -rel[pid])
    selector = _Selector(passages, clusters, k_prime, max_per_cluster)
    if score.kappa < tau:
        selector.take(by_relevance, k_prime, capped=True)
        selector.take(by_relevance, k_prime, capped=False)
        return Packet(
            tuple(selector.chosen), "relevance", score.kappa, {}, k_prime, tau, max_per_cluster
        )
    plan = budgets(k_prime, b_irr)
    for tag in (Tag.SUPPORT, Tag.REFUTE, Tag.IRRELEVANT):
        partition = [pid for pid in by_relevance if tags[pid].tag is tag]
        partition.sort(key=lambda pid: -(rel[pid] * tags[pid].confidence))
        selector.take(partition, plan[tag.value], capped=True)
    selector.take(by_relevance, k_prime, capped=True)
    selector.take(by_relevance, k_prime, capped=False)
    return Packet(
        tuple(selector.chosen), "balanced", score.kappa, plan, k_prime, tau, max_per_cluster
    )


def split_evidence(packet: Sequence[Passage], tagging: Tagging) -> tuple[list[Passage], list[int]]:
    """(evidence, rest): the packet passages tagged Support or Refute or holding a candidate
    answer, in packet order, and the ids of the others by decreasing relevance. Pairs are
    judged among the evidence only, and rankings put the rest last."""
    tags = tagging.by_id()
    rel = relevance_weights(packet)
    evidence = [p for p in packet if tags[p.id].tag is not Tag.IRRELEVANT or tags[p.id].answer]
    chosen = {p.id for p in evidence}
    rest = sorted((p.id for p in packet if p.id not in chosen), key=lambda pid: -rel[pid])
    return evidence, rest
