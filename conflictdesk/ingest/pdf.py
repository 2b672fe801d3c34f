"""PDF text through pypdf, with the parser's failures and log lines kept to this file.

A PDF is untrusted input: any exception of the parser is this file's InputError, and pypdf's
own warnings (e.g. "EOF marker not found") go into the error or the document's metadata,
never straight to stderr."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from conflictdesk.errors import InputError
from conflictdesk.ingest.dates import normalise_date


class _LogCollector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@contextmanager
def pypdf_log() -> Iterator[list[str]]:
    """Collect pypdf's log lines instead of letting them reach stderr."""
    logger, collector = logging.getLogger("pypdf"), _LogCollector()
    propagate = logger.propagate
    logger.addHandler(collector)
    logger.propagate = False
    try:
        yield collector.lines
    finally:
        logger.removeHandler(collector)
        logger.propagate = propagate


def pdf_to_text(data: bytes) -> tuple[str, str | None, str | None, dict[str, Any]]:
    """(text, title, ISO date, metadata) of a PDF's bytes; raises InputError when unreadable."""
    if not data.startswith(b"%PDF"):
        raise InputError("corrupt PDF: no %PDF header")
    with pypdf_log() as notes:
        try:
            from pypdf import PdfReader

            reader = PdfReader(io.BytesIO(data), strict=False)
            if reader.is_encrypted:
                raise InputError("encrypted PDF")
            pages = [(page.extract_text() or "") for page in reader.pages]
            title, date, meta = _pdf_info(reader.metadata)
        except InputError:
            raise
        except Exception as exc:  # any parser failure (RecursionError included) fails this file
            said = f" (pypdf: {'; '.join(notes)})" if notes else ""
            raise InputError(f"corrupt PDF: {type(exc).__name__}: {exc}{said}") from exc
    meta.update({"pages": len(pages), **({"pdf_warnings": notes} if notes else {})})
    return "\n\n".join(p.strip() for p in pages if p.strip()), title, date, meta


def _pdf_info(info: Any) -> tuple[str | None, str | None, dict[str, Any]]:
    """(title, ISO date, {"author"}) from a PDF's document information, when it has one."""
    if info is None:
        return None, None, {}
    title = (info.title or "").strip() or None
    raw = info.get("/CreationDate") or info.get("/ModDate")
    author = {"author": str(info.author)} if info.author else {}
    return title, normalise_date(str(raw)) if raw else None, author
