"""History: past asks and scores from the store, reopened without recomputing anything."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label

from conflictdesk.terminal import safe_line
from conflictdesk.tui.desk import Desk
from conflictdesk.tui.widgets.nav_bar import NavBar

OPENS_IN = {"ask": "ask", "score": "score", "regenerate": "score"}


class HistoryScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", show=True),
        Binding("r", "refresh", "Refresh"),
    ]

    def __init__(self, desk: Desk) -> None:
        super().__init__()
        self.desk = desk

    def compose(self) -> ComposeResult:
        yield NavBar("history")
        yield Label("[b]Runs[/b] [dim]Enter reopens a run as it was stored[/]", id="history-title")
        yield DataTable(id="history-table", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("Run", "Kind", "When", "Question / response")
        self.action_refresh()

    def on_screen_resume(self) -> None:
        self.action_refresh()

    def action_refresh(self) -> None:
        table = self.query_one(DataTable)
        table.clear()
        try:
            runs = self.desk.history()
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.notify(
                safe_line(f"Could not read the history: {exc}"), severity="error", markup=False
            )
            return
        for run in runs:
            table.add_row(
                run.id,
                safe_line(run.kind),
                safe_line(run.created),
                safe_line(run.summary),
                key=str(run.id),
            )
        table.focus()

    async def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        await self.open_run(int(event.row_key.value))

    async def action_open(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
            await self.open_run(int(key.value))

    async def open_run(self, run_id: int) -> None:
        try:
            run = self.desk.run(run_id)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.notify(
                safe_line(f"Could not open run {run_id}: {exc}"), severity="error", markup=False
            )
            return
        mode = OPENS_IN.get(run.summary.kind)
        if mode is None or run.view is None:
            self.notify(
                safe_line(f"Runs of kind {run.summary.kind!r} have no screen."),
                severity="warning",
                markup=False,
            )
            return
        await self.app.open_run(mode, run)
