"""An ask's stages as a progress bar and a row of marks: done, running, waiting, failed."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import ProgressBar, Static

from conflictdesk.terminal import safe_line
from conflictdesk.tui.desk import ASK_STAGES

LABELS = {"kappa": "κ"}
MARKS = {"done": ("✓", "$success"), "running": ("…", "$warning"), "waiting": ("·", "dim"),
         "failed": ("✗", "$error"), "cancelled": ("⊘", "$warning")}


class StageProgress(Horizontal):
    """Tracks which of ASK_STAGES have completed; `status` is shown after the marks."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.states = {stage: "waiting" for stage in ASK_STAGES}
        self.status = "ready"

    def compose(self) -> ComposeResult:
        yield ProgressBar(total=len(ASK_STAGES), show_eta=False, show_percentage=False, id="stage-bar")
        yield Static(self._marks(), id="stage-marks")

    def reset(self, status: str = "ready") -> None:
        self.states = {stage: "waiting" for stage in ASK_STAGES}
        self.status = status
        self._refresh()

    def start(self) -> None:
        self.reset("running")
        self.states[ASK_STAGES[0]] = "running"
        self._refresh()

    def completed(self, stage: str) -> None:
        """Mark `stage` and every stage before it done; the next one starts running."""
        if stage not in self.states:
            return
        index = ASK_STAGES.index(stage)
        for earlier in ASK_STAGES[: index + 1]:
            self.states[earlier] = "done"
        if index + 1 < len(ASK_STAGES) and self.status == "running":
            self.states[ASK_STAGES[index + 1]] = "running"
        self._refresh()

    def finish(self, status: str, note: str = "") -> None:
        """End the run: "done" marks everything done, "failed"/"cancelled" the running stage."""
        for stage, state in self.states.items():
            if status == "done":
                self.states[stage] = "done"
            elif state == "running":
                self.states[stage] = status
        self.status = f"{status} · {note}" if note else status
        self._refresh()

    def set_status(self, status: str) -> None:
        self.status = status
        self._refresh()

    @property
    def done_count(self) -> int:
        return sum(state == "done" for state in self.states.values())

    def _marks(self) -> Content:
        parts = []
        for stage, state in self.states.items():
            mark, style = MARKS[state]
            parts.append(Content.styled(f"{mark} {LABELS.get(stage, stage)}", style))
        parts.insert(0, Content.styled(f"{self.done_count}/{len(ASK_STAGES)}", "bold"))
        parts.append(Content.styled(f" {safe_line(self.status)}", "bold"))
        return Content(" ").join(parts)

    def _refresh(self) -> None:
        if not self.is_mounted:
            return
        self.query_one("#stage-bar", ProgressBar).update(progress=self.done_count)
        self.query_one("#stage-marks", Static).update(self._marks())
