"""A one-line verdict: a DISPUTED or CONSISTENT badge with κ, the stance and the type."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static

from conflictdesk.terminal import safe_line

TYPE_LABELS = {
    "no_conflict": "no conflict",
    "complementary": "complementary information",
    "conflicting_opinions": "conflicting opinions",
    "outdated": "outdated information",
    "misinformation": "misinformation",
}


def is_disputed(result: dict[str, Any]) -> bool:
    """The rule of `generation.report.is_disputed`: κ at or above the packet's τ with mass on
    both sides (κ is 1 when nothing supports or refutes, which is no dispute)."""
    score = result.get("score") or {}
    tau = float((result.get("packet") or {}).get("tau", 0.5))
    both_sides = float(score.get("u_support", 0)) > 0 and float(score.get("u_refute", 0)) > 0
    return both_sides and float(score.get("kappa", 0.0)) >= tau


class ConflictBadge(Static):
    """Empty until the κ stage has run; then the badge, κ, stance and (later) the type."""

    def show(self, result: dict[str, Any]) -> None:
        score = result.get("score")
        if not score:
            self.set_class(False, "-disputed", "-consistent")
            self.update("")
            return
        disputed = is_disputed(result)
        self.set_class(disputed, "-disputed")
        self.set_class(not disputed, "-consistent")
        badge = " DISPUTED " if disputed else " CONSISTENT "
        style = "bold $text on $error" if disputed else "bold $text on $success"
        parts = [
            Content.styled(badge, style),
            Content(f" κ {float(score.get('kappa', 0.0)):.2f}"),
            Content(f" · stance {safe_line(score.get('stance', '?'))}"),
        ]
        verdict = result.get("verdict")
        if verdict:
            label = TYPE_LABELS.get(verdict.get("type", ""), verdict.get("type", "?"))
            parts.append(Content.styled(f" · {safe_line(label)}", "bold"))
        self.update(Content("").join(parts))
