"""Models: which models are installed and verified, which method each stage uses, the device."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, Static

from conflictdesk.app import ModelsReport
from conflictdesk.terminal import safe_line
from conflictdesk.tui.desk import Desk
from conflictdesk.tui.messages import ModelsLoaded, WorkFailed
from conflictdesk.tui.widgets.nav_bar import NavBar

STATUS_STYLES = {"verified": "bold green", "present": "", "missing": "bold red",
                 "mismatch": "bold red"}


class ModelsScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("v", "verify", "Verify sha256"),
        Binding("r", "refresh", "Refresh"),
    ]

    def __init__(self, desk: Desk) -> None:
        super().__init__()
        self.desk = desk
        self.report: ModelsReport | None = None
        self.job: object | None = None  # the latest load; older ones are ignored

    def compose(self) -> ComposeResult:
        yield NavBar("models")
        yield Static("Reading the model manifest…", id="models-summary")
        yield Label("[b]Installed models[/b]")
        yield DataTable(id="models-table", cursor_type="row")
        yield Label("[b]Stages[/b]")
        yield DataTable(id="stages-table", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#models-table", DataTable).add_columns("Role", "Name", "Status", "Detail")
        self.query_one("#stages-table", DataTable).add_columns("Stage", "Method", "LLM")
        self.action_refresh()

    def action_refresh(self) -> None:
        self.job = object()
        self.load(False, self.job)

    def action_verify(self) -> None:
        self.query_one("#models-summary", Static).update("Verifying every file's sha256…")
        self.job = object()
        self.load(True, self.job)

    @work(thread=True, exclusive=True, group="models")
    def load(self, verify: bool, job: object) -> None:
        try:
            report = self.desk.models(verify=verify)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.post_message(WorkFailed("models", exc, job))
            return
        self.post_message(ModelsLoaded(report, verify, job))

    def on_models_loaded(self, message: ModelsLoaded) -> None:
        if message.job is not self.job:
            return
        self.report = report = message.report
        llm = report.llm or "none configured (stages fall back to non-LLM methods)"
        checked = "sha256 verified" if message.verified else "press v to verify sha256"
        summary = Content.from_markup(
            "[b]Device[/b] $device  [b]LLM[/b] $llm  [dim]$checked[/]",
            device=safe_line(report.device), llm=safe_line(llm), checked=checked)
        for note in report.notes:
            summary += Content.from_markup("\n[dim]note: $note[/]", note=safe_line(note))
        self.query_one("#models-summary", Static).update(summary)
        models = self.query_one("#models-table", DataTable)
        models.clear()
        for row in report.models:
            models.add_row(safe_line(row.role), safe_line(row.name),
                           Text(row.status, style=STATUS_STYLES.get(row.status, "")),
                           safe_line(row.detail))
        stages = self.query_one("#stages-table", DataTable)
        stages.clear()
        for stage in report.stages:
            stages.add_row(safe_line(stage.stage), safe_line(stage.method),
                           "yes" if stage.llm else "no")

    def on_work_failed(self, message: WorkFailed) -> None:
        if message.job is not self.job:
            return
        self.query_one("#models-summary", Static).update(
            Content.styled(message.text, "bold $error"))
        self.notify(message.text, severity="error", timeout=8, markup=False)
