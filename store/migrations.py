"""Named schema migrations, applied in order when the store opens.

Never edit a migration that has shipped: add the next `mNNN_...` function instead.
sqlite-utils records each applied name in `_sqlite_migrations`."""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

migrations = Migrations("conflictdesk")


@migrations()
def m001_initial(db: Database) -> None:
    for statement in _M001:
        db.execute(statement)


# One statement per item: sqlite3's executescript() would commit the migration's transaction.
_M001 = (
    """
    CREATE TABLE collections (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created TEXT NOT NULL,
        generation INTEGER NOT NULL DEFAULT 0   -- bumped whenever passages or vectors change
    )
    """,
    """
    CREATE TABLE documents (
        id INTEGER PRIMARY KEY,
        collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
        title TEXT,
        source TEXT,            -- file path, or the record's `source`
        url TEXT,
        date TEXT,              -- ISO 8601 (YYYY-MM-DD, YYYY-MM or YYYY) when known
        sha256 TEXT NOT NULL,   -- of the extracted text
        metadata TEXT NOT NULL DEFAULT '{}',
        added TEXT NOT NULL,
        UNIQUE (collection_id, sha256)
    )
    """,
    """
    CREATE TABLE passages (
        id INTEGER PRIMARY KEY,
        document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        text TEXT NOT NULL,
        char_start INTEGER NOT NULL,
        char_end INTEGER NOT NULL,
        UNIQUE (document_id, ord)
    )
    """,
    """
    CREATE INDEX passages_collection ON passages(collection_id, id)
    """,
    """
    CREATE VIRTUAL TABLE passages_fts USING fts5(
        text, content='passages', content_rowid='id', tokenize='porter unicode61'
    )
    """,
    """
    CREATE TRIGGER passages_ai AFTER INSERT ON passages BEGIN
        INSERT INTO passages_fts(rowid, text) VALUES (new.id, new.text);
    END;
    """,
    """
    CREATE TRIGGER passages_ad AFTER DELETE ON passages BEGIN
        INSERT INTO passages_fts(passages_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END;
    """,
    """
    CREATE TRIGGER passages_au AFTER UPDATE ON passages BEGIN
        INSERT INTO passages_fts(passages_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO passages_fts(rowid, text) VALUES (new.id, new.text);
    END;
    """,
    """
    CREATE TABLE embeddings (
        passage_id INTEGER NOT NULL REFERENCES passages(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        dim INTEGER NOT NULL,
        vector BLOB NOT NULL,   -- float32, little-endian, L2-normalised
        PRIMARY KEY (passage_id, model)
    )
    """,
    """
    CREATE INDEX embeddings_model ON embeddings(model, passage_id)
    """,
    """
    CREATE TABLE model_calls (
        id INTEGER PRIMARY KEY,
        stage TEXT NOT NULL,
        model_id TEXT NOT NULL,
        input_hash TEXT NOT NULL,
        output TEXT NOT NULL,   -- JSON
        ms REAL NOT NULL,
        created TEXT NOT NULL,
        UNIQUE (stage, model_id, input_hash)
    )
    """,
    """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        input TEXT NOT NULL,    -- JSON
        output TEXT NOT NULL,   -- JSON
        method TEXT NOT NULL,   -- JSON
        created TEXT NOT NULL
    )
    """,
    """
    CREATE INDEX runs_kind ON runs(kind, id)
    """,
)


@migrations()
def m002_bench(db: Database) -> None:
    for statement in _M002:
        db.execute(statement)


# Ragability runs: one row per run key, every testee response and every check.
_M002 = (
    """
    CREATE TABLE bench_runs (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,   -- digest of corpus, cases, testees and checker
        corpus TEXT NOT NULL,
        config TEXT NOT NULL,       -- JSON
        created TEXT NOT NULL,
        finished TEXT               -- NULL while the run is incomplete
    )
    """,
    """
    CREATE TABLE bench_responses (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES bench_runs(id) ON DELETE CASCADE,
        testee TEXT NOT NULL,
        case_id TEXT NOT NULL,
        prompt TEXT NOT NULL,
        response TEXT NOT NULL,
        refused INTEGER,            -- stated by the testee itself, else NULL
        contradiction INTEGER,
        detail TEXT NOT NULL DEFAULT '{}',
        ms REAL NOT NULL,
        created TEXT NOT NULL,
        UNIQUE (run_id, testee, case_id)
    )
    """,
    """
    CREATE TABLE bench_checks (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES bench_runs(id) ON DELETE CASCADE,
        testee TEXT NOT NULL,
        case_id TEXT NOT NULL,
        checker TEXT NOT NULL,
        ok INTEGER NOT NULL,
        verdict TEXT NOT NULL,      -- JSON of the Check
        tags TEXT NOT NULL,         -- JSON list: the case's tags
        metrics TEXT NOT NULL,      -- JSON list: the metrics the case counts in
        created TEXT NOT NULL,
        UNIQUE (run_id, testee, case_id, checker)
    )
    """,
)
