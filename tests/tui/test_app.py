"""App-level behaviour: first screen, navigation by keys and mouse, theme, command palette."""

from __future__ import annotations

from textual.command import CommandPalette

from conflictdesk.tui.screens.ask import AskScreen
from conflictdesk.tui.screens.collections import CollectionsScreen
from conflictdesk.tui.screens.history import HistoryScreen
from conflictdesk.tui.screens.models import ModelsScreen
from conflictdesk.tui.screens.score import ScoreScreen
from tests.tui.conftest import settle, wait_until
from tests.tui.fake_desk import FakeDesk


async def test_opens_on_ask_when_collections_exist(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(pilot.app.screen, AskScreen)
        assert pilot.app.focused.id == "question"


async def test_opens_on_collections_for_an_empty_database(make_app):
    app = make_app(FakeDesk(collections=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(pilot.app.screen, CollectionsScreen)
        title = str(pilot.app.screen.query_one("#documents-title").render())
        assert "press i to import" in title


async def test_function_keys_switch_screens_even_from_a_text_box(make_app):
    expected = {"f1": CollectionsScreen, "f3": ScoreScreen, "f4": HistoryScreen,
                "f5": ModelsScreen, "f2": AskScreen}
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key, screen_class in expected.items():
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(pilot.app.screen, screen_class), key


async def test_clicking_the_nav_bar_switches_screens(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        nav = pilot.app.screen.query_one("#nav")
        offset = nav.render().plain.index("History")
        await pilot.click("#nav", offset=(offset + 1, 0))
        await settle(pilot)
        assert isinstance(pilot.app.screen, HistoryScreen)


async def test_theme_toggles_between_dark_and_light(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert pilot.app.theme == "textual-dark"
        await pilot.press("ctrl+t")
        assert pilot.app.theme == "textual-light"
        await pilot.press("ctrl+t")
        assert pilot.app.theme == "textual-dark"


async def test_command_palette_goes_to_a_screen(make_app):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
        await pilot.press(*"Go to Models")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ModelsScreen))
