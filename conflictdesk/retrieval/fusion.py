"""Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): score(d) = Σ 1 / (k + rank_r(d))."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

RRF_K = 60
T = TypeVar("T", bound=Hashable)


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[T]], k: int = RRF_K
) -> list[tuple[T, float]]:
    """Fuse ranked lists (best first, 1-based ranks) into one list of (item, score), best first.

    An item missing from a list contributes nothing for it. Ties are broken by the best
    single rank the item reached, then by first appearance, so the order is deterministic."""
    if k < 0:
        raise ValueError("k must be non-negative")
    scores: dict[T, float] = {}
    best: dict[T, int] = {}
    first: dict[T, int] = {}
    seen = 0
    for ranking in rankings:
        if len(set(ranking)) != len(ranking):
            raise ValueError("a ranking lists the same item twice")
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
            best[item] = min(best.get(item, rank), rank)
            if item not in first:
                first[item] = seen
                seen += 1
    return sorted(scores.items(), key=lambda kv: (-kv[1], best[kv[0]], first[kv[0]]))
