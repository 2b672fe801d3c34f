"""The cited answer: each sentence is followed by clickable [n] markers, and the citations
list below is keyboard-selectable; either way PassageChosen is posted."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from conflictdesk.app import AskView
from conflictdesk.generation.types import Answer
from conflictdesk.terminal import safe, safe_line
from conflictdesk.tui.messages import PassageChosen
from conflictdesk.tui.widgets.evidence_table import passage_label

WAITING = "The answer appears here once every stage has run."


def citation_numbers(answer: Answer) -> dict[int, int]:
    """Passage id -> citation number, numbered by first appearance in the answer."""
    numbers: dict[int, int] = {}
    for sentence in answer.sentences:
        for pid in sentence.cites:
            numbers.setdefault(pid, len(numbers) + 1)
    return numbers


def cited_text(answer: Answer, numbers: dict[int, int]) -> Content:
    """The sentences, each followed by links `[n]` to the passages it cites."""
    parts: list[Content] = []
    for sentence in answer.sentences:
        parts.append(Content(safe(sentence.text)))
        for pid in sentence.cites:
            style = f"bold $accent underline @click=cite({pid})"
            parts.append(Content.styled(f"[{numbers[pid]}]", style))
        parts.append(Content(" "))
    return Content("").join(parts)


class _AnswerText(Static):
    """The answer's text; its `[n]` links run `cite`, which posts PassageChosen."""

    def action_cite(self, passage_id: int) -> None:
        self.post_message(PassageChosen(int(passage_id)))


class AnswerView(Vertical):
    """Empty until the answer stage has run."""

    def compose(self) -> ComposeResult:
        yield _AnswerText(WAITING, id="answer-text")
        yield OptionList(id="citations")

    def show(self, view: AskView) -> None:
        answer = view.answer
        options = self.query_one("#citations", OptionList)
        options.clear_options()
        text = self.query_one("#answer-text", Static)
        if answer is None:
            text.update(WAITING)
            return
        numbers = citation_numbers(answer)
        body = cited_text(answer, numbers)
        short = view.shown_leading
        if short is not None:
            marks = "".join(f"[{numbers[p]}]" for p in short["passages"] if p in numbers)
            by = view.leading_basis
            body = Content.from_markup(
                "[b]In short:[/b] $text $marks [dim]($by)[/]\n\n",
                text=safe_line(short["text"]), marks=marks, by=by,
            ) + body  # fmt: skip
        if answer.conflict:
            body += Content.from_markup("\n[b]Conflict:[/b] $c", c=safe(answer.conflict))
        generation = answer.method.get("generation", "")
        text.update(body + Content.styled(f"\n({safe_line(generation)})", "dim"))
        for pid, number in numbers.items():
            passage = view.passage(pid)
            options.add_option(
                Option(
                    Content.from_markup(
                        "[b]$n[/b] #$pid [i]$title[/i] — $text",
                        n=f"[{number}]",
                        pid=pid,
                        title=passage_label(passage, pid),
                        text=safe(passage.text if passage is not None else ""),
                    ),
                    id=f"p{pid}",
                )
            )
        if numbers:
            options.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(PassageChosen(int(event.option.id[1:])))
