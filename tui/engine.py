"""`DeskEngine`: the screens' `Desk` protocol over the application layer's `conflictdesk.app.Desk`.

Every use case runs in the app Desk (the same code the CLI calls); this adapter only turns its
typed results into the screens' view models (views.py). Model back-ends load on first use (in
a worker thread), never at start. Runs are stored by the app Desk, so History reopens runs
made from the CLI or the TUI alike."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conflictdesk.app import (
    AskRequest,
    BackendLoader,
    CollectionInfo,
    Desk,
    DocumentInfo,
    ModelsReport,
    RunSummary,
    ScoringOptions,
    Settings,
    count_files,
    load_settings,
)
from conflictdesk.app.bench import BenchStatus, Score, bench_scores, bench_statuses
from conflictdesk.stages import ANSWER, EMBED, RETRIEVE
from conflictdesk.tui.desk import EventFn, Json, ProgressFn
from conflictdesk.tui.views import ask_view, passage_json, run_view, score_view, stage_partial
from conflictdesk.types import Document


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

    def passages(self, document_id: int) -> list[Json]:
        return [passage_json(p) for p in self.desk.document_passages(document_id)]

    def ingest(self, paths: Sequence[str], collection: str, on_progress: ProgressFn,
               cancel: threading.Event) -> Json:  # fmt: skip
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
        return {"added": report.documents_added, "skipped": report.documents_skipped,
                "failed": len({f["path"] for f in report.failures}),
                "passages": report.passages_added, "cancelled": report.cancelled}  # fmt: skip

    # -- ask ---------------------------------------------------------------------------------

    def ask(self, query: str, collection: str, on_event: EventFn,
            cancel: threading.Event) -> tuple[int | None, Json]:  # fmt: skip
        request = AskRequest(query, collection=collection, k=self.k, strategy=self.strategy)

        def forward(stage: str, value: Any) -> None:
            if stage in (RETRIEVE, EMBED):
                passages = value.passages if stage == RETRIEVE else value[0]
                on_event(RETRIEVE, {"passages": [passage_json(p) for p in passages]})
            elif stage == ANSWER:
                on_event(ANSWER, {"answer": value.to_json()})
            elif (mapped := stage_partial(stage, value)) is not None:
                on_event(*mapped)

        outcome = self.desk.ask(request, on_event=forward, cancel=cancel)
        return outcome.run_id, ask_view(request.to_json(), outcome.output_json())

    # -- score and regenerate ----------------------------------------------------------------

    def score(self, response: str, documents: Sequence[Json],
              cancel: threading.Event) -> tuple[int | None, Json]:  # fmt: skip
        """Cancel takes effect when the scoring returns: a cancelled score is not stored."""
        run_input = {"response": response, "documents": list(documents)}
        stored = self.desk.score(response, _documents(documents), ScoringOptions(),
                                 run_input=run_input, cancel=cancel)  # fmt: skip
        return stored.run_id, score_view(run_input, stored.output)

    def can_regenerate(self) -> bool:
        if self._llm is None:
            self._llm = self.desk.models_report().llm_ready
        return self._llm

    def regenerate(self, question: str, response: str, documents: Sequence[Json],
                   cancel: threading.Event) -> tuple[int | None, Json]:  # fmt: skip
        run_input = {"question": question, "response": response, "documents": list(documents)}
        stored = self.desk.regenerate(question, response, _documents(documents),
                                      ScoringOptions(), run_input=run_input, cancel=cancel)  # fmt: skip
        return stored.run_id, run_view("regenerate", run_input, stored.output)

    # -- history -----------------------------------------------------------------------------

    def history(self, limit: int = 100) -> list[RunSummary]:
        return self.desk.history(limit)

    def run(self, run_id: int) -> Json:
        run = self.desk.run(run_id)
        view = run_view(run.kind, run.input, run.output)
        return {**run.summary().to_json(), "result": view}

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


def _documents(documents: Sequence[Json]) -> list[Document]:
    return [Document.from_json(d) for d in documents]
