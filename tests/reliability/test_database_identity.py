"""Database identity: a SQLite file that is not ours is refused before anything is written;
ours carry an application_id and a schema version; a read-only database is a clear error."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest

from conflictdesk.errors import ConflictDeskError
from conflictdesk.store import Store
from conflictdesk.store.identity import APPLICATION_ID, SCHEMA_VERSION, ForeignDatabaseError


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def foreign_db(path, app_id: int = 0):
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE documents (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO documents (body) VALUES ('their data')")
    if app_id:
        conn.execute(f"PRAGMA application_id = {app_id}")
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize("app_id", [0, 0x12345678], ids=["no-app-id", "other-app-id"])
def test_a_foreign_sqlite_file_is_left_byte_identical(app_id, cli, tmp_path):
    path = foreign_db(tmp_path / "theirs.db", app_id)
    before = digest(path)
    doc = tmp_path / "a.txt"
    doc.write_text("The ferry started in 1911.")
    for argv in (["ingest", str(doc), "-c", "x", "--no-embed"], ["collections"],
                 ["search", "ferry", "-c", "x", "--lexical-only"]):  # fmt: skip
        result = cli(*argv, "--db", str(path))
        assert result.code == 1, (argv, result.err)
        assert "another application" in result.err and "Traceback" not in result.err
    assert digest(path) == before
    assert not (tmp_path / "theirs.db-wal").exists()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert tables == {"documents"}


def test_a_file_that_is_not_sqlite_is_refused_untouched(cli, tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("just some text, not a database\n" * 10)
    before = digest(path)
    result = cli("collections", "--db", str(path))
    assert result.code == 1 and "not a SQLite database" in result.err
    assert digest(path) == before


def test_a_database_from_a_newer_release_is_refused(tmp_path):
    path = tmp_path / "new.db"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = digest(path)
    with pytest.raises(ForeignDatabaseError, match="newer conflictdesk"):
        Store.open(path)
    assert digest(path) == before


def test_new_databases_are_stamped(tmp_path):
    with Store.open(tmp_path / "cd.db") as store:
        assert store.conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert SCHEMA_VERSION >= 1


def test_a_database_made_before_the_stamp_opens_and_is_stamped(tmp_path):
    path = tmp_path / "old.db"
    with Store.open(path) as store:
        store.ensure_collection("kept")
        store.conn.execute("PRAGMA application_id = 0")  # as earlier releases left it
        store.conn.execute("PRAGMA user_version = 0")
    with Store.open(path) as store:
        assert [c["name"] for c in store.collections()] == ["kept"]
        assert store.conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_read_only_database_is_a_clear_error(cli, tmp_path, monkeypatch):
    path = tmp_path / "ro.db"
    with Store.open(path) as store:
        store.ensure_collection("x")
    real_connect = sqlite3.connect

    def read_only(target, *args, **kwargs):  # root ignores chmod: open it read-only instead
        if str(target) != str(path):
            return real_connect(target, *args, **kwargs)
        return real_connect(f"file:{target}?mode=ro", *args, uri=True, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", read_only)
    doc = tmp_path / "a.txt"
    doc.write_text("The ferry started in 1911.")
    result = cli("ingest", str(doc), "-c", "x", "--no-embed", "--db", str(path))
    assert result.code == 1
    assert "read-only" in result.err and "Traceback" not in result.err
    with pytest.raises(ConflictDeskError, match="read-only"), Store.open(path) as store:
        store.ensure_collection("y")


def test_collection_names_with_padding_are_found_as_stored(cli, tmp_path):
    db = str(tmp_path / "cd.db")
    doc = tmp_path / "a.txt"
    doc.write_text("The harbour ferry started in 1911.")
    assert cli("ingest", str(doc), "-c", "  Harbour ", "--no-embed", "--db", db).code == 0
    for name in ("Harbour", "  Harbour ", "Harbour\t"):
        result = cli("search", "ferry", "-c", name, "--lexical-only", "--json", "--db", db)
        assert result.code == 0, (name, result.err)
        assert len(json.loads(result.out)["results"]) == 1
    names = [
        json.loads(line)["name"]
        for line in cli("collections", "--json", "--db", db).out.splitlines()
    ]
    assert names == ["Harbour"]
