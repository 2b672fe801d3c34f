"""What the screens need from the engine and the store: the `Desk` protocol.

Every result reaches the screens typed: the views of `conflictdesk.app.views` (`AskView`,
`ScoreView`, `IngestSummary`, `OpenedRun`) and the wire types of `conflictdesk.app`
(`CollectionInfo`, `DocumentInfo`, `RunSummary`, `ModelsReport`) over the engine's own types
(`Passage`, `Tagging`, `Answer`, ...). A run streamed stage by stage, a finished run and a run
reopened from History render through one `AskView`. `conflictdesk.tui.engine.DeskEngine`
implements the protocol over the real store and engine; tests inject a fake built from the
same types (tests/tui/fake_desk.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Protocol

# Raised by a Desk method when its `cancel` event was set; committed work is kept.
from conflictdesk.app import (
    AskView,
    Cancelled,
    CollectionInfo,
    DocumentInfo,
    IngestSummary,
    ModelsReport,
    OpenedRun,
    RunSummary,
    ScoreView,
)
from conflictdesk.stages import ASK_STAGES
from conflictdesk.types import Document, Passage

ProgressFn = Callable[[int, int, str, "str | None"], None]  # done, total, path, error
EventFn = Callable[[str, AskView], None]  # shown stage (ASK_STAGES), the view so far


__all__ = ["ASK_STAGES", "Cancelled", "Desk", "EventFn", "ProgressFn"]


class Desk(Protocol):
    """The app's only dependency: collections, ingestion, ask, score, history and models."""

    def collections(self) -> list[CollectionInfo]: ...

    def ingest(
        self,
        paths: Sequence[str],
        collection: str,
        on_progress: ProgressFn,
        cancel: threading.Event,
    ) -> IngestSummary:
        """Import files or folders, one file per transaction."""
        ...

    def documents(self, collection: str) -> list[DocumentInfo]: ...

    def passages(self, document_id: int) -> list[Passage]: ...

    def ask(
        self, query: str, collection: str, on_event: EventFn, cancel: threading.Event
    ) -> tuple[int | None, AskView]: ...

    def score(
        self, response: str, documents: Sequence[Document], cancel: threading.Event
    ) -> tuple[int | None, ScoreView]: ...

    def can_regenerate(self) -> bool: ...

    def regenerate(
        self,
        question: str,
        response: str,
        documents: Sequence[Document],
        cancel: threading.Event,
    ) -> tuple[int | None, ScoreView]:
        """ConflictScore feedback on the GGUF model: the revised response's score view, or the
        original's, with its `regeneration`."""
        ...

    def history(self, limit: int = 100) -> list[RunSummary]: ...

    def run(self, run_id: int) -> OpenedRun: ...

    def models(self, verify: bool = False) -> ModelsReport: ...
