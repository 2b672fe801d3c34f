"""A passage shown inside its document: every passage of the document, the chosen one
highlighted and scrolled into view."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from conflictdesk.terminal import safe, safe_line
from conflictdesk.tui.desk import Desk
from conflictdesk.types import Passage


class DocumentScreen(ModalScreen[None]):
    """Opened from a citation, an evidence row, a cluster member or the collection browser."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, desk: Desk, passage: Passage) -> None:
        super().__init__()
        self.desk = desk
        self.passage = passage

    def compose(self) -> ComposeResult:
        with Vertical(id="document-dialog"):
            yield Static(self._heading(), id="document-heading")
            yield VerticalScroll(id="document-body")
        yield Footer()

    def _heading(self) -> Content:
        p = self.passage
        return Content.from_markup(
            "[b]$title[/b]  [dim]$meta[/]",
            title=safe_line(p.title or "Untitled document"),
            meta=safe_line(" · ".join(x for x in (p.date, p.source) if x)),
        )

    async def on_mount(self) -> None:
        body = self.query_one("#document-body", VerticalScroll)
        rows = self._document_passages()
        chosen: Static | None = None
        for row in rows:
            is_chosen = row.id == self.passage.id
            widget = Static(Content(safe(row.text)), classes="doc-passage")
            widget.set_class(is_chosen, "-chosen")
            if is_chosen:
                widget.border_title = f"passage #{row.id}"
                chosen = widget
            await body.mount(widget)
        if chosen is not None:
            body.focus()
            self.call_after_refresh(body.scroll_to_widget, chosen, animate=False, top=True)

    def _document_passages(self) -> list[Passage]:
        document_id = self.passage.document_id
        if document_id is None:
            return [self.passage]
        try:
            rows = self.desk.passages(document_id)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.notify(
                safe_line(f"Could not read the document: {exc}"), severity="error", markup=False
            )
            return [self.passage]
        return rows or [self.passage]
