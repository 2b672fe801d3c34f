"""ConRAG's evidence in three columns (support / refute / irrelevant), most confident first."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from conflictdesk.analysis.types import PassageTag
from conflictdesk.app import AskView
from conflictdesk.terminal import safe, safe_line
from conflictdesk.tui.messages import PassageChosen
from conflictdesk.types import Passage, Tag

COLUMNS = (
    (Tag.SUPPORT, "Support", "$success"),
    (Tag.REFUTE, "Refute", "$error"),
    (Tag.IRRELEVANT, "Irrelevant", "$text-muted"),
)


def passage_label(passage: Passage | None, passage_id: int) -> str:
    """The passage's title, else its file name, else `passage N` (terminal-safe, one line)."""
    source = passage.source if passage is not None else None
    title = passage.title if passage is not None else None
    return safe_line(title or (Path(source).name if source else f"passage {passage_id}"))


class EvidenceTable(Horizontal):
    """Selecting a row (enter or click) posts PassageChosen."""

    def compose(self) -> ComposeResult:
        for tag, title, _ in COLUMNS:
            with Vertical(classes="evidence-column"):
                yield Label(title, id=f"{tag.value}-title", classes=f"evidence-title -{tag.value}")
                yield OptionList(id=f"{tag.value}-list")

    def show(self, view: AskView) -> None:
        tags = view.tagging.tags if view.tagging is not None else ()
        for tag, title, colour in COLUMNS:
            rows = sorted((t for t in tags if t.tag is tag), key=lambda t: -t.confidence)
            self.query_one(f"#{tag.value}-title", Label).update(
                Content.from_markup(f"[{colour} bold]$title[/] ($n)", title=title, n=len(rows))
            )
            options = self.query_one(f"#{tag.value}-list", OptionList)
            options.clear_options()
            options.add_options([self._option(t, view.passage(t.passage_id)) for t in rows])

    @staticmethod
    def _option(tag: PassageTag, passage: Passage | None) -> Option:
        pid = tag.passage_id
        title = passage_label(passage, pid)
        text = safe(tag.key_sentence or (passage.text if passage is not None else ""))
        prompt = Content.from_markup(
            "[b]$conf[/b] #$pid [i]$title[/i]\n$text",
            conf=f"{tag.confidence:.2f}",
            pid=pid,
            title=title,
            text=text,
        )
        return Option(prompt, id=f"p{pid}")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(PassageChosen(int(event.option.id[1:])))
