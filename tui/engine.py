"""`DeskEngine`: the screens' `Desk` protocol over the application layer's `conflictdesk.app.Desk`.

Every use case runs in the app Desk (the same code the CLI calls); this adapter only turns its
results into the typed views the screens read (`conflictdesk.app.views`). Model back-ends load on first use (in
a worker thread), never at start. Runs are stored by the app Desk, so History reopens runs
made from the CLI or the TUI alike."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conflictdesk.app import (
    AskRequest,
    AskView,
    BackendLoader,
    CollectionInfo,
    Desk,
    DocumentInfo,
    IngestSummary,
    ModelsReport,
    OpenedRun,
    RunSummary,
    ScoreView,
    ScoringOptions,
    Settings,
    count_files,
    load_settings,
)
from conflictdesk.app.bench import BenchStatus, Score, bench_scores, bench_statuses
from conflictdesk.stages import ANSWER, EMBED, RETRIEVE, SHOWN_AS
from conflictdesk.tui.desk import EventFn, ProgressFn
from conflictdesk.types import Document, Passage


class DeskEngine:
    """`desk` is the app Desk; `k` and `strategy` are the ask options the TUI was opened with."""

    def __init__(self, desk: Desk, *, k: int = 20, strategy: str | None = None) -> None:
        self.desk, self.k, self.strategy = desk, k, strategy
        self._llm: bool | None = None

    @classmethod
    def open(cls, settings: Settings | None = None, *, load_backends: BackendLoader | None = None,
             **kwargs: Any) -> DeskEngine:  # fmt: skip
        return cls(Desk(settings or load_settings(), load_backends=load_backends), **kwargs)

    def close(self) -> None:
        self.desk.close()

    # -- collections -------------------------------------------------------------------------

    def collections(self) -> list[CollectionInfo]:
        return self.desk.collections()

    def documents(self, collection: str) -> list[DocumentInfo]:
        return self.desk.documents(collection)

    def passages(self, document_id: int) -> list[Passage]:
        return self.desk.document_passages(document_id)

    def ingest(self, paths: Sequence[str], collection: str, on_progress: ProgressFn,
               cancel: threading.Event) -> IngestSummary:  # fmt: skip
        """One file per transaction, so a cancel keeps every file already imported."""
        files = [Path(p) for p in paths]
        total, done, errors = count_files(files), 0, {}

        def on_event(kind: str, path: str, detail: str) -> None:
            nonlocal done
            if kind == "error":
                errors.setdefault(path, []).append(detail)
                return
            done += 1
            on_progress(done, total, path, "; ".join(errors.get(path, [])) or None)

        report = self.desk.ingest(files, collection, on_event=on_event, cancel=cancel)
        return IngestSummary(collection, report.documents_added, report.documents_skipped,
                             len({f["path"] for f in report.failures}), report.passages_added,
                             report.cancelled)  # fmt: skip

    # -- ask ---------------------------------------------------------------------------------

    def ask(self, query: str, collection: str, on_event: EventFn,
            cancel: threading.Event) -> tuple[int | None, AskView]:  # fmt: skip
        """`on_event(shown stage, view so far)` after each stage the screens show."""
        request = AskRequest(query, collection=collection, k=self.k, strategy=self.strategy)
        view = AskView.start(query, collection)

        def forward(event: str, value: Any) -> None:
            nonlocal view
            shown = event_stage(event)
            if shown is not None:
                view = view.after(event, value)
                on_event(shown, view)

        outcome = self.desk.ask(request, on_event=forward, cancel=cancel)
        # Read back from what was stored, as History reopens it: one path for both.
        return outcome.run_id, AskView.from_run(request.to_json(), outcome.output_json())

    # -- score and regenerate ----------------------------------------------------------------

    def score(self, response: str, documents: Sequence[Document],
              cancel: threading.Event) -> tuple[int | None, ScoreView]:  # fmt: skip
        """Cancel takes effect when the scoring returns: a cancelled score is not stored."""
        run_input = {"response": response, "documents": [d.to_json() for d in documents]}
        stored = self.desk.score(response, documents, ScoringOptions(), run_input=run_input,
                                 cancel=cancel)  # fmt: skip
        return stored.run_id, ScoreView.from_run(run_input, stored.output)

    def can_regenerate(self) -> bool:
        if self._llm is None:
            self._llm = self.desk.models_report().llm_ready
        return self._llm

    def regenerate(self, question: str, response: str, documents: Sequence[Document],
                   cancel: threading.Event) -> tuple[int | None, ScoreView]:  # fmt: skip
        run_input = {"question": question, "response": response,
                     "documents": [d.to_json() for d in documents]}  # fmt: skip
        stored = self.desk.regenerate(question, response, documents, ScoringOptions(),
                                      run_input=run_input, cancel=cancel)  # fmt: skip
        return stored.run_id, ScoreView.from_regeneration(run_input, stored.output)

    # -- history -----------------------------------------------------------------------------

    def history(self, limit: int = 100) -> list[RunSummary]:
        return self.desk.history(limit)

    def run(self, run_id: int) -> OpenedRun:
        run = self.desk.run(run_id)
        return OpenedRun.of(run.summary(), run.kind, run.input, run.output)

    # -- models ------------------------------------------------------------------------------

    def models(self, verify: bool = False) -> ModelsReport:
        report = self.desk.models_report(verify=verify)
        self._llm = report.llm_ready
        return report

    # -- bench -------------------------------------------------------------------------------

    def bench_runs(self) -> list[BenchStatus]:
        return bench_statuses(self.desk)

    def bench_scores(self, run_id: int) -> list[Score]:
        return bench_scores(self.desk, run_id)


def event_stage(event: str) -> str | None:
    """The stage the screens show for a `Desk.ask` event; None for events they do not show."""
    if event in (RETRIEVE, EMBED):
        return RETRIEVE
    if event == ANSWER:
        return ANSWER
    return SHOWN_AS[event][0] if event in SHOWN_AS else None
