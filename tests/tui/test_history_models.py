"""History reopens stored runs without recomputing; Models shows state, stages and device."""

from __future__ import annotations

from textual.widgets import DataTable, TextArea

from conflictdesk.tui.screens.ask import AskScreen
from conflictdesk.tui.screens.score import ScoreScreen
from conflictdesk.tui.widgets.stage_progress import StageProgress
from tests.tui.conftest import settle, wait_until


async def open_screen(pilot, key: str):
    await settle(pilot)
    await pilot.press(key)
    await settle(pilot)
    return pilot.app.screen


async def test_history_lists_runs_newest_first(make_app):
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot, "f4")
        table = screen.query_one("#history-table", DataTable)
        assert [table.get_row_at(i)[:2] for i in range(table.row_count)] == [
            [2, "score"], [1, "ask"]]


async def test_reopening_an_ask_renders_it_without_asking_again(make_app, desk):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await open_screen(pilot, "f4")
        await pilot.press("down", "enter")  # run 1, an ask
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, AskScreen)
        assert ("run", 1) in desk.calls
        assert not [call for call in desk.calls if call[0] == "ask"]
        assert screen.query_one("#question").value == "How much vitamin D should adults take?"
        assert screen.query_one(StageProgress).status == "done · run 1"
        assert str(screen.query_one("#badge").render()).startswith(" DISPUTED ")


async def test_reopening_a_score_shows_its_grid(make_app, desk):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await open_screen(pilot, "f4")
        await pilot.press("enter")  # run 2, a score
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ScoreScreen)
        assert not [call for call in desk.calls if call[0] == "score"]
        assert screen.query_one("#claim-table", DataTable).row_count == 3
        assert screen.query_one("#response", TextArea).text.startswith("Take 600 IU daily.")


async def test_new_runs_appear_when_history_is_shown_again(make_app):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press(*"A new question?", "enter")
        await settle(pilot)
        screen = await open_screen(pilot, "f4")
        table = screen.query_one("#history-table", DataTable)
        assert table.get_row_at(0)[:2] == [3, "ask"] and table.row_count == 3


async def test_models_lists_entries_stages_and_device(make_app):
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot, "f5")
        models = screen.query_one("#models-table", DataTable)
        rows = [models.get_row_at(i) for i in range(models.row_count)]
        assert [(r[0], str(r[2])) for r in rows] == [
            ("embedder", "present"), ("nli", "present"), ("pair", "missing")]
        stages = screen.query_one("#stages-table", DataTable)
        assert stages.get_row_at(2) == ["type", "llm:qwen", "yes"]
        summary = str(screen.query_one("#models-summary").render())
        assert "Device cpu" in summary and "press v to verify" in summary


async def test_verify_hashes_in_a_worker_and_shows_the_result(make_app, desk):
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot, "f5")
        await pilot.press("v")
        await settle(pilot)
        assert ("models", True) in desk.calls
        models = screen.query_one("#models-table", DataTable)
        assert str(models.get_row_at(0)[2]) == "verified"
        assert "sha256 verified" in str(screen.query_one("#models-summary").render())


async def test_a_models_error_is_shown(make_app, desk):
    desk.fail["models"] = OSError("manifest.json is unreadable")
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot, "f5")
        summary = str(screen.query_one("#models-summary").render())
        assert summary == "models failed: OSError: manifest.json is unreadable"


async def test_reopening_a_run_cancels_an_ask_still_running(make_app, desk):
    import threading

    desk.gate = threading.Event()
    async with make_app().run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        ask_screen = pilot.app.screen
        await pilot.press(*"Still running?", "enter")
        stages = ask_screen.query_one(StageProgress)
        await wait_until(pilot, lambda: stages.states["tagging"] == "done")
        await pilot.press("f4")
        await pilot.pause()
        table = pilot.app.screen.query_one("#history-table", DataTable)
        table.move_cursor(row=1)  # run 1
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.screen is ask_screen
        assert stages.status == "done · run 1"
        assert ask_screen.query_one("#question").value.startswith("How much vitamin D should")
        assert max(desk.runs) == 2  # the interrupted ask stored nothing
