"""How each screen looks, at 80×24 and 120×36 (pytest-textual-snapshot).

Look at the report (`pytest --snapshot-report`) before `--snapshot-update`."""

from __future__ import annotations

import threading

import pytest

from conflictdesk.tui.app import ConflictDeskApp
from tests.tui.conftest import settle, wait_until
from tests.tui.fake_desk import FakeDesk

SIZES = [(80, 24), (120, 36)]


def app(**kwargs) -> ConflictDeskApp:
    return ConflictDeskApp(engine=FakeDesk(**kwargs), cursor_blink=False)


def after(*keys: str, tab: str | None = None):
    """A run_before that lets the app settle, presses `keys`, then settles again."""
    async def run_before(pilot) -> None:
        await settle(pilot)
        if keys:
            await pilot.press(*keys)
        await settle(pilot)
        if tab:
            pilot.app.screen.action_show_tab(tab)
            await pilot.pause()
    return run_before


def asked(tab: str | None = None):
    return after(*"How much vitamin D?", "enter", tab=tab)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_ask_answer(snap_compare, size):
    assert snap_compare(app(), terminal_size=size, run_before=asked())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_ask_evidence(snap_compare, size):
    assert snap_compare(app(), terminal_size=size, run_before=asked("evidence"))


def test_ask_clusters(snap_compare):
    assert snap_compare(app(), terminal_size=(120, 36), run_before=asked("clusters"))


def test_ask_conflict(snap_compare):
    assert snap_compare(app(), terminal_size=(80, 24), run_before=asked("conflict"))


def test_ask_streaming_midway(snap_compare):
    desk = FakeDesk()
    desk.gate = threading.Event()

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press(*"How much vitamin D?", "enter")
        stages = pilot.app.screen.query_one("#stages")
        await wait_until(pilot, lambda: stages.states["tagging"] == "done")
        await pilot.pause()

    try:
        assert snap_compare(ConflictDeskApp(engine=desk, cursor_blink=False),
                            terminal_size=(80, 24), run_before=run_before)
    finally:
        desk.gate.set()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_collections(snap_compare, size):
    assert snap_compare(app(), terminal_size=size, run_before=after("f1"))


def test_document_view(snap_compare):
    assert snap_compare(app(), terminal_size=(80, 24),
                        run_before=after("f1", "enter", "enter", "down", "enter"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_score_result(snap_compare, size):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        screen = pilot.app.screen
        screen.query_one("#response").text = "Take 600 IU daily."
        screen.query_one("#documents").text = "600 IU.\n---\n1500 IU.\n---\nSun."
        await pilot.press("ctrl+r")
        await settle(pilot)

    assert snap_compare(app(), terminal_size=size, run_before=run_before)


def test_score_input(snap_compare):
    assert snap_compare(app(), terminal_size=(80, 24), run_before=after("f3"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_history(snap_compare, size):
    assert snap_compare(app(), terminal_size=size, run_before=after("f4"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_models(snap_compare, size):
    assert snap_compare(app(), terminal_size=size, run_before=after("f5", "v"))


def test_light_theme(snap_compare):
    assert snap_compare(app(), terminal_size=(80, 24),
                        run_before=after(*"dose?", "enter", "ctrl+t"))


def test_import_dialog(snap_compare):
    assert snap_compare(app(), terminal_size=(80, 24), run_before=after("f1", "i"))
