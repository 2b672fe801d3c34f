"""SQLite persistence (sqlite-utils): collections, documents, passages, judgments, runs.

Installed as `conflictdesk.store` (see pyproject's package-dir mapping)."""

from conflictdesk.store.database import NotFoundError, SqliteCache, Store, content_sha256
from conflictdesk.store.ingest import IngestReport, ingest_paths

__all__ = [
    "IngestReport",
    "NotFoundError",
    "SqliteCache",
    "Store",
    "content_sha256",
    "ingest_paths",
]
