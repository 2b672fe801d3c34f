from __future__ import annotations

import sqlite3

from conflictdesk.store import Store

EXPECTED = {
    "collections": {"id", "name", "created", "generation"},
    "documents": {
        "id",
        "collection_id",
        "title",
        "source",
        "url",
        "date",
        "sha256",
        "metadata",
        "added",
    },
    "passages": {"id", "document_id", "collection_id", "ord", "text", "char_start", "char_end"},
    "embeddings": {"passage_id", "model", "dim", "vector"},
    "model_calls": {"id", "stage", "model_id", "input_hash", "output", "ms", "created"},
    "runs": {"id", "kind", "input", "output", "method", "created"},
    "bench_runs": {"id", "key", "corpus", "config", "created", "finished"},
    "bench_responses": {
        "id",
        "run_id",
        "testee",
        "case_id",
        "prompt",
        "response",
        "refused",
        "contradiction",
        "detail",
        "ms",
        "created",
    },
    "bench_checks": {
        "id",
        "run_id",
        "testee",
        "case_id",
        "checker",
        "ok",
        "verdict",
        "tags",
        "metrics",
        "created",
    },
}
MIGRATIONS = ["m001_initial", "m002_bench"]


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def test_blank_database_gets_every_table_and_column(tmp_path):
    path = tmp_path / "sub" / "c.db"
    with Store.open(path) as store:
        assert store.applied_migrations() == MIGRATIONS
    conn = sqlite3.connect(path)
    for table, cols in EXPECTED.items():
        assert columns(conn, table) == cols, table
    fts = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'passages_fts'").fetchone()[0]
    assert "fts5" in fts
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    uniques = [r[1] for r in conn.execute("PRAGMA index_list(model_calls)") if r[2]]
    cols = [
        c for name in uniques for c in (r[2] for r in conn.execute(f"PRAGMA index_info({name})"))
    ]
    assert cols == ["stage", "model_id", "input_hash"]


def test_reopening_applies_nothing_twice(tmp_path):
    path = tmp_path / "c.db"
    Store.open(path).close()
    with Store.open(path) as store:
        assert store.applied_migrations() == MIGRATIONS
        assert store.conn.execute("SELECT count(*) FROM _sqlite_migrations").fetchone()[0] == len(
            MIGRATIONS
        )


def test_busy_timeout_set(tmp_path):
    with Store.open(tmp_path / "c.db") as store:
        assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000


def test_bench_rows_are_unique_per_run_testee_and_case(tmp_path):
    with Store.open(tmp_path / "c.db") as store:
        conn = store.conn
        conn.execute(
            "INSERT INTO bench_runs (key, corpus, config, created) VALUES ('k','c','{}','t')"
        )
        row = ("INSERT INTO bench_responses (run_id, testee, case_id, prompt, response, ms, created)"
               " VALUES (1, 'a', 'x', 'p', 'r', 1.0, 't')")  # fmt: skip
        conn.execute(row)
        try:
            conn.execute(row)
        except sqlite3.IntegrityError:
            return
        raise AssertionError("a second response for the same case was accepted")
