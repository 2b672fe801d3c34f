"""Collections: counts per collection, their documents and each document's passages."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, OptionList
from textual.widgets.option_list import Option

from conflictdesk.app import DocumentInfo, IngestSummary
from conflictdesk.terminal import safe, safe_line
from conflictdesk.tui.desk import Desk
from conflictdesk.tui.screens.document import DocumentScreen
from conflictdesk.tui.screens.import_dialog import ImportDialog
from conflictdesk.tui.widgets.nav_bar import NavBar
from conflictdesk.types import Passage


class CollectionsScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("i", "import_files", "Import"),
        Binding("r", "refresh", "Refresh"),
    ]

    def __init__(self, desk: Desk) -> None:
        super().__init__()
        self.desk = desk
        self.collection: str | None = None
        self.document_rows: dict[str, DocumentInfo] = {}
        self.passage_rows: dict[str, Passage] = {}

    def compose(self) -> ComposeResult:
        yield NavBar("collections")
        with Horizontal(id="collections-body"):
            with Vertical(id="collections-left"):
                yield Label("[b]Collections[/b]")
                yield DataTable(id="collections-table", cursor_type="row")
            with Vertical(id="collections-right"):
                yield Label("[b]Documents[/b]", id="documents-title")
                yield DataTable(id="documents-table", cursor_type="row")
                yield Label("[b]Passages[/b]", id="passages-title")
                yield OptionList(id="passages-list")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#collections-table", DataTable).add_columns("Name", "Docs", "Passages")
        self.query_one("#documents-table", DataTable).add_columns("Title", "Date", "¶")
        self.action_refresh()

    def action_refresh(self) -> None:
        table = self.query_one("#collections-table", DataTable)
        table.clear()
        try:
            rows = self.desk.collections()
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.notify(
                safe_line(f"Could not list collections: {exc}"), severity="error", markup=False
            )
            return
        for row in rows:
            table.add_row(safe_line(row.name), row.documents, row.passages, key=row.name)
        if not rows:
            self.query_one("#documents-title", Label).update(
                "[b]Documents[/b]  no collections yet: press [b]i[/b] to import files"
            )
            return
        names = [r.name for r in rows]
        index = names.index(self.collection) if self.collection in names else 0
        table.move_cursor(row=index)
        self.show_collection(names[index])
        table.focus()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is None:
            return
        if event.data_table.id == "collections-table":
            self.show_collection(event.row_key.value)
        elif event.data_table.id == "documents-table":
            self.show_document(event.row_key.value)

    def show_collection(self, name: str) -> None:
        if name == self.collection and self.document_rows:
            return
        self.collection = name
        table = self.query_one("#documents-table", DataTable)
        table.clear()
        try:
            documents = self.desk.documents(name)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.notify(
                safe_line(f"Could not list documents of {name}: {exc}"),
                severity="error",
                markup=False,
            )
            return
        self.document_rows = {str(d.id): d for d in documents}
        for doc in documents:
            table.add_row(
                safe_line(doc.label), safe_line(doc.date or ""), doc.passages, key=str(doc.id)
            )
        self.query_one("#documents-title", Label).update(
            Content.from_markup(
                "[b]Documents[/b] in $name ($n)", name=safe_line(name), n=len(documents)
            )
        )
        if documents:
            self.show_document(str(documents[0].id))
        else:
            self.query_one("#passages-list", OptionList).clear_options()

    def show_document(self, key: str) -> None:
        options = self.query_one("#passages-list", OptionList)
        options.clear_options()
        try:
            passages = self.desk.passages(int(key))
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.notify(
                safe_line(f"Could not read passages: {exc}"), severity="error", markup=False
            )
            return
        self.passage_rows = {str(p.id): p for p in passages}
        options.add_options([Option(Content(safe(p.text)), id=str(p.id)) for p in passages])
        if passages:
            options.highlighted = 0
        self.query_one("#passages-title", Label).update(f"[b]Passages[/b] ({len(passages)})")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "collections-table":
            self.query_one("#documents-table", DataTable).focus()
        elif event.data_table.id == "documents-table":
            self.query_one("#passages-list", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        passage = self.passage_rows.get(event.option.id or "")
        if passage is None:
            return
        doc = self.document_rows.get(str(passage.document_id))
        if doc is not None:  # a passage shows its document's title and file
            passage = replace(passage, title=passage.title or doc.title,
                              source=passage.source or doc.source)  # fmt: skip
        self.app.push_screen(DocumentScreen(self.desk, passage))

    def action_import_files(self) -> None:
        self.app.push_screen(ImportDialog(self.desk, self.collection or ""), self._imported)

    def _imported(self, summary: IngestSummary | None) -> None:
        if summary is not None and summary.collection:
            self.collection = summary.collection
            self.document_rows = {}
        self.action_refresh()
