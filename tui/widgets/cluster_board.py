"""Evidence clusters side by side, one card per cluster with its dominant tag and members."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import HorizontalScroll
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from conflictdesk.analysis.types import Cluster
from conflictdesk.app import AskView
from conflictdesk.terminal import safe, safe_line
from conflictdesk.tui.messages import PassageChosen
from conflictdesk.tui.widgets.evidence_table import passage_label


class ClusterBoard(HorizontalScroll):
    """Each card is an OptionList of the cluster's passages; selecting one posts PassageChosen."""

    def compose(self) -> ComposeResult:
        yield from ()

    async def show(self, view: AskView) -> None:
        await self.remove_children()
        cards = [self._card(c, view) for c in view.clusters]
        if cards:
            await self.mount_all(cards)

    @staticmethod
    def _card(cluster: Cluster, view: AskView) -> OptionList:
        tags = view.tagging.by_id() if view.tagging is not None else {}
        options = []
        for pid in cluster.members:
            passage = view.passage(pid)
            tag = tags[pid].tag.value if pid in tags else "?"
            prompt = Content.from_markup(
                "#$pid [i]$title[/i] ($tag)\n$text",
                pid=pid,
                title=passage_label(passage, pid),
                tag=safe_line(tag),
                text=safe(passage.text if passage is not None else ""),
            )
            options.append(Option(prompt, id=f"p{pid}"))
        dominant = cluster.dominant_tag.value
        card = OptionList(*options, classes=f"cluster-card -{dominant}")
        card.border_title = safe_line(f"Cluster {cluster.id} · {dominant} {cluster.confidence:.2f}")
        return card

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(PassageChosen(int(event.option.id[1:])))
