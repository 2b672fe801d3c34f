"""SQLite persistence (sqlite-utils): collections, documents, passages, judgments, runs.

Installed as `conflictdesk.store` (see pyproject's package-dir mapping)."""
