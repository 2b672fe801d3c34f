"""Hybrid retrieval as an engine service: BM25 (the index's FTS5 ranking) and dense cosine
(the index's stored vectors), fused by reciprocal rank.

The store implements `PassageIndex` (persistence only: rankings, vectors, passages); every
model call, embedding the query and passages stored without vectors, happens here."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from conflictdesk.backends.base import Embedder
from conflictdesk.errors import UsageError
from conflictdesk.retrieval.dense import top_k_cosine
from conflictdesk.retrieval.fusion import RRF_K, reciprocal_rank_fusion
from conflictdesk.types import Passage

EMBED_BATCH = 64


class PassageIndex(Protocol):
    """What retrieval needs from the store (`conflictdesk.store.Store` implements it)."""

    def collection_id(self, name: str) -> int: ...

    def collection_generation(self, collection_id: int) -> int: ...

    def lexical_ranking(
        self, collection_id: int, query: str, limit: int, *, dense_ranks: bool = False
    ) -> list[int]: ...

    def dense_matrix(self, collection_id: int, model_id: str) -> tuple[np.ndarray, np.ndarray]: ...

    def missing_embeddings(self, collection_id: int, model_id: str) -> list[tuple[int, str]]: ...

    def put_embeddings(
        self, collection_id: int, model_id: str, passage_ids: Sequence[int], vectors: np.ndarray
    ) -> None: ...

    def passages(self, ids: Sequence[int]) -> list[Passage]: ...


@dataclass(frozen=True)
class Retrieval:
    """The `k` passages best first; `vectors` holds the stored vector of each passage that has
    one (passage id → row), so the analysis can reuse them instead of embedding again."""

    passages: list[Passage]
    vectors: dict[int, np.ndarray] = field(default_factory=dict)
    method: dict[str, str] = field(default_factory=dict)
    query_vector: np.ndarray | None = None


class HybridRetriever:
    """Search one index; `embedder=None` ranks by BM25 alone (explicitly lexical search)."""

    def __init__(self, index: PassageIndex, embedder: Embedder | None) -> None:
        self.index, self.embedder = index, embedder
        self._complete: dict[tuple[int, str], int] = {}  # generation when nothing was missing

    @property
    def method(self) -> dict[str, str]:
        dense = self.embedder.model_id if self.embedder else "none"
        fusion = f"rrf-k{RRF_K}" if self.embedder else "none"
        return {"lexical": "fts5-bm25", "dense": dense, "fusion": fusion}

    def embed_missing(self, collection: str, batch: int = EMBED_BATCH) -> int:
        """Embed and store the collection's passages that have no vector for this embedder
        (e.g. after `ingest --no-embed`), one transaction per batch. Returns how many."""
        if self.embedder is None:
            return 0
        cid, model = self.index.collection_id(collection), self.embedder.model_id
        if self._complete.get((cid, model)) == self.index.collection_generation(cid):
            return 0  # nothing changed since the last full check: skip the scan
        todo = self.index.missing_embeddings(cid, model)
        for start in range(0, len(todo), batch):
            part = todo[start : start + batch]
            vectors = self.embedder.embed([text for _, text in part])
            self.index.put_embeddings(cid, model, [pid for pid, _ in part], vectors)
        self._complete[(cid, model)] = self.index.collection_generation(cid)
        return len(todo)

    def search(
        self,
        query: str,
        collection: str,
        k: int = 20,
        *,
        candidates: int | None = None,
        embed_missing: bool = True,
    ) -> Retrieval:
        """BM25 and dense rankings of `candidates` (default max(50, 4k)) fused by RRF (k=60).

        Passages without a vector are embedded and stored first, unless `embed_missing=False`,
        in which case they take part through BM25 only. `relevance` is the fused score;
        metadata carries bm25_rank, dense_rank and cosine."""
        if not query.strip():
            raise UsageError("the search query is empty")
        if k < 1:
            raise UsageError("k must be at least 1")
        cid = self.index.collection_id(collection)
        pool = candidates or max(50, 4 * k)
        query_vector = self._query_vector(query, cid, collection, embed_missing)
        dense, cosines, rows = self._dense_ranking(cid, query_vector, pool)
        lexical = self.index.lexical_ranking(cid, query, pool, dense_ranks=bool(dense))
        fused = reciprocal_rank_fusion([r for r in (lexical, dense) if r], k=RRF_K)[:k]
        ranks = (
            {pid: i for i, pid in enumerate(lexical, start=1)},
            {pid: i for i, pid in enumerate(dense, start=1)},
        )
        found = {p.id: p for p in self.index.passages([pid for pid, _ in fused])}
        passages = [_ranked(found[pid], score, ranks, cosines) for pid, score in fused]
        vectors = {p.id: rows[p.id] for p in passages if p.id in rows}
        return Retrieval(passages, vectors, self.method, query_vector)

    def _query_vector(
        self, query: str, cid: int, collection: str, embed_missing: bool
    ) -> np.ndarray | None:
        """The query's vector when the collection has vectors to compare it with."""
        if self.embedder is None:
            return None
        if embed_missing:
            self.embed_missing(collection)
        if not len(self.index.dense_matrix(cid, self.embedder.model_id)[0]):
            return None
        return self.embedder.embed([query])[0]

    def _dense_ranking(
        self, cid: int, query_vector: np.ndarray | None, pool: int
    ) -> tuple[list[int], dict[int, float], _Rows]:
        """The `pool` passage ids nearest the query's vector, best first, their cosines and
        the stored vectors by passage id."""
        if self.embedder is None or query_vector is None:
            return [], {}, _Rows()
        ids, matrix = self.index.dense_matrix(cid, self.embedder.model_id)
        rows, scores = top_k_cosine(matrix, query_vector, pool)
        ranked = ids[rows].tolist()
        return ranked, dict(zip(ranked, scores.tolist())), _Rows(ids, matrix)


class _Rows:
    """Stored vectors by passage id, looked up lazily in the index's (ids, matrix)."""

    def __init__(self, ids: np.ndarray | None = None, matrix: np.ndarray | None = None) -> None:
        self._ids, self._matrix = ids, matrix

    def __contains__(self, passage_id: int) -> bool:
        return self._row(passage_id) is not None

    def __getitem__(self, passage_id: int) -> np.ndarray:
        row = self._row(passage_id)
        if row is None or self._matrix is None:
            raise KeyError(passage_id)
        return self._matrix[row]

    def _row(self, passage_id: int) -> int | None:
        if self._ids is None or not len(self._ids):
            return None
        row = int(np.searchsorted(self._ids, passage_id))  # the index keeps ids sorted
        return row if row < len(self._ids) and self._ids[row] == passage_id else None


def _ranked(
    passage: Passage,
    score: float,
    ranks: tuple[dict[int, int], dict[int, int]],
    cosines: dict[int, float],
) -> Passage:
    meta = dict(passage.metadata)
    meta.update(
        bm25_rank=ranks[0].get(passage.id),
        dense_rank=ranks[1].get(passage.id),
        cosine=cosines.get(passage.id),
    )
    return dataclasses.replace(passage, relevance=score, metadata=meta)


def hybrid_search(
    index: PassageIndex,
    query: str,
    collection: str,
    k: int = 20,
    embedder: Embedder | None = None,
    *,
    candidates: int | None = None,
    embed_missing: bool = True,
) -> list[Passage]:
    """One search without keeping a retriever: the passages alone."""
    retriever = HybridRetriever(index, embedder)
    found = retriever.search(
        query, collection, k, candidates=candidates, embed_missing=embed_missing
    )
    return found.passages
