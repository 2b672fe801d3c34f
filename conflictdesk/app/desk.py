"""The Desk: every use case assembled once, for the CLI, the TUI and the benchmarks.

A Desk is built from a `Settings`; it opens the store and loads model back-ends on first use
(back-ends per set of roles, once). Front ends call these methods and nothing below them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self

from conflictdesk.analysis.pipeline import AnalysisCancelled, AnalysisOptions, analyze
from conflictdesk.app.ingest import IngestReport, ingest_paths
from conflictdesk.app.models_report import add_model, add_server, models_report
from conflictdesk.app.scoring import ScoringOptions, ScoringUseCases
from conflictdesk.app.wire import (
    ASK_TIERS,
    AskOutcome,
    AskRequest,
    Cancelled,
    CollectionInfo,
    DocumentInfo,
    ModelRow,
    ModelsReport,
    RunRecord,
    RunSummary,
)
from conflictdesk.backends.base import Backends
from conflictdesk.config import Settings
from conflictdesk.errors import InputError, UsageError
from conflictdesk.generation.answer import answer
from conflictdesk.generation.report import batch_record
from conflictdesk.ingest.readers import DEFAULT_MAX_BYTES, discover
from conflictdesk.retrieval.hybrid import HybridRetriever, Retrieval
from conflictdesk.stages import ANSWER, RETRIEVE
from conflictdesk.store import Store
from conflictdesk.types import Passage

ALL_ROLES: tuple[str, ...] = ("embedder", "nli", "pair", "llm")
BackendLoader = Callable[[tuple[str, ...]], Backends]
# on_event(stage, value): RETRIEVE → Retrieval, each analysis stage → its result, ANSWER → Answer
AskEvent = Callable[[str, Any], None]
IngestEvent = Callable[[str, str, str], None]  # kind ("file" | "error"), path, detail


class Desk(ScoringUseCases):
    """`load_backends(roles)` builds the back-ends (tests pass fakes); `store` may be given
    (e.g. an in-memory one), else the settings' database opens on first use."""

    def __init__(
        self,
        settings: Settings,
        *,
        load_backends: BackendLoader | None = None,
        store: Store | None = None,
    ) -> None:
        self.settings = settings
        self._load = load_backends or (lambda roles: verified_backends(settings, roles))
        self._store = store
        self._backends: dict[tuple[str, ...], Backends] = {}
        self._retrievers: dict[str, HybridRetriever] = {}
        self._lock = threading.RLock()

    # -- resources ---------------------------------------------------------------------------

    @property
    def store(self) -> Store:
        with self._lock:
            if self._store is None:
                path = self.settings.db_path
                if path is None:
                    raise UsageError("no database path in the settings")
                self._store = Store.open(path)
            return self._store

    def backends(self, roles: Sequence[str] = ALL_ROLES) -> Backends:
        """Back-ends for `roles`, loaded once; a set already loaded for more roles is reused,
        so the embedder that ingests is the one that answers."""
        key = tuple(roles)
        with self._lock:
            for loaded, backends in self._backends.items():
                if set(key) <= set(loaded):
                    return backends
            self._backends[key] = self._load(key)
            return self._backends[key]

    def retriever(self, lexical_only: bool = False) -> HybridRetriever:
        """One retriever per embedder, kept so its embed-missing bookkeeping lasts."""
        key = "lexical" if lexical_only else "hybrid"
        with self._lock:
            if key not in self._retrievers:
                embedder = None if lexical_only else self.backends(("embedder",)).embedder
                self._retrievers[key] = HybridRetriever(self.store, embedder)
            return self._retrievers[key]

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- collections -------------------------------------------------------------------------

    def collections(self) -> list[CollectionInfo]:
        return [CollectionInfo.from_json(row) for row in self.store.collections()]

    def delete_collection(self, name: str) -> None:
        self.store.delete_collection(name)

    def documents(self, collection: str) -> list[DocumentInfo]:
        return [DocumentInfo.from_json(row) for row in self.store.documents(collection)]

    def document_passages(self, document_id: int) -> list[Passage]:
        collection = self.store.document(document_id)["collection"]
        return [p for p in self.store.collection_passages(collection)
                if p.document_id == document_id]  # fmt: skip

    def ingest(
        self,
        paths: Sequence[Path],
        collection: str,
        *,
        embed: bool = True,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_words: int = 200,
        overlap: int = 40,
        on_event: IngestEvent | None = None,
        cancel: threading.Event | None = None,
    ) -> IngestReport:
        """Read, chunk, embed and store files and folders. Without `cancel` passages are
        embedded in batches across files; with it each file is its own unit and a cancel
        between files keeps every file already imported (`report.cancelled`)."""
        embedder = self.backends(("embedder",)).embedder if embed else None
        files = list(discover(list(paths)))
        options = {"max_bytes": max_bytes, "max_words": max_words, "overlap": overlap,
                   "on_event": on_event}  # fmt: skip
        if cancel is None:
            return ingest_paths(self.store, [], collection, embedder, files=files, **options)
        total = IngestReport(collection, embedded_with=embedder.model_id if embedder else None)
        for item in files:
            if cancel.is_set():
                total.cancelled = True
                break
            part = ingest_paths(self.store, [], collection, embedder, files=[item], **options)
            total.add(part)
        return total

    # -- search and ask ----------------------------------------------------------------------

    def search(
        self, query: str, collection: str, k: int = 20, *, lexical_only: bool = False
    ) -> Retrieval:
        """Hybrid BM25 + dense search (reciprocal rank fusion); BM25 alone when asked."""
        return self.retriever(lexical_only).search(query, collection, k)

    def ask(
        self,
        request: AskRequest,
        *,
        on_event: AskEvent | None = None,
        cancel: threading.Event | None = None,
        save_run: bool = True,
    ) -> AskOutcome:
        """Retrieve (or take the inline documents), analyse, answer, store the run.

        Retrieved passages keep their stored vectors and the query its vector, so the
        analysis embeds nothing that is stored. `cancel` is checked between stages. With
        `save_run=False` nothing goes to the history (benchmarks keep their own records);
        the outcome's `run_id` is then 0."""
        emit = on_event or (lambda stage, value: None)
        backends = self.backends(ALL_ROLES)
        cache = self.store.cache if request.use_cache else None
        retrieval = self.passages_for(request)
        _check(cancel, RETRIEVE)
        emit(RETRIEVE, retrieval)
        analysis, result, record = answer_retrieval(request, retrieval, backends, cache,
                                                    emit, cancel)  # fmt: skip
        return self.store_ask(request, analysis, result, record, save_run=save_run)

    def store_ask(
        self,
        request: AskRequest,
        analysis: Any,
        result: Any,
        record: dict,
        *,
        save_run: bool = True,
    ) -> AskOutcome:
        """Store an answered question as a run (unless `save_run` is false); the record gets
        the run id unless echoed."""
        outcome = AskOutcome(request, analysis, result, record, run_id=0)
        if not save_run:
            return outcome
        run_id = self.store.save_run("ask", request.to_json(), outcome.output_json(),
                                     record["method"])  # fmt: skip
        if not request.echo_id:
            record = {**record, "id": run_id}
        return AskOutcome(request, analysis, result, record, run_id)

    def passages_for(self, request: AskRequest) -> Retrieval:
        """The inline documents, or what retrieval finds; InputError when there are none."""
        retrieval = self._passages_for(request)
        if not retrieval.passages:
            raise InputError("no passages to answer from (empty collection or no match)")
        return retrieval

    def _passages_for(self, request: AskRequest) -> Retrieval:
        if request.documents is not None:
            return Retrieval(list(request.documents))
        if not request.collection:
            raise UsageError("a question needs a collection to retrieve from, or documents")
        return self.retriever().search(request.query, request.collection, request.k)

    # -- history and models ------------------------------------------------------------------

    def history(self, limit: int = 100, kind: str | None = None) -> list[RunSummary]:
        return [RunRecord.from_json(r).summary() for r in self.store.runs(kind, limit=limit)]

    def run(self, run_id: int) -> RunRecord:
        return RunRecord.from_json(self.store.run(run_id))

    def runs(self, kind: str | None = None, limit: int = 50) -> list[RunRecord]:
        return [RunRecord.from_json(r) for r in self.store.runs(kind, limit=limit)]

    def models_report(self, *, verify: bool = False) -> ModelsReport:
        return models_report(self.settings, verify=verify)

    def add_model(
        self, path: Path, role: str, *, name: str | None = None, licence: str = "unknown",
        source: str = "added by the user",
    ) -> tuple[ModelRow, bool]:  # fmt: skip
        """Register a model file in the manifest (see `models_report.add_model`)."""
        return add_model(self.settings, path, role, name=name, licence=licence, source=source)

    def add_server(
        self, url: str, *, name: str | None = None, model: str | None = None,
        digest: str | None = None, licence: str = "unknown", source: str = "added by the user",
    ) -> tuple[ModelRow, bool]:  # fmt: skip
        """Register an OpenAI-compatible server as the llm (see `models_report.add_server`)."""
        return add_server(self.settings, url, name=name, model=model, digest=digest,
                          licence=licence, source=source)  # fmt: skip


