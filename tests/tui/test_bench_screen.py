"""The Bench screen: stored runs listed newest first, the selected run's progress read again
while it runs, and its metric table; everything through the Desk's bench methods."""

from __future__ import annotations

import dataclasses

from textual.widgets import DataTable, ProgressBar, Static

from conflictdesk.tui.screens.bench import BenchScreen
from tests.tui.conftest import settle, wait_until


async def open_bench(pilot) -> BenchScreen:
    await settle(pilot)
    await pilot.press("f6")
    await settle(pilot)
    assert isinstance(pilot.app.screen, BenchScreen)
    return pilot.app.screen


def status_text(screen: BenchScreen) -> str:
    return str(screen.query_one("#bench-status", Static).render())


async def test_runs_newest_first_with_the_selected_runs_metrics(make_app, desk):
    async with make_app().run_test(size=(110, 34)) as pilot:
        screen = await open_bench(pilot)
        runs = screen.query_one("#bench-runs", DataTable)
        assert [runs.get_row_at(i)[:2] for i in range(runs.row_count)] == [
            [2, "ragability"], [1, "conflicts"]]  # fmt: skip
        assert runs.get_row_at(0)[3] == "22/40"
        scores = screen.query_one("#bench-scores", DataTable)
        assert [scores.get_row_at(i)[:3] for i in range(scores.row_count)] == [
            ["correct_answer_all", "ask:no-llm", "0.750"],
            ["correct_answer_all", "gguf:smollm2", "0.500"],
        ]  # fmt: skip
        assert screen.query_one("#bench-progress", ProgressBar).percentage == 22 / 40
        assert "22 of 40 checks" in status_text(screen)


async def test_progress_of_a_running_run_updates_live(make_app, desk):
    async with make_app().run_test(size=(110, 34)) as pilot:
        screen = await open_bench(pilot)
        assert "running or stopped" in status_text(screen)
        desk.bench[0] = dataclasses.replace(desk.bench[0], responses=40, checks=40,
                                            finished="2026-11-24T01:05:00+00:00")  # fmt: skip
        await wait_until(pilot, lambda: "40 of 40 checks" in status_text(screen))
        assert "finished" in status_text(screen)
        assert screen.query_one("#bench-progress", ProgressBar).percentage == 1.0
        assert screen.query_one("#bench-runs", DataTable).get_row_at(0)[3] == "40/40"


async def test_moving_to_another_run_shows_its_table(make_app, desk):
    async with make_app().run_test(size=(110, 34)) as pilot:
        screen = await open_bench(pilot)
        await pilot.press("down")
        await wait_until(pilot, lambda: screen.selected == 1 and ("bench_scores", 1) in desk.calls)
        await settle(pilot)
        scores = screen.query_one("#bench-scores", DataTable)
        assert [scores.get_row_at(i)[0] for i in range(scores.row_count)] == [
            "expected_behaviour", "answer_recall", "type_accuracy"]  # fmt: skip
        assert "rule-check" in status_text(screen) and "finished" in status_text(screen)


async def test_a_failing_read_is_shown(make_app, desk):
    desk.fail["bench_runs"] = RuntimeError("database is locked")
    async with make_app().run_test(size=(110, 34)) as pilot:
        screen = await open_bench(pilot)
        await wait_until(pilot, lambda: "database is locked" in status_text(screen))
