"""DeskEngine, the production Desk, on a real in-memory store with fake back-ends."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from conflictdesk.app import Desk, IngestSummary, RunSummary, load_settings
from conflictdesk.store import Store
from conflictdesk.tui.app import ConflictDeskApp
from conflictdesk.tui.desk import ASK_STAGES, Cancelled
from conflictdesk.tui.engine import DeskEngine
from conflictdesk.types import Document, Relation
from tests.fakes import fake_backends
from tests.tui.conftest import settle, wait_until

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "docs"
QUESTION = "What is the recommended daily dose of velsarin?"


@pytest.fixture
def engine(tmp_path) -> DeskEngine:
    backends = fake_backends()
    settings = load_settings(path=tmp_path / "none.toml", env={})
    desk = Desk(settings, store=Store.open(":memory:"), load_backends=lambda roles: backends)
    return DeskEngine(desk)


@pytest.fixture
def loaded(engine) -> DeskEngine:
    engine.ingest([str(EXAMPLES)], "examples", lambda *a: None, threading.Event())
    return engine


def test_ingest_reports_each_file_and_its_errors(engine, tmp_path):
    (tmp_path / "a.txt").write_text("Velsarin is dosed at 250 mg.", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n\nVelsarin is dosed at 400 mg.", encoding="utf-8")
    bad = tmp_path / "c.exe"
    bad.write_bytes(b"MZ")
    progress = []
    summary = engine.ingest(
        [str(tmp_path / "a.txt"), str(tmp_path / "b.md"), str(bad)],
        "mine",
        lambda *event: progress.append(event),
        threading.Event(),
    )
    assert [(done, total) for done, total, _, _ in progress] == [(1, 3), (2, 3), (3, 3)]
    assert progress[0][3] is None and progress[2][3]  # the .exe has a reason
    assert summary == IngestSummary("mine", added=2, skipped=0, failed=1, passages=2)
    (mine,) = engine.collections()
    assert (mine.name, mine.documents, mine.passages) == ("mine", 2, 2) and mine.created


def test_a_cancelled_ingest_keeps_the_files_already_imported(engine):
    cancel = threading.Event()
    summary = engine.ingest([str(EXAMPLES)], "examples", lambda *a: cancel.set(), cancel)
    assert summary.cancelled is True and summary.added >= 1
    assert engine.collections()[0].documents == summary.added


def test_documents_and_their_passages_in_order(loaded):
    documents = loaded.documents("examples")
    assert len(documents) >= 10
    passages = loaded.passages(documents[0].id)
    assert passages and all(p.document_id == documents[0].id for p in passages)
    order = [p.metadata["order"] for p in passages]
    assert order == sorted(order)


def test_ask_streams_every_stage_stores_the_run_and_reopens_it(loaded):
    events = []
    run_id, view = loaded.ask(QUESTION, "examples", lambda s, v: events.append((s, v)),
                              threading.Event())  # fmt: skip
    stages = [stage for stage, _ in events]
    assert sorted(set(stages), key=stages.index) == list(ASK_STAGES)
    tagged = next(shown for stage, shown in events if stage == "tagging")
    assert tagged.passages and tagged.tagging is not None and tagged.answer is None
    assert events[-1][0] == "answer" and events[-1][1].answer is not None
    assert view.answer.sentences and view.verdict is not None and view.collection == "examples"
    stored = loaded.run(run_id)
    assert stored.summary.kind == "ask" and stored.view == view
    assert loaded.history()[0] == RunSummary(run_id, "ask", stored.summary.created, QUESTION)


def test_the_tui_ask_embeds_the_query_once_and_no_stored_passage(loaded):
    embedder = loaded.desk.backends(("embedder",)).embedder
    calls = len(embedder.history)
    _, view = loaded.ask(QUESTION, "examples", lambda *event: None, threading.Event())
    encoded = [text for call in embedder.history[calls:] for text in call]
    assert encoded.count(QUESTION) == 1
    assert view.passages and not {p.text for p in view.passages} & set(encoded)


def test_a_cancelled_ask_raises_and_stores_nothing(loaded):
    cancel = threading.Event()

    def on_event(stage, partial):
        if stage == "tagging":
            cancel.set()

    with pytest.raises(Cancelled):
        loaded.ask(QUESTION, "examples", on_event, cancel)
    assert loaded.history() == []


def test_score_is_stored_and_reopened(engine):
    documents = [
        Document("Velsarin is dosed at 250 mg.", title="A"),
        Document("Velsarin is dosed at 400 mg.", title="B"),
    ]
    run_id, view = engine.score("Velsarin is dosed at 250 mg.", documents, threading.Event())
    assert view.claims[0].relations == (Relation.SUPPORTS, Relation.CONTRADICTS)
    assert view.cs_c == 1.0 and view.documents == tuple(documents)
    assert engine.run(run_id).view == view


async def test_the_app_asks_through_the_engine_in_a_worker(loaded):
    app = ConflictDeskApp(engine=loaded, cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press(*QUESTION, "enter")
        stages = pilot.app.screen.query_one("#stages")
        await wait_until(pilot, lambda: stages.status.startswith(("done", "failed")), 30)
        assert stages.status == f"done · run {loaded.history()[0].id}"
        assert str(pilot.app.screen.query_one("#answer-text").render()).strip()
