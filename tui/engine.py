"""`DeskEngine`: the Desk the app runs on in production, over the real store and engine.

It is the one place where the TUI touches engine modules, so the screens keep working while
those modules change. Model back-ends load on first use (in a worker thread), never at start.
Runs are stored in the same shape as the `ask`, `score` and `regenerate` commands store them,
so History reopens runs made from either place."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from conflictdesk.tui.desk import Cancelled, EventFn, Json, ProgressFn
from conflictdesk.tui.views import (
    ask_view,
    passage_json,
    run_summary,
    run_view,
    score_view,
    stage_partial,
)

ALL_ROLES = ("embedder", "nli", "pair", "llm")
SCORE_ROLES = ("nli", "llm")
BackendLoader = Callable[[tuple[str, ...]], Any]


class DeskEngine:
    """`store` is a `conflictdesk.store.Store`; `config` a `conflictdesk.config.Config`;
    `load_backends(roles)` builds a `Backends` (tests pass fakes)."""

    def __init__(self, store: Any, config: Any, *, load_backends: BackendLoader | None = None,
                 k: int = 20, strategy: str | None = None) -> None:
        self.store = store
        self.config = config
        self.k = k
        self.strategy = strategy
        self._load = load_backends or self._load_real
        self._backends: dict[tuple[str, ...], Any] = {}
        self._lock = threading.Lock()
        self._llm: bool | None = None

    @classmethod
    def open(cls, db_path: str | Path, config: Any = None, **kwargs: Any) -> DeskEngine:
        from conflictdesk.config import load_config
        from conflictdesk.store import Store

        return cls(Store.open(db_path), config or load_config(), **kwargs)

    def _load_real(self, roles: tuple[str, ...]) -> Any:
        from conflictdesk.backends.registry import load_backends

        return load_backends(self.config, roles=roles)

    def backends(self, roles: tuple[str, ...] = ALL_ROLES) -> Any:
        with self._lock:
            if roles not in self._backends:
                self._backends[roles] = self._load(roles)
            return self._backends[roles]

    # -- collections -------------------------------------------------------------------------

    def collections(self) -> list[Json]:
        return self.store.collections()

    def documents(self, collection: str) -> list[Json]:
        return self.store.documents(collection)

    def passages(self, document_id: int) -> list[Json]:
        """The document's passages in order (through the store's public collection listing)."""
        collection = self.store.document(document_id)["collection"]
        return [passage_json(p) for p in self.store.collection_passages(collection)
                if p.document_id == document_id]

    def ingest(self, paths: Sequence[str], collection: str, on_progress: ProgressFn,
               cancel: threading.Event) -> Json:
        """One file per transaction, so a cancel keeps every file already imported."""
        from conflictdesk.ingest.readers import discover
        from conflictdesk.store import ingest_paths

        embedder = self.backends(("embedder",)).embedder
        files = list(discover([Path(p) for p in paths]))
        totals = {"added": 0, "skipped": 0, "failed": 0, "passages": 0, "cancelled": False}
        for done, (path, problem) in enumerate(files, start=1):
            if cancel.is_set():
                totals["cancelled"] = True
                break
            report = ingest_paths(self.store, [], collection, embedder, files=[(path, problem)])
            totals["added"] += report.documents_added
            totals["skipped"] += report.documents_skipped
            totals["passages"] += report.passages_added
            totals["failed"] += bool(report.failures)
            error = "; ".join(f["reason"] for f in report.failures) or None
            on_progress(done, len(files), str(path), error)
        return totals

    # -- ask ---------------------------------------------------------------------------------

    def ask(self, query: str, collection: str, on_event: EventFn,
            cancel: threading.Event) -> tuple[int | None, Json]:
        from conflictdesk.analysis.pipeline import AnalysisCancelled, AnalysisOptions, analyze
        from conflictdesk.errors import InputError
        from conflictdesk.generation.answer import answer
        from conflictdesk.generation.report import batch_record

        backends = self.backends()
        passages = self.store.search(query, collection, self.k, backends.embedder)
        if not passages:
            raise InputError(f"no passage of {collection!r} matches the question")
        _raise_if(cancel)
        on_event("retrieval", {"passages": [passage_json(p) for p in passages]})

        def forward(stage: str, value: Any) -> None:
            mapped = stage_partial(stage, value)
            if mapped is not None:
                on_event(*mapped)

        try:
            analysis = analyze(query, passages, backends, cache=self.store.cache,
                               on_event=forward, options=AnalysisOptions(cancel=cancel))
        except AnalysisCancelled as exc:
            raise Cancelled(str(exc)) from exc
        _raise_if(cancel)
        result = answer(analysis, backends, self.strategy, cache=self.store.cache)
        on_event("answer", {"answer": result.to_json()})
        record = batch_record(None, analysis, result)
        run_input = {"id": None, "query": query, "collection": collection, "k": self.k,
                     "strategy": self.strategy, "gold_type": None}
        output = {"record": record, "analysis": analysis.to_json(), "answer": result.to_json()}
        run_id = self.store.save_run("ask", run_input, output, record["method"])
        return run_id, ask_view(run_input, output)

    # -- score and regenerate ----------------------------------------------------------------

    def score(self, response: str, documents: Sequence[Json],
              cancel: threading.Event) -> tuple[int | None, Json]:
        """Cancel takes effect when the scoring returns: a cancelled score is not stored."""
        from conflictdesk.scoring.pipeline import score_response

        result = score_response(response, list(documents), self.backends(SCORE_ROLES),
                                cache=self.store.cache)
        _raise_if(cancel)
        run_input = {"response": response, "documents": list(documents)}
        output = {"id": None, **result.to_json()}
        run_id = self.store.save_run("score", run_input, output, output.get("method"))
        return run_id, score_view(run_input, output)

    def can_regenerate(self) -> bool:
        if self._llm is None:
            from conflictdesk.backends.registry import capabilities

            self._llm = capabilities(self.config).llm
        return self._llm

    def regenerate(self, question: str, response: str, documents: Sequence[Json],
                   cancel: threading.Event) -> tuple[int | None, Json]:
        from conflictdesk.scoring.regenerate import regenerate

        result = regenerate(question, response, list(documents), self.backends(SCORE_ROLES),
                            cache=self.store.cache)
        _raise_if(cancel)
        run_input = {"question": question, "response": response, "documents": list(documents)}
        output = {"id": None, **result.to_json()}
        run_id = self.store.save_run("regenerate", run_input, output, output.get("method"))
        return run_id, run_view("regenerate", run_input, output)

    # -- history -----------------------------------------------------------------------------

    def history(self, limit: int = 100) -> list[Json]:
        return [run_summary(run) for run in self.store.runs(limit=limit)]

    def run(self, run_id: int) -> Json:
        run = self.store.run(run_id)
        return {**run_summary(run), "result": run_view(run["kind"], run["input"], run["output"])}

    # -- models ------------------------------------------------------------------------------

    def models(self, verify: bool = False) -> Json:
        from conflictdesk.tui.model_report import model_report

        report = model_report(self.config, verify=verify)
        self._llm = bool(report.get("llm_ready"))
        return report


def _raise_if(cancel: threading.Event) -> None:
    if cancel.is_set():
        raise Cancelled("cancelled")
