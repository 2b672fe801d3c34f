"""Why the evidence conflicts: the CONFLICTS type and rationale, the conflicting pairs and
the resolution rule the answer follows."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from conflictdesk.analysis.types import ConflictPair, PairDetection
from conflictdesk.app import AskView
from conflictdesk.terminal import safe, safe_line
from conflictdesk.tui.widgets.conflict_badge import TYPE_LABELS

EMPTY = "The conflict type appears once the pairs are judged."


class ConflictPanel(VerticalScroll):
    """Renders whatever of verdict, detection and resolution the result holds so far."""

    def compose(self):
        yield Static(EMPTY, id="conflict-text")

    def show(self, view: AskView) -> None:
        self.query_one("#conflict-text", Static).update(self.describe(view))

    @staticmethod
    def describe(view: AskView) -> Content:
        lines: list[Content] = []
        if view.verdict is not None:
            lines.append(
                Content.from_markup(
                    "[b]Type:[/b] $label  [dim]($method)[/]",
                    label=TYPE_LABELS[view.verdict.type],
                    method=safe_line(view.verdict.method),
                )
            )
            lines.append(
                Content.from_markup("[b]Why:[/b] $why", why=safe(view.verdict.rationale or "—"))
            )
        if view.resolution is not None:
            lines.append(
                Content.from_markup(
                    "[b]Resolution:[/b] $rule — $why",
                    rule=safe_line(view.resolution.rule),
                    why=safe(view.resolution.rationale),
                )
            )
        if view.detection is not None:
            lines += _pair_lines(view.detection)
        return Content("\n").join(lines) if lines else Content(EMPTY)


def _pair_lines(detection: PairDetection) -> list[Content]:
    """The judged pairs, conflicting and most probable first."""
    pairs = sorted(detection.pairs, key=lambda p: (not p.conflict, -p.conflict_prob))
    lines = [
        Content.from_markup(
            "[b]Pairs:[/b] $n judged, $c conflicting (τ_c $tau, $method)",
            n=len(pairs),
            c=len(detection.conflicting),
            tau=detection.tau_c,
            method=safe_line(detection.method),
        )
    ]
    return lines + [_pair_line(pair) for pair in pairs]


def _pair_line(pair: ConflictPair) -> Content:
    mark = "[$error]✗ conflict[/]" if pair.conflict else "[dim]· agree[/]"
    return Content.from_markup(
        f"  {mark} #$i ↔ #$j  $type p=$p [dim]($stage)[/]",
        i=pair.i,
        j=pair.j,
        type=safe_line(pair.pair_type.value),
        p=f"{pair.conflict_prob:.2f}",
        stage=safe_line(pair.stage),
    )
