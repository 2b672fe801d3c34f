"""SQLite persistence (sqlite-utils): collections, documents, passages, judgments, runs.

Installed as `conflictdesk.store` (see pyproject's package-dir mapping)."""

import sys


def _import_sqlite_utils_without_pandas() -> None:
    """sqlite-utils imports pandas whenever it is installed (the `scale` extra brings it) only
    to map `pandas.Timestamp` columns, which the store never writes; that import costs every
    command about 70 MB and 150 ms. Import sqlite-utils with pandas hidden, then unhide it, so
    Ray Data and anything else can still import pandas normally."""
    if "pandas" in sys.modules or "sqlite_utils" in sys.modules:
        return
    sys.modules["pandas"] = None  # type: ignore[assignment]  (import pandas -> ImportError)
    try:
        import sqlite_utils  # noqa: F401
    finally:
        del sys.modules["pandas"]


_import_sqlite_utils_without_pandas()

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
