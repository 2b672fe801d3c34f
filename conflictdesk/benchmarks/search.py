"""Search latency of the store's hybrid search over synthetic passages.

Passages are synthetic text (Zipf-distributed words from an invented vocabulary) with random
unit vectors stored under a given model id, so no real embedding is needed; the query vector
is random too, so the figures time FTS5 BM25 + dense top-k + RRF + passage fetch, not the
embedder. The first query after opening the store is reported apart (`first_ms`): it pays for
whatever loading the vectors costs; p50/p95 are over the following queries."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

COLLECTION = "bench"
SYLLABLES = ["ka", "lo", "mir", "ven", "tas", "orn", "bel", "quu", "dra", "sel", "im", "ruth"]


class SyntheticText:
    """Zipf-distributed words of an invented vocabulary, from a seeded generator."""

    def __init__(self, seed: int = 42) -> None:
        self.rng = np.random.default_rng(seed)
        words = {"".join(self.rng.choice(SYLLABLES, size=self.rng.integers(2, 4)))
                 for _ in range(20000)}  # fmt: skip
        self.vocab = sorted(words)
        weights = 1.0 / np.arange(1, len(self.vocab) + 1)
        self.weights = weights / weights.sum()

    def text(self, n_words: int) -> str:
        return " ".join(self.rng.choice(self.vocab, size=n_words, p=self.weights))

    def vectors(self, n: int, dim: int = 384) -> np.ndarray:
        v = self.rng.normal(size=(n, dim)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


class RandomEmbedder:
    """Random unit vectors (the search benchmark times retrieval, not embedding)."""

    dim = 384

    def __init__(self, source: SyntheticText, model_id: str = "bench-random") -> None:
        self.source = source
        self.model_id = model_id

    def embed(self, texts: Any) -> np.ndarray:
        return self.source.vectors(len(texts), self.dim)


def synthetic_passages(source: SyntheticText, size: int) -> Iterator[tuple[int, int, str]]:
    """(document number, order, text): five passages of 60–200 words per document."""
    for d in range(0, size, 5):
        for i in range(min(5, size - d)):
            yield d, i, source.text(int(source.rng.integers(60, 200)))


def add_synthetic(store: Any, collection: str, size: int, source: SyntheticText,
                  model_id: str, batch: int = 5000) -> None:  # fmt: skip
    """Insert `size` synthetic passages with random vectors under `model_id`."""
    cid = store.ensure_collection(collection)
    base = store.conn.execute("SELECT count(*) FROM documents").fetchone()[0]  # unique sha256s
    rows = list(synthetic_passages(source, size))
    for start in range(0, len(rows), batch):
        part = rows[start : start + batch]
        vectors = source.vectors(len(part))
        with store._write() as conn:
            doc_ids: dict[int, int] = {}
            for (d, i, body), vector in zip(part, vectors, strict=True):
                if d not in doc_ids:
                    doc_ids[d] = conn.execute(
                        "INSERT INTO documents (collection_id, title, sha256, metadata, added) "
                        "VALUES (?, ?, ?, '{}', '')", (cid, f"synthetic {d}", f"syn-{cid}-{base}-{d}"),
                    ).lastrowid  # fmt: skip
                pid = conn.execute(
                    "INSERT INTO passages (document_id, collection_id, ord, text, char_start, "
                    "char_end) VALUES (?, ?, ?, ?, 0, ?)", (doc_ids[d], cid, i, body, len(body)),
                ).lastrowid  # fmt: skip
                conn.execute("INSERT INTO embeddings VALUES (?, ?, ?, ?)",
                             (pid, model_id, len(vector), vector.astype("<f4").tobytes()))  # fmt: skip
            conn.execute("UPDATE collections SET generation = generation + 1 WHERE id = ?", (cid,))


def time_search(path: Path, size: int, queries: int, k: int) -> dict[str, Any]:
    """Build (or reuse) a store of `size` passages at `path`; first and warm query times."""
    from conflictdesk.retrieval.hybrid import hybrid_search
    from conflictdesk.store import Store

    source = SyntheticText()
    embedder = RandomEmbedder(source)
    store = Store.open(path)
    started = time.perf_counter()
    if not store.collections():
        add_synthetic(store, COLLECTION, size, source, embedder.model_id)
        store.dense_matrix(store.collection_id(COLLECTION), embedder.model_id)  # as ingest does
    build_s = time.perf_counter() - started
    store.close()
    store = Store.open(path)  # the first query of a freshly opened store
    texts = [source.text(int(source.rng.integers(3, 9))) for _ in range(queries + 1)]
    times, cpu = [], []
    for text in texts:
        started, cpu_started = time.perf_counter(), time.process_time()
        hits = hybrid_search(store, text, COLLECTION, k, embedder, embed_missing=False)
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - cpu_started) * 1000)
        if len(hits) != k:
            raise RuntimeError(f"search returned {len(hits)} passages, not {k}")
    store.close()
    warm = np.asarray(times[1:])
    return {"passages": size, "queries": len(warm), "k": k,
            "first_ms": round(times[0], 1), "p50_ms": round(float(np.percentile(warm, 50)), 2),
            "p95_ms": round(float(np.percentile(warm, 95)), 2),
            "first_minus_p50_ms": round(times[0] - float(np.percentile(warm, 50)), 1),
            "first_cpu_ms": round(cpu[0], 1), "p50_cpu_ms": round(float(np.median(cpu[1:])), 1),
            "build_s": round(build_s, 1)}  # fmt: skip
