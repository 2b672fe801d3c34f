"""Evidence clusters side by side, one card per cluster with its dominant tag and members."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import HorizontalScroll
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from conflictdesk.terminal import safe, safe_line
from conflictdesk.tui.messages import PassageChosen
from conflictdesk.tui.widgets.evidence_table import passage_index, passage_label


class ClusterBoard(HorizontalScroll):
    """Each card is an OptionList of the cluster's passages; selecting one posts PassageChosen."""

    def compose(self) -> ComposeResult:
        yield from ()

    async def show(self, result: dict[str, Any]) -> None:
        await self.remove_children()
        clusters = result.get("clusters") or []
        passages = passage_index(result)
        tags = {int(t["passage_id"]): t for t in (result.get("tagging") or {}).get("tags") or []}
        cards = [self._card(c, passages, tags) for c in clusters]
        if cards:
            await self.mount_all(cards)

    @staticmethod
    def _card(
        cluster: dict[str, Any], passages: dict[int, Any], tags: dict[int, Any]
    ) -> OptionList:
        options = []
        for pid in cluster.get("members") or []:
            passage = passages.get(int(pid), {})
            tag = tags.get(int(pid), {}).get("tag", "?")
            prompt = Content.from_markup(
                "#$pid [i]$title[/i] ($tag)\n$text",
                pid=pid,
                title=passage_label(passage, int(pid)),
                tag=safe_line(tag),
                text=safe(passage.get("text", "")),
            )
            options.append(Option(prompt, id=f"p{pid}"))
        card = OptionList(*options, classes=f"cluster-card -{cluster.get('dominant_tag')}")
        card.border_title = safe_line(
            f"Cluster {cluster.get('id')} · {cluster.get('dominant_tag')} "
            f"{float(cluster.get('confidence', 0.0)):.2f}"
        )
        return card

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(PassageChosen(int(event.option.id[1:])))
