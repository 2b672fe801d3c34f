"""SQLite persistence (sqlite-utils): collections, documents, passages, judgments, runs.

Installed as `conflictdesk.store` (see pyproject's package-dir mapping)."""

from conflictdesk.store.database import (
    NotFoundError,
    ReadOnlyCache,
    SqliteCache,
    Store,
    content_sha256,
)

__all__ = [
    "NotFoundError",
    "ReadOnlyCache",
    "SqliteCache",
    "Store",
    "content_sha256",
]
