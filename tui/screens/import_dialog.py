"""Import files or a folder into a collection, with a progress bar and per-file errors.

The import runs in a worker thread; Escape cancels it, and the files already imported stay."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, ProgressBar, RichLog, Static

from conflictdesk.app import IngestSummary
from conflictdesk.terminal import safe_line
from conflictdesk.tui.desk import Cancelled, Desk
from conflictdesk.tui.messages import FileIngested, IngestFinished, WorkFailed


def split_paths(text: str) -> list[Path]:
    """Paths separated by `;` (so paths with spaces need no quoting), `~` expanded."""
    return [Path(part.strip()).expanduser() for part in text.split(";") if part.strip()]


class ImportDialog(ModalScreen[IngestSummary | None]):
    """Dismisses with the import summary, or None when nothing ran."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel_or_close", "Cancel / close")]

    def __init__(self, desk: Desk, collection: str = "") -> None:
        super().__init__()
        self.desk = desk
        self.collection = collection
        self.cancel_event: threading.Event | None = None
        self.summary: IngestSummary | None = None
        self.failures: list[tuple[str, str]] = []

    @property
    def running(self) -> bool:
        return self.cancel_event is not None and self.summary is None

    def compose(self) -> ComposeResult:
        with Vertical(id="import-dialog"):
            yield Label(
                "[b]Import files or a folder[/b]  (.txt .md .pdf .jsonl; ; separates paths)"
            )
            yield Input(placeholder="path/to/folder or file", id="import-path")
            yield Input(
                value=self.collection, placeholder="collection name", id="import-collection"
            )
            with Horizontal(id="import-buttons"):
                yield Button("Import", id="import-start", variant="primary")
                yield Button("Close", id="import-close")
            yield ProgressBar(total=None, show_eta=False, id="import-progress")
            yield Static("", id="import-status")
            yield RichLog(id="import-log", wrap=True, markup=False)
        yield Footer()

    @on(Input.Submitted)
    @on(Button.Pressed, "#import-start")
    def start(self) -> None:
        if self.running:
            return
        paths = split_paths(self.query_one("#import-path", Input).value)
        collection = self.query_one("#import-collection", Input).value.strip()
        status = self.query_one("#import-status", Static)
        missing = [str(p) for p in paths if not p.exists()]
        if not paths or not collection or missing:
            problem = (
                f"not found: {', '.join(missing)}"
                if missing
                else "give a path and a collection name"
            )
            status.update(Text(safe_line(problem), style="bold red"))
            return
        self.summary, self.failures = None, []
        self.cancel_event = threading.Event()
        self.query_one("#import-log", RichLog).clear()
        self.query_one("#import-progress", ProgressBar).display = True
        status.update(Text(f"Importing into {safe_line(collection)}…"))
        self.ingest([str(p) for p in paths], collection, self.cancel_event)

    @work(thread=True, exclusive=True, group="ingest")
    def ingest(self, paths: list[str], collection: str, cancel: threading.Event) -> None:
        def progress(done: int, total: int, path: str, error: str | None) -> None:
            self.post_message(FileIngested(done, total, path, error))

        try:
            summary = self.desk.ingest(paths, collection, progress, cancel)
        except Cancelled:
            summary = IngestSummary(collection, cancelled=True)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.post_message(WorkFailed("import", exc))
            return
        self.post_message(IngestFinished(summary))

    def on_file_ingested(self, message: FileIngested) -> None:
        self.query_one("#import-progress", ProgressBar).update(
            total=message.total, progress=message.done
        )
        log = self.query_one("#import-log", RichLog)
        if message.error:
            self.failures.append((message.path, message.error))
            log.write(Text(safe_line(f"✗ {message.path}: {message.error}"), style="bold red"))
        else:
            log.write(Text(safe_line(f"✓ {message.path}")))

    def on_ingest_finished(self, message: IngestFinished) -> None:
        self.summary = message.summary
        s = message.summary
        verb = "Cancelled; kept" if s.cancelled else "Done:"
        self.query_one("#import-status", Static).update(
            Text(
                f"{verb} {s.added} added, {s.skipped} already present, {s.failed} failed",
                style="bold",
            )
        )

    def on_work_failed(self, message: WorkFailed) -> None:
        collection = self.query_one("#import-collection", Input).value.strip()
        self.summary = IngestSummary(collection, error=message.text)
        self.query_one("#import-status", Static).update(Text(message.text, style="bold red"))
        self.notify(message.text, severity="error", markup=False)

    def on_unmount(self) -> None:
        """Leaving (or quitting) stops a running job at its next checkpoint."""
        if self.cancel_event is not None:
            self.cancel_event.set()

    @on(Button.Pressed, "#import-close")
    def action_cancel_or_close(self) -> None:
        if self.running and self.cancel_event is not None:
            self.cancel_event.set()
            self.query_one("#import-status", Static).update("Cancelling after the current file…")
            return
        self.dismiss(self.summary)
