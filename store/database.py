"""The Store: one SQLite database (sqlite-utils) holding collections, documents, passages,
their FTS5 index and embeddings, the judgment cache (model_calls) and saved runs.

Concurrency: WAL mode and a busy timeout let the CLI and the TUI share one file; writes
take `BEGIN IMMEDIATE` so two writers queue instead of failing mid-transaction. One
Store object may be used from several threads (a lock serialises its calls)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from array import array
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from sqlite_utils import Database

from conflictdesk.backends.base import Embedder
from conflictdesk.errors import ConflictDeskError, UsageError
from conflictdesk.ingest.chunking import Chunk
from conflictdesk.ingest.readers import SourceDocument
from conflictdesk.retrieval import reciprocal_rank_fusion, top_k_cosine
from conflictdesk.retrieval.fusion import RRF_K
from conflictdesk.retrieval.lexical import (
    match_expression,
    prune_common_terms,
    query_terms,
)
from conflictdesk.store.migrations import migrations

BUSY_TIMEOUT_S = 10.0
EMBED_BATCH = 64
MMAP_BYTES = 1 << 30  # read pages (vectors above all) straight from the OS cache
FTS_TOKENIZER = "porter unicode61"  # must match passages_fts in m001_initial
TERM_CACHE_SIZE = 100_000


class NotFoundError(ConflictDeskError):
    """A named collection, document or run does not exist (exit status 1)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def content_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype="<f4").tobytes()


@dataclass
class _Dense:
    generation: int
    ids: np.ndarray  # passage ids, aligned with matrix rows
    matrix: np.ndarray  # float32 (n, dim)


class _TermCounter:
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
            self._words.executemany("INSERT INTO words (rowid, word) VALUES (?, ?)", enumerate(words))
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


