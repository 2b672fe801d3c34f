"""A one-line verdict: a DISPUTED or CONSISTENT badge with κ, the stance and the type."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from conflictdesk.app import AskView
from conflictdesk.terminal import safe_line
from conflictdesk.types import ConflictType

TYPE_LABELS = {
    ConflictType.NO_CONFLICT: "no conflict",
    ConflictType.COMPLEMENTARY: "complementary information",
    ConflictType.CONFLICTING_OPINIONS: "conflicting opinions",
    ConflictType.OUTDATED: "outdated information",
    ConflictType.MISINFORMATION: "misinformation",
}


class ConflictBadge(Static):
    """Empty until the κ stage has run; then the badge, κ, stance and (later) the type."""

    def show(self, view: AskView) -> None:
        score = view.score
        if score is None:
            self.set_class(False, "-disputed", "-consistent")
            self.update("")
            return
        disputed = view.disputed
        self.set_class(disputed, "-disputed")
        self.set_class(not disputed, "-consistent")
        badge = " DISPUTED " if disputed else " CONSISTENT "
        style = "bold $text on $error" if disputed else "bold $text on $success"
        parts = [
            Content.styled(badge, style),
            Content(f" κ {score.kappa:.2f}"),
            Content(f" · stance {safe_line(score.stance.value)}"),
        ]
        if view.verdict is not None:
            label = TYPE_LABELS[view.verdict.type]
            parts.append(Content.styled(f" · {safe_line(label)}", "bold"))
        self.update(Content("").join(parts))
