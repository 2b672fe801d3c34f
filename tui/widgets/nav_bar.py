"""The top bar: one clickable entry per screen, the current one highlighted."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

SCREENS: tuple[tuple[str, str, str], ...] = (
    ("f1", "collections", "Collections"),
    ("f2", "ask", "Ask"),
    ("f3", "score", "Score"),
    ("f4", "history", "History"),
    ("f5", "models", "Models"),
)


class NavBar(Static):
    """Shows `F1 Collections  F2 Ask …`; a click switches the app's mode."""

    def __init__(self, current: str) -> None:
        super().__init__(self.content_for(current), id="nav")

    @staticmethod
    def content_for(current: str) -> Content:
        items = []
        for key, mode, label in SCREENS:
            style = "reverse bold" if mode == current else "bold"
            items.append(
                f"[@click=app.switch_mode('{mode}')][dim]{key.upper()}[/dim] "
                f"[{style}]{label}[/{style}][/] "
            )
        return Content.from_markup("[bold $accent]conflictdesk[/]  " + " ".join(items))
