"""Reading documents from files (one reader per format) and chunking them into passages.

Pure engine code: paths in, `SourceDocument`s and `Chunk`s out; the store persists them."""

from conflictdesk.ingest.chunking import Chunk, chunk_text
from conflictdesk.ingest.dates import normalise_date
from conflictdesk.ingest.readers import (
    DEFAULT_MAX_BYTES,
    SUPPORTED_SUFFIXES,
    FileResult,
    SourceDocument,
    discover,
    read_file,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "SUPPORTED_SUFFIXES",
    "Chunk",
    "FileResult",
    "SourceDocument",
    "chunk_text",
    "discover",
    "normalise_date",
    "read_file",
]