def answer_retrieval(
    request: AskRequest,
    retrieval: Retrieval,
    backends: Backends,
    cache: Any,
    emit: AskEvent | None = None,
    cancel: threading.Event | None = None,
) -> tuple[Any, Any, dict]:
    """Analyse retrieved passages and answer: (analysis, answer, batch record). The stored
    vectors and the query vector go to the analysis, so nothing stored is embedded again."""
    emit = emit or (lambda stage, value: None)
    if request.tiers not in ASK_TIERS:
        raise UsageError(f"tiers must be one of {', '.join(ASK_TIERS)}, not {request.tiers!r}")
    options = AnalysisOptions(cancel=cancel, ranker=request.ranker, reader=request.reader,
                              verdict=request.verdict,
                              cascade=request.tiers == "cascade")  # fmt: skip
    try:
        analysis = analyze(
            request.query, retrieval.passages, backends, cache=cache, on_event=emit, options=options,
            passage_vectors=retrieval.vectors, query_vector=retrieval.query_vector,
        )  # fmt: skip
    except AnalysisCancelled as exc:
        raise Cancelled(str(exc)) from exc
    _check(cancel, ANSWER)
    result = answer(
        analysis, backends, request.strategy, gold_type=request.gold_type,
        check_parametric=request.check_parametric, cache=cache,
    )  # fmt: skip
    emit(ANSWER, result)
    return analysis, result, batch_record(request.id, analysis, result)


def verified_backends(settings: Settings, roles: Sequence[str]) -> Backends:
    """The real back-ends for `roles`, each model checked against its manifest sha256 (files
    already hashed are remembered in the settings' cache folder); weights load on first use."""
    from conflictdesk.backends.registry import VerificationCache, load_backends

    cache_dir = settings.cache_dir
    verification = VerificationCache(cache_dir / "verified.json") if cache_dir else None
    return load_backends(settings, roles=tuple(roles), verification=verification)


def _check(cancel: threading.Event | None, stage: str) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled(f"cancelled before stage {stage!r}")


__all__ = ["ALL_ROLES", "Cancelled", "Desk", "ScoringOptions"]


def count_files(paths: Sequence[Path]) -> int:
    """How many files an ingest of `paths` will read (to size a progress bar)."""
    return sum(1 for _ in discover(list(paths)))
