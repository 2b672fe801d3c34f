"""Ingest files into a collection: discover → read → chunk → embed (batched) → store.

An application-layer service: the embedder is called here, the store only persists.

Each document is committed in its own transaction together with its passages and vectors,
so a killed ingest keeps every finished document and a re-run skips them (dedup by the
sha256 of the document's text). Documents are embedded in batches of about 64 passages
across files, then written one transaction per document; while a batch is written (and the
next one read and cut), the embedder already works on the one after it."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.backends.base import Embedder
from conflictdesk.errors import InputError
from conflictdesk.ingest.chunking import Chunk, iter_chunks
from conflictdesk.ingest.readers import DEFAULT_MAX_BYTES, SourceDocument, discover, read_file
from conflictdesk.retrieval.hybrid import EMBED_BATCH
from conflictdesk.store import Store, content_sha256

# on_event(kind, path, detail): kind is "file" (one file done), "error" (a problem)
EventFn = Callable[[str, str, str], None]


@dataclass
class IngestReport:
    collection: str
    files: int = 0
    documents_added: int = 0
    documents_skipped: int = 0  # already in the collection (same text)
    passages_added: int = 0
    embedded_with: str | None = None
    failures: list[dict[str, str]] = field(default_factory=list)  # {"path", "reason"}
    cancelled: bool = False  # stopped between files by the caller

    @property
    def ok(self) -> bool:
        return not self.failures

    def add(self, other: IngestReport) -> None:
        """Count another report's files into this one (ingesting file by file)."""
        self.files += other.files
        self.documents_added += other.documents_added
        self.documents_skipped += other.documents_skipped
        self.passages_added += other.passages_added
        self.failures.extend(other.failures)

    def to_json(self) -> dict[str, Any]:
        return {
            "collection": self.collection,
            "files": self.files,
            "documents_added": self.documents_added,
            "documents_skipped": self.documents_skipped,
            "passages_added": self.passages_added,
            "embedded_with": self.embedded_with,
            "failed": len(self.failures),
            "failures": self.failures,
        }


EmbedStream = Callable[[Iterable[list[str]]], Iterator[np.ndarray]]


def ingest_paths(
    store: Store,
    paths: Iterable[Path],
    collection: str,
    embedder: Embedder | None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_words: int = 200,
    overlap: int = 40,
    on_event: EventFn | None = None,
    files: list[tuple[Path, str | None]] | None = None,
    embed_stream: EmbedStream | None = None,
    batch_passages: int = EMBED_BATCH,
) -> IngestReport:
    """Ingest `paths` (files or folders) into `collection`, creating it if needed.

    `embedder=None` stores no vectors (`ingest --no-embed`); search embeds them later.
    `files` may pass an already discovered list (the CLI does, to size its progress bar).
    `embed_stream` embeds the batches' texts ahead, in order (a Ray pool does, `--ray`), with
    the same batches as `embedder.embed`, so the stored vectors are the same.
    Passages are embedded `batch_passages` at a time (the embedder sorts each batch by
    length), and a document's passages are cut segment by segment (`iter_chunks`), so
    memory does not grow with the size of a folder."""
    emit = on_event or (lambda kind, path, detail: None)
    cid = store.ensure_collection(collection)
    report = IngestReport(collection, embedded_with=embedder.model_id if embedder else None)
    listed = files if files is not None else discover(paths)
    limits = (max_bytes, max_words, overlap, batch_passages)
    batches = _batches(store, cid, listed, report, emit, limits)
    model = embedder.model_id if embedder else None
    if embedder is None:
        for batch in batches:
            _store_batch(store, cid, batch, None, model, report)
        return report
    planned: deque[Batch] = deque()

    def texts(batch: Batch) -> list[str]:
        planned.append(batch)
        return [c.text for _, chunks in batch for c in chunks]

    if embed_stream is None:
        for batch, vectors in _embedded_ahead(embedder, batches):
            _store_batch(store, cid, batch, vectors, model, report)
    else:
        for vectors in embed_stream(texts(batch) for batch in batches):
            _store_batch(store, cid, planned.popleft(), vectors, model, report)
    if report.passages_added:
        store.dense_matrix(cid, embedder.model_id)  # writes the vector file for the next query
    return report


Batch = list[tuple[SourceDocument, list[Chunk]]]


def _embedded_ahead(embedder: Embedder, batches: Iterable[Batch]) -> Iterator[tuple[Batch, Any]]:
    """Each batch with its vectors, embedded one batch ahead on a worker thread; `batches`
    is still drawn here, so files are read and the store queried on the caller's thread."""
    with ThreadPoolExecutor(1, thread_name_prefix="embed") as pool:
        ahead: tuple[Batch, Future[np.ndarray]] | None = None
        for batch in batches:
            job = pool.submit(embedder.embed, [c.text for _, chunks in batch for c in chunks])
            if ahead is not None:
                yield ahead[0], ahead[1].result()
            ahead = (batch, job)
        if ahead is not None:
            yield ahead[0], ahead[1].result()


def _batches(
    store: Store,
    cid: int,
    files: Iterable[tuple[Path, str | None]],
    report: IngestReport,
    emit: EventFn,
    limits: tuple[int, int, int, int],
) -> Iterator[Batch]:
    """New documents, chunked, in batches of about `batch_passages` passages across files."""
    max_bytes, max_words, overlap, batch_passages = limits
    pending: Batch = []
    pending_passages = 0
    seen: set[str] = set()

    def fail(path: str, reason: str) -> None:
        report.failures.append({"path": path, "reason": reason})
        emit("error", path, reason)

    for path, problem in files:
        report.files += 1
        if problem is not None:
            fail(str(path), problem)
            emit("file", str(path), problem)
            continue
        try:
            result = read_file(path, max_bytes=max_bytes)
        except InputError as exc:
            fail(str(path), str(exc))
            emit("file", str(path), "failed")
            continue
        for reason in result.errors:
            fail(str(path), reason)
        for doc in result.documents:
            sha = content_sha256(doc.text)
            if sha in seen or store.has_document(cid, sha):
                report.documents_skipped += 1
                continue
            seen.add(sha)
            doc = replace(doc, metadata={**doc.metadata, "file": str(path)})
            chunks = list(iter_chunks(doc.text, max_words=max_words, overlap=overlap))
            pending.append((doc, chunks))
            pending_passages += len(chunks)
            if pending_passages >= batch_passages:
                yield pending
                pending, pending_passages = [], 0
        emit("file", str(path), f"{len(result.documents)} document(s)")
    if pending:
        yield pending


def _store_batch(
    store: Store, cid: int, batch: Batch, vectors: Any, model: str | None, report: IngestReport
) -> None:
    """One transaction per document of the batch, with its rows of `vectors`."""
    offset = 0
    for doc, chunks in batch:
        part = None if vectors is None else vectors[offset : offset + len(chunks)]
        offset += len(chunks)
        if store.add_document(cid, doc, chunks, part, model) is None:
            report.documents_skipped += 1
        else:
            report.documents_added += 1
            report.passages_added += len(chunks)
