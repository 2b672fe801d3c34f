"""Score: a response against its documents with ConflictScore; regenerate with a GGUF model."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Static, TabbedContent, TabPane, TextArea

from conflictdesk.app import ScoreView
from conflictdesk.errors import InputError
from conflictdesk.terminal import safe, safe_line
from conflictdesk.tui.desk import Cancelled, Desk
from conflictdesk.tui.messages import ScoreFinished, WorkCancelled, WorkFailed
from conflictdesk.tui.widgets.claim_grid import ClaimGrid
from conflictdesk.tui.widgets.nav_bar import NavBar
from conflictdesk.types import Document

SEPARATOR = "---"


def parse_documents(text: str) -> list[Document]:
    """Blocks separated by a line `---`; a block whose first line is `# Title` is titled."""
    documents, block = [], []
    for line in text.splitlines() + [SEPARATOR]:
        if line.strip() != SEPARATOR:
            block.append(line)
            continue
        body = "\n".join(block).strip()
        block = []
        if not body:
            continue
        title = None
        if body.startswith("# "):
            title, _, body = body.partition("\n")
            title, body = title[2:].strip(), body.strip()
        if body:
            documents.append(Document(body, title=title))
    return documents


def format_documents(documents: Sequence[Document]) -> str:
    blocks = [(f"# {doc.title}\n" if doc.title else "") + doc.text for doc in documents]
    return f"\n{SEPARATOR}\n".join(blocks)


def regeneration_note(view: ScoreView) -> Content:
    """What a regeneration changed: the revised response and CS-C / CS-R before it."""
    regeneration = view.regeneration
    if regeneration is None:
        return Content("")
    if not regeneration.regenerated:
        return Content.from_markup(
            "[b]Not regenerated:[/b] no claim had both supporting and contradicting documents."
        )
    return Content.from_markup(
        "[b]Regenerated[/b] (CS-C before $c, CS-R before $r)\n[b]Revised:[/b] $text\n"
        "[dim]Original: $original[/]",
        c=str(regeneration.cs_c_before),
        r=str(regeneration.cs_r_before),
        text=safe(view.response),
        original=safe(regeneration.original),
    )


class ScoreScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "score", "Score"),
        Binding("ctrl+o", "load", "Load file"),
        Binding("ctrl+g", "regenerate", "Regenerate"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, desk: Desk) -> None:
        super().__init__()
        self.desk = desk
        self.result: ScoreView | None = None
        self.cancel_event: threading.Event | None = None
        self.running = False

    def compose(self) -> ComposeResult:
        yield NavBar("score")
        with TabbedContent(id="score-tabs"):
            with TabPane("1 Input", id="score-input"):
                yield Input(
                    placeholder="Question the response answers (needed to regenerate)",
                    id="score-question",
                )
                yield Label("[b]Response[/b]")
                yield TextArea(id="response", soft_wrap=True, show_line_numbers=False)
                yield Label(
                    "[b]Documents[/b] [dim]separated by a line --- ; '# Title' first "
                    "line names one[/]"
                )
                yield TextArea(id="documents", soft_wrap=True, show_line_numbers=False)
                with Horizontal(id="load-bar"):
                    yield Input(
                        placeholder="or load a JSON file {response, documents}", id="load-path"
                    )
                    yield Button("Load", id="load-button")
            with TabPane("2 Result", id="score-result"):
                yield Static("", id="score-status")
                yield ClaimGrid(id="claim-grid")
                yield Static("", id="regenerated")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "regenerate":
            return True if self.result and self.desk.can_regenerate() else None
        if action == "cancel":
            return self.running
        return True

    @on(Input.Submitted, "#load-path")
    @on(Button.Pressed, "#load-button")
    def action_load(self) -> None:
        path_input = self.query_one("#load-path", Input)
        if not path_input.value.strip():
            path_input.focus()
            return
        try:
            data = json.loads(Path(path_input.value.strip()).expanduser().read_text("utf-8"))
            response, raw = data["response"], data["documents"]
            question = data.get("question") or ""
            if not isinstance(response, str) or not isinstance(raw, list):
                raise TypeError("`response` must be a string and `documents` a list")
            documents = [Document.from_json(d) for d in raw]
        except (OSError, ValueError, KeyError, TypeError, InputError) as exc:
            self.notify(
                safe_line(f"Could not load {path_input.value}: {exc}"),
                severity="error",
                markup=False,
            )
            return
        self.query_one("#score-question", Input).value = str(question)
        self.query_one("#response", TextArea).text = response
        self.query_one("#documents", TextArea).text = format_documents(documents)
        self.notify(f"Loaded {len(documents)} documents.")

    def action_score(self) -> None:
        response = self.query_one("#response", TextArea).text.strip()
        documents = parse_documents(self.query_one("#documents", TextArea).text)
        if not response or not documents:
            self.notify("Give a response and at least one document.", severity="error")
            return
        self._start("Scoring…")
        self.score_worker(response, documents, self.cancel_event)

    def action_regenerate(self) -> None:
        if not self.result or not self.desk.can_regenerate():
            self.notify(
                "Regenerating needs a scored response and a GGUF model.", severity="warning"
            )
            return
        question = self.query_one("#score-question", Input).value.strip()
        if not question:
            self.query_one("#score-tabs", TabbedContent).active = "score-input"
            self.query_one("#score-question", Input).focus()
            self.notify("Regenerating needs the question the response answers.", severity="warning")
            return
        self._start("Regenerating with the local LLM…")
        self.regenerate_worker(
            question, self.result.response, list(self.result.documents), self.cancel_event
        )

    def _start(self, status: str) -> None:
        if self.cancel_event is not None:
            self.cancel_event.set()
        self.cancel_event = threading.Event()
        self.running = True
        self.refresh_bindings()
        self.query_one("#score-status", Static).update(status)
        self.show_tab("score-result")

    @work(thread=True, exclusive=True, group="score")
    def score_worker(
        self, response: str, documents: list[Document], cancel: threading.Event
    ) -> None:
        self._run(lambda: self.desk.score(response, documents, cancel), "score", False, cancel)

    @work(thread=True, exclusive=True, group="score")
    def regenerate_worker(
        self, question: str, response: str, documents: list[Document], cancel: threading.Event
    ) -> None:
        self._run(
            lambda: self.desk.regenerate(question, response, documents, cancel),
            "regenerate",
            True,
            cancel,
        )

    def _run(self, call, task: str, regenerated: bool, job: threading.Event) -> None:
        try:
            run_id, view = call()
        except Cancelled:
            self.post_message(WorkCancelled(task, job))
            return
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.post_message(WorkFailed(task, exc, job))
            return
        self.post_message(ScoreFinished(run_id, view, regenerated, job))

    def on_score_finished(self, message: ScoreFinished) -> None:
        if message.job is self.cancel_event:
            self.show_result(message.view, message.run_id)

    def reopen(self, view: ScoreView, run_id: int | None) -> None:
        """Show a stored run; a running job is cancelled first so it cannot overwrite it."""
        if self.cancel_event is not None:
            self.cancel_event.set()
            self.cancel_event = None
        self.show_result(view, run_id)

    def show_result(self, view: ScoreView, run_id: int | None = None) -> None:
        """Render a score: fresh, regenerated, or reopened from History."""
        self.running = False
        self.result = view
        if view.question:
            self.query_one("#score-question", Input).value = view.question
        self.query_one("#response", TextArea).text = view.response
        self.query_one("#documents", TextArea).text = format_documents(view.documents)
        note = f"run {run_id}" if run_id is not None else "not stored"
        self.query_one("#score-status", Static).update(
            Content.from_markup("[b]Scored[/b] [dim]($note)[/]", note=note)
        )
        self.query_one(ClaimGrid).show(view)
        self.query_one("#regenerated", Static).update(regeneration_note(view))
        self.show_tab("score-result")
        self.refresh_bindings()

    def show_tab(self, tab: str) -> None:
        """Activate `tab` and focus into it: TabbedContent re-activates the pane that holds
        the focused widget, so focus must move with the tab."""
        self.query_one("#score-tabs", TabbedContent).active = tab
        target = "#claim-table" if tab == "score-result" else "#response"
        self.query_one(target).focus()

    def on_work_cancelled(self, message: WorkCancelled) -> None:
        if message.job is not self.cancel_event:
            return
        self.running = False
        self.refresh_bindings()
        self.query_one("#score-status", Static).update(f"{message.task} cancelled")

    def on_work_failed(self, message: WorkFailed) -> None:
        if message.job is not self.cancel_event:
            return
        self.running = False
        self.refresh_bindings()
        self.query_one("#score-status", Static).update(Content.styled(message.text, "bold $error"))
        self.notify(message.text, severity="error", timeout=8, markup=False)

    def on_unmount(self) -> None:
        """Leaving (or quitting) stops a running job at its next checkpoint."""
        if self.cancel_event is not None:
            self.cancel_event.set()

    def action_cancel(self) -> None:
        if self.running and self.cancel_event is not None:
            self.cancel_event.set()
            self.query_one("#score-status", Static).update("Cancelling…")
