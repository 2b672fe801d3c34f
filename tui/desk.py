"""What the screens need from the engine and the store: the `Desk` protocol and its view models.

Every result reaches the screens as plain JSON-shaped dicts, the same form the store keeps, so a
run streamed stage by stage, a finished run and a run reopened from History render through one
path. `conflictdesk.tui.engine.DeskEngine` implements the protocol over the real store and
engine; tests inject a fake with the same methods.

View models (keys the screens read; other keys are ignored):

- passage: {"id", "ord", "text", "document_id", "title", "date", "source"}
- ask result: `Analysis.to_json()` ("query", "passages", "tagging", "clusters", "score",
  "packet", "detection", "verdict", "resolution", "methods", "timings") plus "collection" and
  "answer" (`generation.Answer.to_json()`: "sentences": [{"sent", "cites": [passage ids]}],
  "conflict", "stance", "method"). Stage events carry a subset of these keys.
- score result: {"response", "documents": [{"title", "text"}], "claims": [{"text",
  "relations": ["SUPPORTS" | "CONTRADICTS" | "IRRELEVANT", one per document],
  "confidences": [float, ...], "conflict": bool}], "cs_c", "cs_r" (None when undefined),
  "method", and after a regeneration "question", "regenerated_from", "before"}
- run: {"id", "kind", "created", "summary", "result"}.
- bench runs and their metric tables are typed: `conflictdesk.app.bench.BenchStatus` and
  `Score` (metric, testee, accuracy, interval, n).
- collections, documents, history rows and the models report are typed: `conflictdesk.app.RunSummary` and
  `conflictdesk.app.ModelsReport` (rows `ModelRow`, `StageRow`), `CollectionInfo`,
  `DocumentInfo`; the screens read their fields.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

# Raised by a Desk method when its `cancel` event was set; committed work is kept.
from conflictdesk.app import (
    Cancelled,
    CollectionInfo,
    DocumentInfo,
    ModelsReport,
    RunSummary,
)
from conflictdesk.app.bench import BenchStatus, Score
from conflictdesk.stages import ASK_STAGES

Json = dict[str, Any]
ProgressFn = Callable[[int, int, str, "str | None"], None]  # done, total, path, error
EventFn = Callable[[str, Json], None]  # stage name, partial view model


__all__ = ["ASK_STAGES", "Cancelled", "Desk", "EventFn", "Json", "ProgressFn"]


class Desk(Protocol):
    """The app's only dependency: collections, ingestion, ask, score, history and models."""

    def collections(self) -> list[CollectionInfo]: ...

    def ingest(
        self,
        paths: Sequence[str],
        collection: str,
        on_progress: ProgressFn,
        cancel: threading.Event,
    ) -> Json:
        """Import files or folders; returns {"added", "skipped", "failed", "cancelled"}."""
        ...

    def documents(self, collection: str) -> list[DocumentInfo]: ...

    def passages(self, document_id: int) -> list[Json]: ...

    def ask(
        self, query: str, collection: str, on_event: EventFn, cancel: threading.Event
    ) -> tuple[int | None, Json]: ...

    def score(
        self, response: str, documents: Sequence[Json], cancel: threading.Event
    ) -> tuple[int | None, Json]: ...

    def can_regenerate(self) -> bool: ...

    def regenerate(
        self, question: str, response: str, documents: Sequence[Json], cancel: threading.Event
    ) -> tuple[int | None, Json]:
        """ConflictScore feedback on the GGUF model; the result is a score view model of the
        revised response with "regenerated_from", or the original with "regenerated": False."""
        ...

    def history(self, limit: int = 100) -> list[RunSummary]: ...

    def run(self, run_id: int) -> Json: ...

    def models(self, verify: bool = False) -> ModelsReport: ...

    def bench_runs(self) -> list[BenchStatus]:
        """Stored bench runs, newest first, each with its progress read fresh."""
        ...

    def bench_scores(self, run_id: int) -> list[Score]:
        """A bench run's metric table, from the store alone."""
        ...
