"""Ask: a question against a collection; the analysis streams in stage by stage."""

from __future__ import annotations

import threading
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Input, Select, Static, TabbedContent, TabPane
from textual.widgets.tabbed_content import ContentTabs

from conflictdesk.app import AskView
from conflictdesk.terminal import safe_line
from conflictdesk.tui.desk import Cancelled, Desk
from conflictdesk.tui.messages import (
    AskFinished,
    PassageChosen,
    StageCompleted,
    WorkCancelled,
    WorkFailed,
)
from conflictdesk.tui.screens.document import DocumentScreen
from conflictdesk.tui.widgets.answer_view import AnswerView
from conflictdesk.tui.widgets.cluster_board import ClusterBoard
from conflictdesk.tui.widgets.conflict_badge import ConflictBadge
from conflictdesk.tui.widgets.conflict_panel import ConflictPanel
from conflictdesk.tui.widgets.evidence_table import EvidenceTable
from conflictdesk.tui.widgets.nav_bar import NavBar
from conflictdesk.tui.widgets.stage_progress import StageProgress

TABS = (
    ("answer", "1 Answer"),
    ("evidence", "2 Evidence"),
    ("clusters", "3 Clusters"),
    ("conflict", "4 Conflict"),
)


class AskScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("slash", "focus_question", "Question"),
        *(Binding(label[0], f"show_tab('{tab}')", label[2:], show=False) for tab, label in TABS),
    ]

    def __init__(self, desk: Desk) -> None:
        super().__init__()
        self.desk = desk
        self.result = AskView("")
        self.cancel_event: threading.Event | None = None
        self.running = False

    def compose(self) -> ComposeResult:
        yield NavBar("ask")
        with Horizontal(id="ask-bar"):
            yield Input(placeholder="Ask a question and press Enter", id="question")
            yield Select([], prompt="collection", id="collection", allow_blank=True)
        yield Static("", id="read-as")
        yield StageProgress(id="stages")
        yield ConflictBadge(id="badge")
        yield Static("", id="ask-error")
        with TabbedContent(id="ask-tabs"):
            with TabPane(TABS[0][1], id="answer"):
                yield AnswerView(id="answer-view")
            with TabPane(TABS[1][1], id="evidence"):
                yield EvidenceTable(id="evidence-table")
            with TabPane(TABS[2][1], id="clusters"):
                yield ClusterBoard(id="cluster-board")
            with TabPane(TABS[3][1], id="conflict"):
                yield ConflictPanel(id="conflict-panel")
        yield Footer()

    def on_mount(self) -> None:
        self.load_collections()
        self.query_one("#question", Input).focus()

    def on_screen_resume(self) -> None:
        self.load_collections()

    def load_collections(self) -> None:
        select = self.query_one("#collection", Select)
        try:
            names = [c.name for c in self.desk.collections()]
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.notify(
                safe_line(f"Could not list collections: {exc}"), severity="error", markup=False
            )
            return
        current = select.value
        select.set_options([(safe_line(name), name) for name in names])
        if current in names:
            select.value = current
        elif names:
            select.value = names[0]

    @on(Input.Submitted, "#question")
    async def ask(self) -> None:
        query = self.query_one("#question", Input).value.strip()
        collection = self.query_one("#collection", Select).value
        if not query:
            self.show_error("Type a question first.")
            return
        if not isinstance(collection, str):
            self.show_error("No collection to search: import documents on Collections (F1).")
            return
        if self.cancel_event is not None:
            self.cancel_event.set()
        self.cancel_event = threading.Event()
        self.running = True
        self.show_error("")
        self.result = AskView.start(query, collection)
        self.query_one(StageProgress).start()
        await self.refresh_views()
        self.run_ask(query, collection, self.cancel_event)

    @work(thread=True, exclusive=True, group="ask")
    def run_ask(self, query: str, collection: str, cancel: threading.Event) -> None:
        def on_event(stage: str, view: AskView) -> None:
            if not cancel.is_set():
                self.post_message(StageCompleted(stage, view, cancel))

        try:
            run_id, view = self.desk.ask(query, collection, on_event, cancel)
        except Cancelled:
            self.post_message(WorkCancelled("ask", cancel))
            return
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.post_message(WorkFailed("ask", exc, cancel))
            return
        if cancel.is_set():
            self.post_message(WorkCancelled("ask", cancel))
        else:
            self.post_message(AskFinished(run_id, view, cancel))

    async def on_stage_completed(self, message: StageCompleted) -> None:
        if not self.running or message.job is not self.cancel_event:
            return
        self.result = message.view
        self.query_one(StageProgress).completed(message.stage)
        await self.refresh_views()

    async def on_ask_finished(self, message: AskFinished) -> None:
        if message.job is self.cancel_event:
            await self.show_result(message.view, message.run_id)

    def on_work_cancelled(self, message: WorkCancelled) -> None:
        if message.job is not self.cancel_event:
            return
        self.running = False
        self.query_one(StageProgress).finish("cancelled", "partial kept")

    def on_work_failed(self, message: WorkFailed) -> None:
        if message.job is not self.cancel_event:
            return
        self.running = False
        self.query_one(StageProgress).finish("failed")
        self.show_error(message.text)
        self.notify(message.text, severity="error", timeout=8, markup=False)

    async def reopen(self, view: AskView, run_id: int | None) -> None:
        """Show a stored run; a running ask is cancelled first so it cannot overwrite it."""
        if self.cancel_event is not None:
            self.cancel_event.set()
            self.cancel_event = None
        await self.show_result(view, run_id)

    async def show_result(self, view: AskView, run_id: int | None = None) -> None:
        """Render a finished result: a fresh ask or a run reopened from History."""
        self.running = False
        self.result = view
        self.query_one("#question", Input).value = view.query
        note = f"run {run_id}" if run_id is not None else ""
        self.query_one(StageProgress).finish("done", note)
        self.show_error("")
        await self.refresh_views()

    async def refresh_views(self) -> None:
        result = self.result
        read_as = self.query_one("#read-as", Static)
        read_as.update(Content.styled(f"read as: {safe_line(result.reworded)}", "dim"))
        read_as.display = bool(result.reworded)
        self.query_one(ConflictBadge).show(result)
        self.query_one(EvidenceTable).show(result)
        await self.query_one(ClusterBoard).show(result)
        self.query_one(ConflictPanel).show(result)
        self.query_one(AnswerView).show(result)

    def show_error(self, text: str) -> None:
        error = self.query_one("#ask-error", Static)
        error.update(Content(safe_line(text)))
        error.display = bool(text)

    def on_passage_chosen(self, message: PassageChosen) -> None:
        passage = self.result.passage(message.passage_id)
        if passage is None:
            self.notify(f"Passage #{message.passage_id} is not in this result.", severity="error")
            return
        self.app.push_screen(DocumentScreen(self.desk, passage))

    def on_unmount(self) -> None:
        """Leaving (or quitting) stops a running job at its next checkpoint."""
        if self.cancel_event is not None:
            self.cancel_event.set()

    def action_cancel(self) -> None:
        if self.running and self.cancel_event is not None:
            self.cancel_event.set()
            self.query_one(StageProgress).set_status("cancelling…")
        else:
            self.action_focus_question()

    def action_focus_question(self) -> None:
        self.query_one("#question", Input).focus()

    def action_show_tab(self, tab: str) -> None:
        """Activate `tab` and focus the tab bar: TabbedContent would otherwise re-activate
        the pane that holds the focused widget."""
        tabs = self.query_one("#ask-tabs", TabbedContent)
        tabs.active = tab
        tabs.query_one(ContentTabs).focus()
