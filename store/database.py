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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

import numpy as np
from sqlite_utils import Database

from conflictdesk.errors import ConflictDeskError, UsageError
from conflictdesk.ingest.chunking import Chunk
from conflictdesk.ingest.readers import SourceDocument
from conflictdesk.store.identity import check_identity, explain, read_only_is_an_error, stamp
from conflictdesk.store.migrations import migrations
from conflictdesk.store.search import DenseMatrix, SearchIndex, TermCounter, vector_blob

BUSY_TIMEOUT_S = 10.0
MMAP_BYTES = 1 << 30  # read pages (vectors above all) straight from the OS cache


class NotFoundError(ConflictDeskError):
    """A named collection, document or run does not exist (exit status 1)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def content_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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


class ReadOnlyCache:
    """`JudgmentCache` lookups on a read-only connection (the cache reader of a Ray batch,
    beside a driver that writes); `put` is refused."""

    def __init__(self, path: str | Path) -> None:
        uri = Path(path).resolve().as_uri() + "?mode=ro"
        self.conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)

    def get(self, stage: str, model_id: str, input_hash: str) -> Any | None:
        row = self.conn.execute(
            "SELECT output FROM model_calls WHERE stage = ? AND model_id = ? AND input_hash = ?",
            (stage, model_id, input_hash),
        ).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, stage: str, model_id: str, input_hash: str, output: Any, ms: float) -> None:
        raise PermissionError("a read-only judgment cache is not written")


class Store(SearchIndex):
    """Open with `Store.open(path)` (or ":memory:"); migrations run on open."""

    def __init__(self, db: Database, path: str) -> None:
        self.db = db
        self.conn: sqlite3.Connection = db.conn
        self.path = path
        self._lock = threading.RLock()
        self._dense: dict[tuple[int, str], DenseMatrix] = {}
        self._sizes: dict[int, tuple[int, int]] = {}  # collection → (generation, passages)
        self._terms = TermCounter(self.conn)
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
            check_identity(conn, target)  # reads only: a foreign file is refused untouched
            conn.execute("PRAGMA foreign_keys = ON")
            if target != ":memory:":
                conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
                db.enable_wal()
                conn.execute("PRAGMA synchronous = NORMAL")
            migrations.apply(db)
            stamp(conn)
        except sqlite3.DatabaseError as exc:
            raise ConflictDeskError(f"cannot open database {target}: {explain(exc)}") from exc
        return cls(db, target)

    def close(self) -> None:
        with self._lock:
            self._terms.close()
            self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT, ROLLBACK on any error)."""
        with self._lock, read_only_is_an_error(self.path):
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
            "SELECT id, generation FROM collections WHERE name = ?", (name.strip(),)
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
            raise NotFoundError(f"no collection named {name!r} (see `conflictdesk collections`)")
        return row[0]

    def ensure_collection(self, name: str) -> int:
        name = name.strip()
        if not name:
            raise UsageError("a collection name must not be empty")
        with self._write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO collections (name, created) VALUES (?, ?)", (name, _now())
            )
            return int(
                conn.execute("SELECT id FROM collections WHERE name = ?", (name,)).fetchone()[0]
            )

    def collections(self) -> list[dict[str, Any]]:
        """Every collection with its counts: name, documents, passages, created."""
        with self._lock:
            rows = self.conn.execute(
                """SELECT c.name, c.created,
                          (SELECT count(*) FROM documents d WHERE d.collection_id = c.id),
                          (SELECT count(*) FROM passages p WHERE p.collection_id = c.id)
                   FROM collections c ORDER BY c.name"""
            ).fetchall()
        return [{"name": r[0], "documents": r[2], "passages": r[3], "created": r[1]} for r in rows]

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
                (
                    collection_id,
                    doc.title,
                    doc.source,
                    doc.url,
                    doc.date,
                    sha,
                    json.dumps(doc.metadata, ensure_ascii=False, default=str),
                    _now(),
                ),
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
                        (pid, model_id, vectors.shape[1], vector_blob(vectors[order])),
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
        keys = (
            "id",
            "collection",
            "title",
            "source",
            "url",
            "date",
            "sha256",
            "metadata",
            "added",
            "passages",
        )
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
        return Passage(
            id=row[0],
            text=row[1],
            document_id=row[2],
            title=row[3],
            date=row[4],
            source=row[5],
            url=row[6],
            relevance=relevance,
            metadata=meta,
        )

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

    # ---- runs --------------------------------------------------------------------------

    def save_run(self, kind: str, input: Any, output: Any, method: Any) -> int:
        with self._write() as conn:
            cur = conn.execute(
                "INSERT INTO runs (kind, input, output, method, created) VALUES (?, ?, ?, ?, ?)",
                (
                    kind,
                    json.dumps(input, ensure_ascii=False, default=str),
                    json.dumps(output, ensure_ascii=False, default=str),
                    json.dumps(method, ensure_ascii=False, default=str),
                    _now(),
                ),
            )
            return int(cur.lastrowid)

    @staticmethod
    def _run_dict(row: tuple) -> dict[str, Any]:
        return {
            "id": row[0],
            "kind": row[1],
            "input": json.loads(row[2]),
            "output": json.loads(row[3]),
            "method": json.loads(row[4]),
            "created": row[5],
        }

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
