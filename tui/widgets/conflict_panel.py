"""Why the evidence conflicts: the CONFLICTS type and rationale, the conflicting pairs and
the resolution rule the answer follows."""

from __future__ import annotations

from typing import Any

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from conflictdesk.terminal import safe, safe_line
from conflictdesk.tui.widgets.conflict_badge import TYPE_LABELS


class ConflictPanel(VerticalScroll):
    """Renders whatever of verdict, detection and resolution the result holds so far."""

    def compose(self):
        yield Static("The conflict type appears once the pairs are judged.", id="conflict-text")

    def show(self, result: dict[str, Any]) -> None:
        self.query_one("#conflict-text", Static).update(self.describe(result))

    @staticmethod
    def describe(result: dict[str, Any]) -> Content:
        lines: list[Content] = []
        verdict = result.get("verdict")
        if verdict:
            label = TYPE_LABELS.get(verdict.get("type", ""), verdict.get("type", "?"))
            lines.append(
                Content.from_markup(
                    "[b]Type:[/b] $label  [dim]($method)[/]",
                    label=safe_line(label),
                    method=safe_line(verdict.get("method", "")),
                )
            )
            lines.append(
                Content.from_markup("[b]Why:[/b] $why", why=safe(verdict.get("rationale") or "—"))
            )
        resolution = result.get("resolution")
        if resolution:
            lines.append(
                Content.from_markup(
                    "[b]Resolution:[/b] $rule — $why",
                    rule=safe_line(resolution.get("rule", "?")),
                    why=safe(resolution.get("rationale") or ""),
                )
            )
        detection = result.get("detection")
        if detection:
            pairs = sorted(
                detection.get("pairs") or [],
                key=lambda p: (not p.get("conflict"), -float(p.get("conflict_prob", 0))),
            )
            conflicting = sum(bool(p.get("conflict")) for p in pairs)
            lines.append(
                Content.from_markup(
                    "[b]Pairs:[/b] $n judged, $c conflicting (τ_c $tau, $method)",
                    n=len(pairs),
                    c=conflicting,
                    tau=detection.get("tau_c", "?"),
                    method=safe_line(detection.get("method", "")),
                )
            )
            for pair in pairs:
                mark = "[$error]✗ conflict[/]" if pair.get("conflict") else "[dim]· agree[/]"
                lines.append(
                    Content.from_markup(
                        f"  {mark} #$i ↔ #$j  $type p=$p [dim]($stage)[/]",
                        i=pair.get("i"),
                        j=pair.get("j"),
                        type=safe_line(pair.get("type", "")),
                        p=f"{float(pair.get('conflict_prob', 0.0)):.2f}",
                        stage=safe_line(pair.get("stage", "")),
                    )
                )
        if not lines:
            return Content("The conflict type appears once the pairs are judged.")
        return Content("\n").join(lines)
