"""ConRAG evidence clustering: a passage similarity graph, greedy modularity communities.

Edge weight between passages i and j (ConRAG's three ingredients):
    w_ij = 0.5·cos(e_i, e_j) + 0.25·J_ij + 0.25·a_ij
with e the passage embeddings, J_ij the Jaccard overlap of their entities and numbers, and
a_ij the tag agreement: +u_i·u_j when both are Support or both Refute, −u_i·u_j when one is
Support and the other Refute, 0 when either is Irrelevant. Negative weights are dropped
(modularity needs non-negative weights) and each passage keeps its `neighbours` strongest
edges (ConRAG's nearest-neighbour sparsification). Communities come from networkx's
greedy modularity maximisation. A cluster's dominant tag is the tag with the largest sum of
confidences among its members; its confidence is that sum over the members' total.
Only on-topic passages are clustered (see tag.py); the off-topic ones form one cluster."""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx  # type: ignore[import-untyped]
import numpy as np
from networkx.algorithms.community import (  # type: ignore[import-untyped]
    greedy_modularity_communities,
)

from conflictdesk.analysis import text as tx
from conflictdesk.analysis.types import Cluster, PassageTag, Tagging
from conflictdesk.backends.base import Embedder
from conflictdesk.types import Passage, Tag

W_COSINE, W_OVERLAP, W_AGREEMENT = 0.5, 0.25, 0.25
_STANCE = {Tag.SUPPORT: 1, Tag.REFUTE: -1, Tag.IRRELEVANT: 0}


def agreement(a: PassageTag, b: PassageTag) -> float:
    """+u_i·u_j for the same stance, −u_i·u_j for opposite stances, 0 with an Irrelevant."""
    return _STANCE[a.tag] * _STANCE[b.tag] * a.confidence * b.confidence


def edge_weights(
    passages: Sequence[Passage], tags: Sequence[PassageTag], embeddings: np.ndarray
) -> np.ndarray:
    """The dense matrix of w_ij (module docstring), zero diagonal, negatives clipped to 0."""
    n = len(passages)
    cosine = np.clip(embeddings @ embeddings.T, -1.0, 1.0)
    spans = [set(tx.entities(p.text)) | set(tx.numbers(p.text)) for p in passages]
    weights = np.zeros((n, n), dtype=np.float64)
    for i in range(n):
        for j in range(i + 1, n):
            w = (
                W_COSINE * float(cosine[i, j])
                + W_OVERLAP * tx.jaccard(spans[i], spans[j])
                + W_AGREEMENT * agreement(tags[i], tags[j])
            )
            weights[i, j] = weights[j, i] = max(w, 0.0)
    return weights


def similarity_graph(weights: np.ndarray, neighbours: int) -> nx.Graph:
    """Nodes 0..n−1; each node keeps edges to its `neighbours` highest-weight neighbours."""
    n = weights.shape[0]
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for i in range(n):
        order = [j for j in np.argsort(-weights[i], kind="stable") if j != i and weights[i, j] > 0]
        for j in order[:neighbours]:
            graph.add_edge(i, int(j), weight=float(weights[i, j]))
    return graph


def summarise_cluster(cluster_id: int, members: Sequence[PassageTag]) -> Cluster:
    """Dominant tag by confidence sum; confidence = dominant mass / total mass."""
    mass = {tag.value: 0.0 for tag in Tag}
    for member in members:
        mass[member.tag.value] += member.confidence
    dominant = max(Tag, key=lambda t: (mass[t.value], t is not Tag.IRRELEVANT))
    total = sum(mass.values())
    confidence = mass[dominant.value] / total if total > 0 else 0.0
    ids = tuple(sorted(m.passage_id for m in members))
    return Cluster(cluster_id, ids, dominant, confidence, mass)


def cluster_passages(
    passages: Sequence[Passage],
    tagging: Tagging,
    embedder: Embedder,
    *,
    embeddings: np.ndarray | None = None,
    neighbours: int = 5,
) -> tuple[Cluster, ...]:
    """Evidence groups of the on-topic passages (clusters by decreasing size, then first id;
    member ids ascending), then one cluster of the off-topic passages, if any. `embeddings`
    (rows in `passages` order) saves the embedder call."""
    by_id = tagging.by_id()
    rows = [i for i, p in enumerate(passages) if by_id[p.id].on_topic]
    off_topic = [by_id[p.id] for p in passages if not by_id[p.id].on_topic]
    clusters: list[Cluster] = []
    if rows:
        if embeddings is None:
            embeddings = embedder.embed([passages[i].text for i in rows])
        else:
            embeddings = np.asarray(embeddings, dtype=np.float64)[rows]
        members = [passages[i] for i in rows]
        tags = [by_id[p.id] for p in members]
        graph = similarity_graph(edge_weights(members, tags, np.asarray(embeddings)), neighbours)
        if graph.number_of_edges() == 0:
            communities = [{i} for i in range(len(members))]
        else:
            communities = [set(c) for c in greedy_modularity_communities(graph, weight="weight")]
        ordered = sorted(communities, key=lambda c: (-len(c), min(c)))
        clusters = [
            summarise_cluster(index, [tags[i] for i in sorted(community)])
            for index, community in enumerate(ordered)
        ]
    if off_topic:
        clusters.append(summarise_cluster(len(clusters), off_topic))
    return tuple(clusters)
