"""The Store's side of search: stored vectors (an in-memory matrix per collection and
embedder) and the FTS5 lexical ranking with common-term pruning. `SearchIndex` is a mixin of
`Store` and makes it a `conflictdesk.retrieval.hybrid.PassageIndex`; the hybrid search itself,
and every embedding it needs, lives in that engine service. The mixin reads the store's
connection, lock and collection bookkeeping, declared below."""

from __future__ import annotations

import logging
import sqlite3
import threading
from array import array
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

import numpy as np

from conflictdesk.errors import ConflictDeskError
from conflictdesk.retrieval.lexical import match_expression, prune_common_terms, query_terms
from conflictdesk.store.vectors import Fingerprint, read_vectors, vector_dir, write_vectors

log = logging.getLogger(__name__)

FTS_TOKENIZER = "porter unicode61"  # must match passages_fts in m001_initial
TERM_CACHE_SIZE = 100_000


def vector_blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype="<f4").tobytes()


@dataclass
class DenseMatrix:
    generation: int
    ids: np.ndarray  # passage ids, aligned with matrix rows
    matrix: np.ndarray  # float32 (n, dim)


class TermCounter:
    """Document frequencies of query words in passages_fts, read from an fts5vocab table.

    The index holds porter stems, so each word is first run through the same tokenizer,
    in a private in-memory FTS5 table (autocommit, so the store's transactions never see it)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        # A temp table: per connection, so the schema (and the migration list) stays as shipped.
        conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.passages_vocab "
            "USING fts5vocab(main, passages_fts, row)"
        )
        self._conn = conn
        self._words = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self._words.execute(
            f"CREATE VIRTUAL TABLE words USING fts5(word, tokenize='{FTS_TOKENIZER}')"
        )
        self._words.execute("CREATE VIRTUAL TABLE word_terms USING fts5vocab(words, instance)")
        self._cache: dict[str, int] = {}
        self._version: tuple[int, int] | None = None

    def _stems(self, words: Sequence[str]) -> list[set[str]]:
        stems: list[set[str]] = [set() for _ in words]
        try:
            self._words.executemany(
                "INSERT INTO words (rowid, word) VALUES (?, ?)", enumerate(words)
            )
            for rowid, term in self._words.execute("SELECT doc, term FROM word_terms"):
                stems[rowid].add(term)
        finally:
            self._words.execute("DELETE FROM words")
        return stems

    def doc_freq(self, words: Sequence[str]) -> dict[str, int]:
        """Passages containing each word (for a word FTS5 splits, the rarest part's count).

        fts5vocab counts by walking a term's doclist, so counts are cached until this
        connection writes anything or another connection commits (PRAGMA data_version)."""
        version = (
            self._conn.total_changes,
            self._conn.execute("PRAGMA data_version").fetchone()[0],
        )
        if version != self._version or len(self._cache) > TERM_CACHE_SIZE:
            self._cache, self._version = {}, version
        missing = [w for w in dict.fromkeys(words) if w not in self._cache]
        if missing:
            self._cache.update(self._count(missing))
        return {w: self._cache[w] for w in words}

    def _count(self, words: Sequence[str]) -> dict[str, int]:
        stems = self._stems(words)
        terms = sorted(set().union(*stems))
        marks = ",".join("?" * len(terms))
        sql = f"SELECT term, doc FROM temp.passages_vocab WHERE term IN ({marks})"
        found = dict(self._conn.execute(sql, terms).fetchall()) if terms else {}
        return {w: min((found.get(t, 0) for t in s), default=0) for w, s in zip(words, stems)}

    def close(self) -> None:
        self._words.close()


class SearchIndex:
    """Embeddings and search methods of `Store` (see store/database.py)."""

    conn: sqlite3.Connection
    _lock: threading.RLock
    _dense: dict[tuple[int, str], DenseMatrix]
    _sizes: dict[int, tuple[int, int]]
    _terms: TermCounter
    _write: Callable[[], AbstractContextManager[sqlite3.Connection]]
    _generation: Callable[[int], int]
    path: str
    collection_id: Callable[[str], int]
    passages: Callable[[Sequence[int]], list]

    # ---- embeddings --------------------------------------------------------------------

    def collection_generation(self, collection_id: int) -> int:
        """A counter that changes whenever the collection's passages or vectors change."""
        return self._generation(collection_id)

    def missing_embeddings(self, collection_id: int, model_id: str) -> list[tuple[int, str]]:
        with self._lock:
            return self.conn.execute(
                """SELECT p.id, p.text FROM passages p
                   WHERE p.collection_id = ? AND NOT EXISTS
                     (SELECT 1 FROM embeddings e WHERE e.passage_id = p.id AND e.model = ?)
                   ORDER BY p.id""",
                (collection_id, model_id),
            ).fetchall()

    def put_embeddings(
        self, collection_id: int, model_id: str, passage_ids: Sequence[int], vectors: np.ndarray
    ) -> None:
        if vectors.shape[0] != len(passage_ids):
            raise ValueError(f"{vectors.shape[0]} vectors for {len(passage_ids)} passages")
        with self._write() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO embeddings (passage_id, model, dim, vector) VALUES (?, ?, ?, ?)",
                [
                    (int(pid), model_id, vectors.shape[1], vector_blob(vec))
                    for pid, vec in zip(passage_ids, vectors)
                ],
            )
            conn.execute(
                "UPDATE collections SET generation = generation + 1 WHERE id = ?", (collection_id,)
            )

    def dense_matrix(self, collection_id: int, model_id: str) -> tuple[np.ndarray, np.ndarray]:
        """(passage ids, float32 matrix) of the collection's vectors for `model_id`, cached in
        memory and reloaded only when the collection's generation has changed."""
        with self._lock:
            generation = self._generation(collection_id)
            cached = self._dense.get((collection_id, model_id))
            if cached is None or cached.generation != generation:
                cached = DenseMatrix(generation, *self._mapped_vectors(collection_id, model_id))
                self._dense[(collection_id, model_id)] = cached
            return cached.ids, cached.matrix

    def _mapped_vectors(self, collection_id: int, model_id: str) -> tuple[np.ndarray, np.ndarray]:
        """The vector file beside the database when it matches the store (memory-mapped, no
        load step); else the vectors from SQLite, then written to the file for next time."""
        folder = vector_dir(self.path)
        if folder is None:
            return self._load_vectors(collection_id, model_id)
        expected = self._fingerprint(collection_id, model_id)
        found = read_vectors(folder, collection_id, model_id, expected)
        if found is not None:
            return found
        ids, matrix = self._load_vectors(collection_id, model_id)
        if len(ids):
            try:
                write_vectors(folder, collection_id, model_id, ids, matrix, expected)
            except OSError as exc:  # a read-only folder: search still works, from SQLite
                log.warning("vector file not written in %s: %s", folder, exc)
        return ids, matrix

    def _fingerprint(self, collection_id: int, model_id: str) -> Fingerprint:
        """The collection's generation and the first and last passage id of its vectors
        (index lookups when the collection is the whole index)."""
        if self._is_whole_index(collection_id):
            sql = "SELECT {}(passage_id) FROM embeddings WHERE model = ?"
            params: tuple[int | str, ...] = (model_id,)
        else:
            sql = """SELECT {}(e.passage_id) FROM embeddings e JOIN passages p
                     ON p.id = e.passage_id WHERE p.collection_id = ? AND e.model = ?"""
            params = (collection_id, model_id)
        low, high = (self.conn.execute(sql.format(f), params).fetchone()[0] for f in ("min", "max"))
        return Fingerprint(self._generation(collection_id), int(low or 0), int(high or 0))

    def _load_vectors(self, collection_id: int, model_id: str) -> tuple[np.ndarray, np.ndarray]:
        """One query streamed into one buffer, viewed with np.frombuffer: no per-row arrays,
        and no join to passages when the collection is everything the index holds."""
        params: tuple[int | str, ...]
        if self._is_whole_index(collection_id):
            sql, params = "SELECT passage_id, vector FROM embeddings WHERE model = ?", (model_id,)
        else:
            sql = """SELECT e.passage_id, e.vector FROM embeddings e
                     JOIN passages p ON p.id = e.passage_id
                     WHERE p.collection_id = ? AND e.model = ?"""
            params = (collection_id, model_id)
        ids, buffer, sizes = array("q"), bytearray(), set()
        for passage_id, vector in self.conn.execute(sql, params):
            ids.append(passage_id)
            buffer += vector
            sizes.add(len(vector))
        if len(sizes) > 1:
            dims = sorted(size // 4 for size in sizes)
            raise ConflictDeskError(f"{model_id}: stored vectors have mixed sizes {dims}")
        if not ids:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        id_array = np.frombuffer(ids, dtype=np.int64)
        matrix = np.frombuffer(buffer, dtype="<f4").reshape(len(ids), -1)
        if np.any(id_array[1:] < id_array[:-1]):  # keep rows in passage-id order
            order = np.argsort(id_array, kind="stable")
            id_array, matrix = id_array[order], np.ascontiguousarray(matrix[order])
        return id_array, matrix

    def _is_whole_index(self, collection_id: int) -> bool:
        """Whether every passage in the database (so every FTS5 row) is in this collection."""
        generation = self._generation(collection_id)
        cached = self._sizes.get(collection_id)
        if cached is None or cached[0] != generation:
            size = self.conn.execute(
                "SELECT count(*) FROM passages WHERE collection_id = ?", (collection_id,)
            ).fetchone()[0]
            cached = self._sizes[collection_id] = (generation, int(size))
        return cached[1] == self._passage_total()

    def _passage_total(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM passages").fetchone()[0])

    # ---- search ------------------------------------------------------------------------

    def lexical_terms(self, query: str, *, dense_ranks: bool = False) -> list[str]:
        """The query words sent to FTS5: content words minus those too common to score
        (`prune_common_terms`, on document frequencies from the index's fts5vocab table)."""
        words = query_terms(query)
        if not words:
            return []
        with self._lock:
            freq = self._terms.doc_freq(words)
            total = self._passage_total()
        return prune_common_terms(words, freq, total, dense_ranks=dense_ranks)

    def lexical_ranking(
        self, collection_id: int, query: str, limit: int, *, dense_ranks: bool = False
    ) -> list[int]:
        """Passage ids matching the pruned FTS5 query, best BM25 first."""
        match = match_expression(self.lexical_terms(query, dense_ranks=dense_ranks))
        if match is None:
            return []
        order = "ORDER BY bm25(passages_fts), passages_fts.rowid LIMIT ?"
        params: tuple[int | str, ...]
        with self._lock:
            if self._is_whole_index(collection_id):  # no join needed to filter by collection
                sql, params = "SELECT rowid FROM passages_fts WHERE passages_fts MATCH ? ", (match,)
            else:
                sql = """SELECT passages_fts.rowid FROM passages_fts
                         JOIN passages p ON p.id = passages_fts.rowid
                         WHERE passages_fts MATCH ? AND p.collection_id = ? """
                params = (match, collection_id)
            rows = self.conn.execute(sql + order, (*params, limit)).fetchall()
        return [r[0] for r in rows]
