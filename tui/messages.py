"""Past-tense events that worker threads post; the screens' handlers own the widget state.

`job` identifies the run a message belongs to (the run's cancel event), so a screen can drop
late messages from a run it already replaced."""

from __future__ import annotations

from textual.message import Message

from conflictdesk.app import AskView, IngestSummary, ModelsReport, ScoreView
from conflictdesk.terminal import safe_line


class StageCompleted(Message):
    """One shown stage of an ask finished; `view` holds every stage's result so far."""

    def __init__(self, stage: str, view: AskView, job: object = None) -> None:
        super().__init__()
        self.job = job
        self.stage = stage
        self.view = view


class AskFinished(Message):
    """An ask finished and was stored as run `run_id`."""

    def __init__(self, run_id: int | None, view: AskView, job: object = None) -> None:
        super().__init__()
        self.job = job
        self.run_id = run_id
        self.view = view


class FileIngested(Message):
    """One file of an import was processed (`error` is None when it was added)."""

    def __init__(self, done: int, total: int, path: str, error: str | None) -> None:
        super().__init__()
        self.done = done
        self.total = total
        self.path = path
        self.error = error


class IngestFinished(Message):
    """An import ended, completed or cancelled; `summary` counts what was kept."""

    def __init__(self, summary: IngestSummary) -> None:
        super().__init__()
        self.summary = summary


class ScoreFinished(Message):
    """A response was scored (or regenerated and rescored) and stored as run `run_id`."""

    def __init__(
        self, run_id: int | None, view: ScoreView, regenerated: bool, job: object = None
    ) -> None:
        super().__init__()
        self.job = job
        self.run_id = run_id
        self.view = view
        self.regenerated = regenerated


class ModelsLoaded(Message):
    """The models report was read (`verified` when every file's sha256 was checked)."""

    def __init__(self, report: ModelsReport, verified: bool, job: object = None) -> None:
        super().__init__()
        self.job = job
        self.report = report
        self.verified = verified


class WorkCancelled(Message):
    """A cancellable job stopped at the user's request."""

    def __init__(self, task: str, job: object = None) -> None:
        super().__init__()
        self.job = job
        self.task = task


class WorkFailed(Message):
    """A job raised; `error` is shown to the user, never swallowed."""

    def __init__(self, task: str, error: BaseException, job: object = None) -> None:
        super().__init__()
        self.job = job
        self.task = task
        self.error = error

    @property
    def text(self) -> str:
        return safe_line(f"{self.task} failed: {type(self.error).__name__}: {self.error}")


class PassageChosen(Message):
    """The user picked a passage (an evidence row, a cluster member or a citation)."""

    def __init__(self, passage_id: int) -> None:
        super().__init__()
        self.passage_id = passage_id
