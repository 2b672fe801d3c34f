"""The conflictdesk terminal app: five screens (modes) over one injected Desk."""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from functools import partial
from typing import ClassVar

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from conflictdesk.app import OpenedRun
from conflictdesk.tui.desk import Desk
from conflictdesk.tui.screens.ask import AskScreen
from conflictdesk.tui.screens.collections import CollectionsScreen
from conflictdesk.tui.screens.history import HistoryScreen
from conflictdesk.tui.screens.models import ModelsScreen
from conflictdesk.tui.screens.score import ScoreScreen
from conflictdesk.tui.widgets.nav_bar import SCREENS

SCREEN_CLASSES: dict[str, type[Screen]] = {
    "collections": CollectionsScreen,
    "ask": AskScreen,
    "score": ScoreScreen,
    "history": HistoryScreen,
    "models": ModelsScreen,
}
THEMES = ("textual-dark", "textual-light")


class ConflictDeskApp(App[None]):
    """`engine` is the Desk the screens drive; `cursor_blink=False` freezes text cursors
    (snapshot tests); `start` picks the first screen (default: Ask, or Collections when the
    database has no collection yet)."""

    CSS_PATH = "app.tcss"
    TITLE = "conflictdesk"
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (100, "-wide")]
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(key, f"switch_mode('{mode}')", label, show=False, priority=True)
          for key, mode, label in SCREENS),
        Binding("ctrl+t", "toggle_theme", "Theme", show=False, priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, engine: Desk, *, start: str | None = None,
                 cursor_blink: bool = True) -> None:
        super().__init__()
        self.desk = engine
        self.start = start
        self.cursor_blink = cursor_blink
        for mode, screen_class in SCREEN_CLASSES.items():
            self.add_mode(mode, partial(screen_class, engine))

    def on_mount(self) -> None:
        self.switch_mode(self.start or self._first_mode())

    def _first_mode(self) -> str:
        try:
            return "ask" if self.desk.collections() else "collections"
        except Exception:  # noqa: BLE001 - the Collections screen shows it
            return "collections"

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if not self.cursor_blink and hasattr(event.widget, "cursor_blink"):
            event.widget.cursor_blink = False

    def action_toggle_theme(self) -> None:
        self.theme = THEMES[1] if self.theme == THEMES[0] else THEMES[0]

    async def open_run(self, mode: str, run: OpenedRun) -> None:
        """Show a stored run on its screen, exactly as stored (nothing is recomputed)."""
        await self.switch_mode(mode)
        shown = self.screen.reopen(run.view, run.summary.id)
        if inspect.isawaitable(shown):
            await shown

    async def action_import_files(self) -> None:
        await self.switch_mode("collections")
        self.screen.action_import_files()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for key, mode, label in SCREENS:
            yield SystemCommand(f"Go to {label}", f"Open the {label} screen ({key.upper()})",
                                partial(self.switch_mode, mode))
        yield SystemCommand("Import files", "Import files or a folder into a collection",
                            self.action_import_files)
        yield SystemCommand("Light / dark theme", "Toggle between the light and dark themes",
                            self.action_toggle_theme)