class SqliteCache:
    """`JudgmentCache` over the model_calls table: (stage, model_id, input_hash) → output JSON."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def get(self, stage: str, model_id: str, input_hash: str) -> Any | None:
        with self._store._lock:
            row = self._store.conn.execute(
                "SELECT output FROM model_calls WHERE stage = ? AND model_id = ? AND input_hash = ?",
                (stage, model_id, input_hash),
            ).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, stage: str, model_id: str, input_hash: str, output: Any, ms: float) -> None:
        body = json.dumps(output, ensure_ascii=False)
        with self._store._write() as conn:
            conn.execute(
                """INSERT INTO model_calls (stage, model_id, input_hash, output, ms, created)
                   VALUES (?, ?, ?, ?, ?, ?)
                   ON CONFLICT (stage, model_id, input_hash)
                   DO UPDATE SET output = excluded.output, ms = excluded.ms,
                                 created = excluded.created""",
                (stage, model_id, input_hash, body, float(ms), _now()),
            )

    def count(self, stage: str | None = None) -> int:
        sql, params = "SELECT count(*) FROM model_calls", ()
        if stage is not None:
            sql, params = sql + " WHERE stage = ?", (stage,)
        with self._store._lock:
            return int(self._store.conn.execute(sql, params).fetchone()[0])


class Store:
    """Open with `Store.open(path)` (or ":memory:"); migrations run on open."""

    def __init__(self, db: Database, path: str) -> None:
        self.db = db
        self.conn: sqlite3.Connection = db.conn
        self.path = path
        self._lock = threading.RLock()
        self._dense: dict[tuple[int, str], _Dense] = {}
        self._embedded: dict[tuple[int, str], int] = {}  # generation when nothing was missing
        self._sizes: dict[int, tuple[int, int]] = {}  # collection → (generation, passages)
        self._terms = _TermCounter(self.conn)
        self.cache = SqliteCache(self)

    # ---- lifecycle ---------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path = ":memory:") -> Store:
        target = str(path)
        if target != ":memory:":
            Path(target).expanduser().parent.mkdir(parents=True, exist_ok=True)
            target = str(Path(target).expanduser())
        try:
            conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
            db = Database(conn)
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            if target != ":memory:":
                conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
                db.enable_wal()
                conn.execute("PRAGMA synchronous = NORMAL")
            migrations.apply(db)
        except sqlite3.DatabaseError as exc:
            raise ConflictDeskError(f"cannot open database {target}: {exc}") from exc
        return cls(db, target)

    def close(self) -> None:
        with self._lock:
            self._terms.close()
            self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT, ROLLBACK on any error)."""
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def applied_migrations(self) -> list[str]:
        return [m.name for m in migrations.applied(self.db)]

    # ---- collections -------------------------------------------------------------------

    def _collection_row(self, name: str) -> tuple[int, int] | None:
        row = self.conn.execute(
            "SELECT id, generation FROM collections WHERE name = ?", (name,)
        ).fetchone()
        return None if row is None else (int(row[0]), int(row[1]))

    def _generation(self, collection_id: int) -> int:
        with self._lock:
            row = self.conn.execute(
                "SELECT generation FROM collections WHERE id = ?", (collection_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"no collection {collection_id}")
        return int(row[0])

    def collection_id(self, name: str) -> int:
        with self._lock:
            row = self._collection_row(name)
        if row is None:
            raise NotFoundError(
                f"no collection named {name!r} (see `conflictdesk collections`)"
            )
        return row[0]

    def ensure_collection(self, name: str) -> int:
        name = name.strip()
        if not name:
            raise UsageError("a collection name must not be empty")
        with self._write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO collections (name, created) VALUES (?, ?)", (name, _now())
            )
            return int(conn.execute("SELECT id FROM collections WHERE name = ?", (name,)).fetchone()[0])

    def collections(self) -> list[dict[str, Any]]:
        """Every collection with its counts: name, documents, passages, created."""
        with self._lock:
            rows = self.conn.execute(
                """SELECT c.name, c.created,
                          (SELECT count(*) FROM documents d WHERE d.collection_id = c.id),
                          (SELECT count(*) FROM passages p WHERE p.collection_id = c.id)
                   FROM collections c ORDER BY c.name"""
            ).fetchall()
        return [
            {"name": r[0], "documents": r[2], "passages": r[3], "created": r[1]} for r in rows
        ]

    def delete_collection(self, name: str) -> None:
        cid = self.collection_id(name)
        with self._write() as conn:
            conn.execute(
                "DELETE FROM embeddings WHERE passage_id IN "
                "(SELECT id FROM passages WHERE collection_id = ?)",
                (cid,),
            )
            conn.execute("DELETE FROM passages WHERE collection_id = ?", (cid,))
            conn.execute("DELETE FROM documents WHERE collection_id = ?", (cid,))
            conn.execute("DELETE FROM collections WHERE id = ?", (cid,))
        self._dense = {k: v for k, v in self._dense.items() if k[0] != cid}
        self._embedded = {k: v for k, v in self._embedded.items() if k[0] != cid}
        self._sizes.pop(cid, None)

    # ---- documents and passages --------------------------------------------------------

    def has_document(self, collection_id: int, sha256: str) -> bool:
        with self._lock:
            return (
                self.conn.execute(
                    "SELECT 1 FROM documents WHERE collection_id = ? AND sha256 = ?",
                    (collection_id, sha256),
                ).fetchone()
                is not None
            )

    def add_document(
        self,
        collection_id: int,
        doc: SourceDocument,
        chunks: Sequence[Chunk],
        vectors: np.ndarray | None = None,
        model_id: str | None = None,
    ) -> int | None:
        """Store one document, its passages and (optionally) their vectors in ONE transaction.

        Returns the new document id, or None when the collection already holds this text
        (same sha256): re-running an ingest never duplicates."""
        if not chunks:
            raise ValueError("a document needs at least one passage")
        if vectors is not None:
            if model_id is None:
                raise ValueError("vectors need the model_id that made them")
            if vectors.shape[0] != len(chunks):
                raise ValueError(f"{vectors.shape[0]} vectors for {len(chunks)} passages")
        sha = content_sha256(doc.text)
        with self._write() as conn:
            cur = conn.execute(
                """INSERT OR IGNORE INTO documents
                   (collection_id, title, source, url, date, sha256, metadata, added)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
                (collection_id, doc.title, doc.source, doc.url, doc.date, sha,
                 json.dumps(doc.metadata, ensure_ascii=False, default=str), _now()),
            )
            if cur.rowcount == 0:
                return None
            doc_id = int(cur.lastrowid)
            for order, chunk in enumerate(chunks):
                pid = conn.execute(
                    """INSERT INTO passages
                       (document_id, collection_id, ord, text, char_start, char_end)
                       VALUES (?, ?, ?, ?, ?, ?)""",
                    (doc_id, collection_id, order, chunk.text, chunk.start, chunk.end),
                ).lastrowid
                if vectors is not None:
                    conn.execute(
                        "INSERT INTO embeddings (passage_id, model, dim, vector) VALUES (?, ?, ?, ?)",
                        (pid, model_id, vectors.shape[1], _blob(vectors[order])),
                    )
            conn.execute(
                "UPDATE collections SET generation = generation + 1 WHERE id = ?", (collection_id,)
            )
        return doc_id

    def delete_document(self, document_id: int) -> None:
        with self._write() as conn:
            row = conn.execute(
                "SELECT collection_id FROM documents WHERE id = ?", (document_id,)
            ).fetchone()
            if row is None:
                raise NotFoundError(f"no document {document_id}")
            conn.execute(
                "DELETE FROM embeddings WHERE passage_id IN "
                "(SELECT id FROM passages WHERE document_id = ?)",
                (document_id,),
            )
            conn.execute("DELETE FROM passages WHERE document_id = ?", (document_id,))
            conn.execute("DELETE FROM documents WHERE id = ?", (document_id,))
            conn.execute(
                "UPDATE collections SET generation = generation + 1 WHERE id = ?", (row[0],)
            )

    def _document_dict(self, row: sqlite3.Row | tuple) -> dict[str, Any]:
        keys = ("id", "collection", "title", "source", "url", "date", "sha256", "metadata",
                "added", "passages")
        out = dict(zip(keys, row))
        out["metadata"] = json.loads(out["metadata"])
        return out

    _DOC_SQL = """SELECT d.id, c.name, d.title, d.source, d.url, d.date, d.sha256, d.metadata,
                         d.added, (SELECT count(*) FROM passages p WHERE p.document_id = d.id)
                  FROM documents d JOIN collections c ON c.id = d.collection_id"""

    def document(self, document_id: int) -> dict[str, Any]:
        with self._lock:
            row = self.conn.execute(self._DOC_SQL + " WHERE d.id = ?", (document_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no document {document_id}")
        return self._document_dict(row)

    def documents(self, collection: str) -> list[dict[str, Any]]:
        cid = self.collection_id(collection)
        with self._lock:
            rows = self.conn.execute(
                self._DOC_SQL + " WHERE d.collection_id = ? ORDER BY d.id", (cid,)
            ).fetchall()
        return [self._document_dict(r) for r in rows]

    _PASSAGE_SQL = """SELECT p.id, p.text, p.document_id, d.title, d.date, d.source, d.url,
                             p.ord, p.char_start, p.char_end, c.name
                      FROM passages p JOIN documents d ON d.id = p.document_id
                      JOIN collections c ON c.id = p.collection_id"""

    @staticmethod
    def _passage(row: tuple, relevance: float = 0.0, extra: dict[str, Any] | None = None):
        from conflictdesk.types import Passage

        meta = {"order": row[7], "char_start": row[8], "char_end": row[9], "collection": row[10]}
        meta.update(extra or {})
        return Passage(id=row[0], text=row[1], document_id=row[2], title=row[3], date=row[4],
                       source=row[5], url=row[6], relevance=relevance, metadata=meta)

    def passages(self, ids: Sequence[int]) -> list:
        """Passages by id, in the order asked; raises NotFoundError for an unknown id."""
        ids = [int(i) for i in ids]
        found: dict[int, tuple] = {}
        with self._lock:
            for start in range(0, len(ids), 500):
                part = ids[start : start + 500]
                marks = ",".join("?" * len(part))
                for row in self.conn.execute(self._PASSAGE_SQL + f" WHERE p.id IN ({marks})", part):
                    found[row[0]] = row
        missing = [i for i in ids if i not in found]
        if missing:
            raise NotFoundError(f"no passage with id {missing[0]}")
        return [self._passage(found[i]) for i in ids]

    def collection_passages(self, collection: str) -> list:
        """Every passage of a collection in document order."""
        cid = self.collection_id(collection)
        with self._lock:
            rows = self.conn.execute(
                self._PASSAGE_SQL + " WHERE p.collection_id = ? ORDER BY p.document_id, p.ord",
                (cid,),
            ).fetchall()
        return [self._passage(r) for r in rows]

    # ---- embeddings --------------------------------------------------------------------

    def missing_embeddings(self, collection_id: int, model_id: str) -> list[tuple[int, str]]:
        with self._lock:
            return self.conn.execute(
                """SELECT p.id, p.text FROM passages p
                   WHERE p.collection_id = ? AND NOT EXISTS
                     (SELECT 1 FROM embeddings e WHERE e.passage_id = p.id AND e.model = ?)
                   ORDER BY p.id""",
                (collection_id, model_id),
            ).fetchall()

    def embed_missing(self, collection: str, embedder: Embedder, batch: int = EMBED_BATCH) -> int:
        """Embed the collection's passages that have no vector for `embedder.model_id`
        (e.g. after `ingest --no-embed`), one transaction per batch. Returns how many."""
        cid = self.collection_id(collection)
        key = (cid, embedder.model_id)
        if self._embedded.get(key) == self._generation(cid):
            return 0  # nothing changed since the last full check: skip the scan
        todo = self.missing_embeddings(cid, embedder.model_id)
        for start in range(0, len(todo), batch):
            part = todo[start : start + batch]
            vectors = embedder.embed([text for _, text in part])
            self.put_embeddings(cid, embedder.model_id, [pid for pid, _ in part], vectors)
        self._embedded[key] = self._generation(cid)
        return len(todo)

    def put_embeddings(
        self, collection_id: int, model_id: str, passage_ids: Sequence[int], vectors: np.ndarray
    ) -> None:
        if vectors.shape[0] != len(passage_ids):
            raise ValueError(f"{vectors.shape[0]} vectors for {len(passage_ids)} passages")
        with self._write() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO embeddings (passage_id, model, dim, vector) VALUES (?, ?, ?, ?)",
                [(int(pid), model_id, vectors.shape[1], _blob(vec))
                 for pid, vec in zip(passage_ids, vectors)],
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
                cached = _Dense(generation, *self._load_vectors(collection_id, model_id))
                self._dense[(collection_id, model_id)] = cached
            return cached.ids, cached.matrix

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
        order = "ORDER BY bm25(passages_fts), rowid LIMIT ?"
        params: tuple[int | str, ...]
        with self._lock:
            if self._is_whole_index(collection_id):  # no join needed to filter by collection
                sql, params = "SELECT rowid FROM passages_fts WHERE passages_fts MATCH ? ", (match,)
            else:
                sql = """SELECT f.rowid FROM passages_fts f JOIN passages p ON p.id = f.rowid
                         WHERE passages_fts MATCH ? AND p.collection_id = ? """
                params = (match, collection_id)
            rows = self.conn.execute(sql + order, (*params, limit)).fetchall()
        return [r[0] for r in rows]

    def _dense_ranking(
        self,
        cid: int,
        collection: str,
        query: str,
        pool: int,
        embedder: Embedder,
        embed_missing: bool,
    ) -> tuple[list[int], dict[int, float]]:
        """The `pool` passage ids nearest the query's vector, best first, with their cosines."""
        if embed_missing:
            self.embed_missing(collection, embedder)
        ids, matrix = self.dense_matrix(cid, embedder.model_id)
        if not len(ids):
            return [], {}
        rows, scores = top_k_cosine(matrix, embedder.embed([query])[0], pool)
        ranked = ids[rows].tolist()
        return ranked, dict(zip(ranked, scores.tolist()))

    def search(
        self,
        query: str,
        collection: str,
        k: int = 20,
        embedder: Embedder | None = None,
        *,
        candidates: int | None = None,
        embed_missing: bool = True,
    ) -> list:
        """Hybrid search: BM25 (FTS5) and dense cosine rankings fused by RRF (k=60).

        With `embedder=None` only BM25 ranks (explicitly lexical search). Passages that have
        no vector for the embedder yet (ingested with --no-embed) are embedded first and
        stored, unless `embed_missing=False`, in which case they take part through BM25 only.
        `relevance` is the fused score; metadata carries bm25_rank, dense_rank and cosine."""
        if not query.strip():
            raise UsageError("the search query is empty")
        if k < 1:
            raise UsageError("k must be at least 1")
        cid = self.collection_id(collection)
        pool = candidates or max(50, 4 * k)
        dense: list[int] = []
        cosines: dict[int, float] = {}
        if embedder is not None:
            dense, cosines = self._dense_ranking(
                cid, collection, query, pool, embedder, embed_missing
            )
        lexical = self.lexical_ranking(cid, query, pool, dense_ranks=bool(dense))
        fused = reciprocal_rank_fusion([r for r in (lexical, dense) if r], k=RRF_K)[:k]
        if not fused:
            return []
        lex_rank = {pid: i for i, pid in enumerate(lexical, start=1)}
        dense_rank = {pid: i for i, pid in enumerate(dense, start=1)}
        found = {p.id: p for p in self.passages([pid for pid, _ in fused])}
        out = []
        for pid, score in fused:
            p = found[pid]
            meta = dict(p.metadata)
            meta.update(bm25_rank=lex_rank.get(pid), dense_rank=dense_rank.get(pid),
                        cosine=cosines.get(pid))
            out.append(type(p)(id=p.id, text=p.text, document_id=p.document_id, title=p.title,
                               date=p.date, source=p.source, url=p.url, relevance=score,
                               metadata=meta))
        return out

    # ---- runs --------------------------------------------------------------------------

    def save_run(self, kind: str, input: Any, output: Any, method: Any) -> int:
        with self._write() as conn:
            cur = conn.execute(
                "INSERT INTO runs (kind, input, output, method, created) VALUES (?, ?, ?, ?, ?)",
                (kind, json.dumps(input, ensure_ascii=False, default=str),
                 json.dumps(output, ensure_ascii=False, default=str),
                 json.dumps(method, ensure_ascii=False, default=str), _now()),
            )
            return int(cur.lastrowid)

    @staticmethod
    def _run_dict(row: tuple) -> dict[str, Any]:
        return {"id": row[0], "kind": row[1], "input": json.loads(row[2]),
                "output": json.loads(row[3]), "method": json.loads(row[4]), "created": row[5]}

    def runs(self, kind: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """Newest first."""
        sql = "SELECT id, kind, input, output, method, created FROM runs"
        params: tuple = ()
        if kind is not None:
            sql, params = sql + " WHERE kind = ?", (kind,)
        with self._lock:
            rows = self.conn.execute(sql + " ORDER BY id DESC LIMIT ?", (*params, limit)).fetchall()
        return [self._run_dict(r) for r in rows]

    def run(self, run_id: int) -> dict[str, Any]:
        with self._lock:
            row = self.conn.execute(
                "SELECT id, kind, input, output, method, created FROM runs WHERE id = ?", (run_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"no run {run_id}")
        return self._run_dict(row)
