"""One ask in the app on the real embedded models (ONNX embedder, CTranslate2 NLI, ONNX pair
classifier; no LLM): the examples are imported, the question goes through every stage in a
worker thread, and the rendered result has the shape the screens promise."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from conflictdesk.app import AskView
from conflictdesk.errors import ModelMissingError
from conflictdesk.tui.app import ConflictDeskApp
from conflictdesk.tui.desk import ASK_STAGES
from conflictdesk.tui.engine import DeskEngine
from conflictdesk.tui.widgets.stage_progress import StageProgress

pytestmark = pytest.mark.integration

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "docs"
QUESTION = "What is the recommended daily dose of velsarin?"


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    from conflictdesk.app import load_settings

    db = tmp_path_factory.mktemp("db") / "desk.db"
    settings = load_settings(path=tmp_path_factory.mktemp("cfg") / "none.toml", env={}, db_path=db)
    engine = DeskEngine.open(settings)
    try:
        engine.desk.backends()
    except ModelMissingError as exc:
        pytest.skip(f"embedded models not built: {exc}")
    summary = engine.ingest([str(EXAMPLES)], "examples", lambda *a: None, threading.Event())
    assert summary.added >= 10 and not summary.cancelled
    yield engine
    engine.close()


async def _ask_in_app(engine: DeskEngine) -> tuple[AskView, list[str], str]:
    app = ConflictDeskApp(engine=engine, cursor_blink=False)
    seen: list[str] = []
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        await pilot.press(*QUESTION, "enter")
        stages = screen.query_one(StageProgress)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 240
        while not stages.status.startswith(("done", "failed")) and loop.time() < deadline:
            seen.extend(
                s for s, state in stages.states.items() if state == "done" and s not in seen
            )
            await pilot.pause(0.05)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        answer_text = str(screen.query_one("#answer-text").render())
        # On a fast machine the ask may finish before the first poll: add the final states.
        seen.extend(s for s in ASK_STAGES if stages.states.get(s) == "done" and s not in seen)
        return screen.result, seen, stages.status + "\n" + answer_text


def test_one_ask_in_the_app_on_the_real_models(engine):
    result, seen, shown = asyncio.run(_ask_in_app(engine))
    status = shown.splitlines()[0]
    assert status.startswith("done · run "), shown
    assert seen and seen[0] == "retrieval" and set(seen) <= set(ASK_STAGES)
    tags = result.tagging.tags
    assert tags and {t.tag.value for t in tags} <= {"support", "refute", "irrelevant"}
    assert all(0.0 <= t.confidence <= 1.0 for t in tags)
    assert 0.0 <= result.score.kappa <= 1.0
    assert result.verdict.type.value in {
        "no_conflict",
        "complementary",
        "conflicting_opinions",
        "outdated",
        "misinformation",
    }
    assert result.answer.sentences and "(extractive:" in shown
    run_id = int(status.rsplit(" ", 1)[1])
    assert engine.run(run_id).view.verdict == result.verdict
