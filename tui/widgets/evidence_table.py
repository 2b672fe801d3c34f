"""ConRAG's evidence in three columns (support / refute / irrelevant), most confident first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from conflictdesk.terminal import safe, safe_line
from conflictdesk.tui.messages import PassageChosen

COLUMNS = (
    ("support", "Support", "$success"),
    ("refute", "Refute", "$error"),
    ("irrelevant", "Irrelevant", "$text-muted"),
)


def passage_index(result: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {int(p["id"]): p for p in result.get("passages") or []}


def passage_label(passage: dict[str, Any], passage_id: int) -> str:
    """The passage's title, else its file name, else `passage N` (terminal-safe, one line)."""
    source = passage.get("source")
    return safe_line(
        passage.get("title") or (Path(source).name if source else f"passage {passage_id}")
    )


class EvidenceTable(Horizontal):
    """Selecting a row (enter or click) posts PassageChosen."""

    def compose(self) -> ComposeResult:
        for tag, title, _ in COLUMNS:
            with Vertical(classes="evidence-column"):
                yield Label(title, id=f"{tag}-title", classes=f"evidence-title -{tag}")
                yield OptionList(id=f"{tag}-list")

    def show(self, result: dict[str, Any]) -> None:
        tags = (result.get("tagging") or {}).get("tags") or []
        passages = passage_index(result)
        for tag, title, colour in COLUMNS:
            rows = sorted(
                (t for t in tags if t.get("tag") == tag),
                key=lambda t: -float(t.get("confidence", 0.0)),
            )
            self.query_one(f"#{tag}-title", Label).update(
                Content.from_markup(f"[{colour} bold]$title[/] ($n)", title=title, n=len(rows))
            )
            options = self.query_one(f"#{tag}-list", OptionList)
            options.clear_options()
            options.add_options([self._option(t, passages) for t in rows])

    @staticmethod
    def _option(tag: dict[str, Any], passages: dict[int, dict[str, Any]]) -> Option:
        pid = int(tag["passage_id"])
        passage = passages.get(pid, {})
        title = passage_label(passage, pid)
        text = safe(tag.get("key_sentence") or passage.get("text", ""))
        prompt = Content.from_markup(
            "[b]$conf[/b] #$pid [i]$title[/i]\n$text",
            conf=f"{float(tag.get('confidence', 0.0)):.2f}",
            pid=pid,
            title=title,
            text=text,
        )
        return Option(prompt, id=f"p{pid}")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(PassageChosen(int(event.option.id[1:])))
