"""Which SQLite files are conflictdesk's: `PRAGMA application_id` and a schema version.

`check_identity` only reads, so a file that is not ours (another application's, or one made
by a newer conflictdesk) is refused before anything is written to it: no WAL switch, no
migrations table. Databases made before the stamp existed are recognised by their tables and
stamped once they have been migrated."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from sqlite_utils import Database

from conflictdesk.errors import ConflictDeskError
from conflictdesk.store.migrations import migrations

APPLICATION_ID = int.from_bytes(b"CfDk", "big")  # 0x4366446B
# One schema version per migration: a database stamped higher was made by a newer release.
SCHEMA_VERSION = len(migrations.pending(Database(memory=True)))
_CORE_TABLES = {"collections", "documents", "passages", "_sqlite_migrations"}


class ForeignDatabaseError(ConflictDeskError):
    """The file is not a conflictdesk database, or is newer than this release understands."""


def check_identity(conn: sqlite3.Connection, path: str) -> None:
    """Raise ForeignDatabaseError unless `conn` is empty or a conflictdesk database that this
    release can read. Reads only."""
    try:
        app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as exc:
        raise ForeignDatabaseError(f"{path} is not a SQLite database ({exc})") from exc
    if app_id == APPLICATION_ID:
        if version > SCHEMA_VERSION:
            raise ForeignDatabaseError(
                f"{path} was made by a newer conflictdesk (schema {version}; this release "
                f"knows up to {SCHEMA_VERSION}): upgrade conflictdesk to open it"
            )
        return
    if app_id != 0:
        raise ForeignDatabaseError(
            f"{path} belongs to another application (application_id {app_id:#x}); "
            "conflictdesk leaves it untouched: pass another --db"
        )
    if tables and not _is_unstamped_conflictdesk(conn, tables):
        raise ForeignDatabaseError(
            f"{path} is a SQLite database of another application (tables: "
            f"{', '.join(sorted(tables)[:5])}); conflictdesk leaves it untouched: pass another --db"
        )


def _is_unstamped_conflictdesk(conn: sqlite3.Connection, tables: set[str]) -> bool:
    """A database made before the stamp: our tables and our migration set."""
    if not _CORE_TABLES <= tables:
        return False
    row = conn.execute(
        "SELECT count(*) FROM _sqlite_migrations WHERE migration_set = ?", (migrations.name,)
    ).fetchone()
    return bool(row and row[0])


@contextmanager
def read_only_is_an_error(path: str) -> Iterator[None]:
    """A write refused because the database is read-only becomes a one-line error."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        if "readonly" not in str(exc):
            raise
        raise ConflictDeskError(f"cannot write to database {path}: {explain(exc)}") from exc


def explain(exc: sqlite3.Error) -> str:
    """A SQLite error as a user can act on it."""
    text = str(exc)
    if "readonly" in text or "read-only" in text:
        return f"{text}: the database (or its folder) is read-only; pass a writable --db"
    return text


def stamp(conn: sqlite3.Connection) -> None:
    """Mark the (migrated) database as conflictdesk's, at this release's schema version."""
    if int(conn.execute("PRAGMA application_id").fetchone()[0]) != APPLICATION_ID:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    if int(conn.execute("PRAGMA user_version").fetchone()[0]) != SCHEMA_VERSION:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
