"""Bench: stored benchmark runs (Ragability, CONFLICTS, TruthfulQA), the selected run's
progress, read again every second so a run going on in the CLI shows live, and its metric
table. Everything goes through the Desk's bench methods (the application layer)."""

from __future__ import annotations

import math
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, ProgressBar, Static

from conflictdesk.app.bench import BenchStatus, Score
from conflictdesk.terminal import safe_line
from conflictdesk.tui.desk import Desk
from conflictdesk.tui.messages import BenchRunsRead, WorkFailed
from conflictdesk.tui.widgets.nav_bar import NavBar

REFRESH_SECONDS = 1.0


def _state(run: BenchStatus) -> str:
    return "finished" if run.finished else "running or stopped"


def _number(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.3f}"  # NaN for an empty metric


class BenchScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("r", "refresh", "Refresh")]

    def __init__(self, desk: Desk, refresh_seconds: float = REFRESH_SECONDS) -> None:
        super().__init__()
        self.desk = desk
        self.refresh_seconds = refresh_seconds
        self.selected: int | None = None
        self.runs: list[BenchStatus] = []
        self.scores: list[Score] = []

    def compose(self) -> ComposeResult:
        yield NavBar("bench")
        yield Label("[b]Bench runs[/b] [dim]conflictdesk bench run / conflicts / truthfulqa[/]")
        yield DataTable(id="bench-runs", cursor_type="row")
        yield Static("No run selected.", id="bench-status")
        yield ProgressBar(id="bench-progress", show_eta=False)
        yield Label("[b]Metrics[/b] [dim]accuracy with its 95 % Wilson interval[/]")
        yield DataTable(id="bench-scores", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        runs = self.query_one("#bench-runs", DataTable)
        runs.add_columns("Run", "Suite", "Testees", "Progress", "State", "Created")
        scores = self.query_one("#bench-scores", DataTable)
        scores.add_columns("Metric", "Testee", "Accuracy", "95 % CI", "n")
        self.action_refresh()
        self.set_interval(self.refresh_seconds, self.action_refresh)

    def on_screen_resume(self) -> None:
        self.action_refresh()

    def action_refresh(self) -> None:
        self.read(self.selected)

    @work(thread=True, exclusive=True, group="bench")
    def read(self, selected: int | None) -> None:
        try:
            runs = self.desk.bench_runs()
            if selected is None and runs:
                selected = runs[0].id
            scores = self.desk.bench_scores(selected) if selected is not None else []
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.post_message(WorkFailed("reading the bench runs", exc))
            return
        self.post_message(BenchRunsRead(runs, scores, selected))

    def on_bench_runs_read(self, message: BenchRunsRead) -> None:
        if self.selected is not None and message.selected != self.selected:
            return  # read for a run that is no longer selected
        self.runs, self.scores, self.selected = message.runs, message.scores, message.selected
        self._show_runs()
        self._show_selected()

    def _show_runs(self) -> None:
        table = self.query_one("#bench-runs", DataTable)
        cursor = table.cursor_row
        table.clear()
        for run in self.runs:
            table.add_row(run.id, safe_line(run.suite), safe_line(", ".join(run.testees)),
                          f"{run.checks}/{run.total}", _state(run), safe_line(run.created[:16]),
                          key=str(run.id))  # fmt: skip
        if self.runs:
            table.move_cursor(row=min(cursor, len(self.runs) - 1))

    def _show_selected(self) -> None:
        run = next((r for r in self.runs if r.id == self.selected), None)
        status = self.query_one("#bench-status", Static)
        bar = self.query_one("#bench-progress", ProgressBar)
        if run is None:
            status.update("No bench run stored yet.")
            bar.update(total=None, progress=0)
        else:
            status.update(safe_line(f"Run {run.id} ({run.suite}) on {run.corpus}: {run.responses} "
                                    f"responses, {run.checks} of {run.total} checks; checker "
                                    f"{run.checker}; {_state(run)}"))  # fmt: skip
            bar.update(total=max(run.total, 1), progress=run.checks)
        table = self.query_one("#bench-scores", DataTable)
        table.clear()
        for score in self.scores:
            low, high = score.interval
            table.add_row(safe_line(score.metric), safe_line(score.testee),
                          _number(score.accuracy), f"{_number(low)}–{_number(high)}", score.n)  # fmt: skip

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id != "bench-runs" or event.row_key.value is None:
            return
        chosen = int(event.row_key.value)
        if chosen != self.selected:
            self.selected = chosen
            self.read(chosen)

    def on_work_failed(self, message: WorkFailed) -> None:
        self.query_one("#bench-status", Static).update(message.text)
        self.notify(message.text, severity="error", timeout=8, markup=False)
