"""Ask: stage-by-stage streaming, cancel, errors, the views and opening cited passages."""

from __future__ import annotations

import threading

from textual.widgets import OptionList, TabbedContent

from conflictdesk.tui.screens.document import DocumentScreen
from conflictdesk.tui.widgets.stage_progress import StageProgress
from tests.tui.conftest import settle, wait_until


async def ask(pilot, question: str = "How much vitamin D?") -> None:
    await settle(pilot)
    await pilot.press(*question, "enter")


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector).render())


async def test_stages_stream_in_and_the_result_is_rendered(make_app, desk):
    desk.gate = threading.Event()  # hold the ask after the tagging stage
    async with make_app().run_test(size=(100, 30)) as pilot:
        await ask(pilot)
        screen = pilot.app.screen
        stages = screen.query_one(StageProgress)
        await wait_until(pilot, lambda: stages.states["tagging"] == "done")
        assert stages.states["clusters"] == "running"
        assert stages.states["answer"] == "waiting"
        assert screen.query_one("#support-list", OptionList).option_count == 2
        assert "appears here once every stage" in text_of(screen, "#answer-text")
        assert text_of(screen, "#badge") == ""  # κ not computed yet
        assert not screen.query_one("#read-as").display  # a question is read as typed
        desk.gate.set()
        await settle(pilot)
        assert set(stages.states.values()) == {"done"}
        assert stages.status == "done · run 3"
        assert ("ask", ("How much vitamin D?", "vitamin-d")) in desk.calls
        assert text_of(screen, "#badge").startswith(" DISPUTED  κ 0.74")
        assert "conflicting opinions" in text_of(screen, "#badge")


async def test_a_reworded_query_says_how_it_was_read_while_the_stages_run(make_app, desk):
    desk.gate = threading.Event()
    async with make_app().run_test(size=(100, 30)) as pilot:
        await ask(pilot, "vitamin D daily dose")
        screen = pilot.app.screen
        stages = screen.query_one(StageProgress)
        await wait_until(pilot, lambda: stages.states["tagging"] == "done")
        read_as = screen.query_one("#read-as")
        assert read_as.display
        assert text_of(screen, "#read-as") == "read as: What is the vitamin D daily dose?"
        desk.gate.set()
        await settle(pilot)
        assert text_of(screen, "#read-as") == "read as: What is the vitamin D daily dose?"
        assert ("ask", ("vitamin D daily dose", "vitamin-d")) in desk.calls


async def test_evidence_has_three_columns_sorted_by_confidence(make_app):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await ask(pilot)
        await settle(pilot)
        screen = pilot.app.screen
        support = screen.query_one("#support-list", OptionList)
        ids = [support.get_option_at_index(i).id for i in range(support.option_count)]
        assert ids == ["p11", "p12"]
        assert screen.query_one("#refute-list", OptionList).option_count == 2
        assert screen.query_one("#irrelevant-list", OptionList).option_count == 1
        assert "Support (2)" in text_of(screen, "#support-title")
        assert "0.93 #11" in str(support.get_option_at_index(0).prompt)


async def test_clusters_side_by_side_and_conflict_explained(make_app):
    async with make_app().run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await settle(pilot)
        screen = pilot.app.screen
        await pilot.press("tab", "3")  # leave the question box, then the Clusters tab
        await pilot.pause()
        assert screen.query_one("#ask-tabs", TabbedContent).active == "clusters"
        cards = list(screen.query(".cluster-card"))
        assert [card.border_title for card in cards][:2] == [
            "Cluster 0 · support 0.95", "Cluster 1 · refute 0.90"]
        assert cards[0].region.y == cards[1].region.y and cards[0].region.x < cards[1].region.x
        screen.action_show_tab("evidence")
        screen.query_one("#support-list").focus()  # focus inside a pane, then switch
        await pilot.press("4")
        await pilot.pause()
        assert screen.query_one("#ask-tabs", TabbedContent).active == "conflict"
        conflict = text_of(screen, "#conflict-text")
        assert "Type: conflicting opinions" in conflict
        assert "Why: Two expert bodies recommend different daily doses." in conflict
        assert "✗ conflict #11 ↔ #21" in conflict


async def test_selecting_a_citation_shows_the_passage_in_its_document(make_app, desk):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await ask(pilot)
        await settle(pilot)
        screen = pilot.app.screen
        assert "advises 1500 to 2000 IU daily.[1][2]" in text_of(screen, "#answer-text")
        citations = screen.query_one("#citations", OptionList)
        assert citations.option_count == 3
        citations.focus()
        await pilot.press("down", "down", "enter")  # [3] -> passage 21
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, DocumentScreen))
        await pilot.pause()
        document = pilot.app.screen
        assert ("passages", 2) in desk.calls
        chosen = document.query(".doc-passage.-chosen")
        assert len(chosen) == 1 and "600 IU per day" in str(chosen.first().render())
        assert "IOM report 2010" in text_of(document, "#document-heading")


async def test_clicking_a_citation_marker_opens_the_passage(make_app):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await ask(pilot)
        await settle(pilot)
        answer = pilot.app.screen.query_one("#answer-text")
        column = str(answer.render()).index("[2]")  # on the first line
        await pilot.click("#answer-text", offset=(column + 2, 0))  # left padding 1
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, DocumentScreen))
        await pilot.pause()
        chosen = pilot.app.screen.query(".doc-passage.-chosen")
        assert "up to 4000 IU are safe" in str(chosen.first().render())


async def test_escape_cancels_and_keeps_the_partial_result(make_app, desk):
    desk.gate = threading.Event()
    async with make_app().run_test(size=(100, 30)) as pilot:
        await ask(pilot)
        screen = pilot.app.screen
        stages = screen.query_one(StageProgress)
        await wait_until(pilot, lambda: stages.states["tagging"] == "done")
        await pilot.press("escape")
        await settle(pilot)
        assert stages.status == "cancelled · partial kept"
        assert stages.states["clusters"] == "cancelled"
        assert screen.query_one("#refute-list", OptionList).option_count == 2
        assert max(desk.runs) == 2  # nothing stored


async def test_an_engine_error_is_shown_and_the_app_keeps_running(make_app, desk):
    desk.fail["ask"] = RuntimeError("the NLI model is missing: run scripts/build_nli.py")
    async with make_app().run_test(size=(100, 30)) as pilot:
        await ask(pilot)
        await settle(pilot)
        screen = pilot.app.screen
        error = text_of(screen, "#ask-error")
        assert error == "ask failed: RuntimeError: the NLI model is missing: run scripts/build_nli.py"
        assert screen.query_one(StageProgress).status == "failed"
        del desk.fail["ask"]
        await pilot.press("enter")  # asking again works
        await settle(pilot)
        assert screen.query_one(StageProgress).status == "done · run 3"
        assert not screen.query_one("#ask-error").display


async def test_an_empty_question_is_refused_without_calling_the_engine(make_app, desk):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert text_of(pilot.app.screen, "#ask-error") == "Type a question first."
        assert not [call for call in desk.calls if call[0] == "ask"]


async def test_the_answer_opens_with_the_short_answer_of_a_wh_question(make_app, monkeypatch):
    import dataclasses

    from conflictdesk.analysis.types import Candidate
    from tests.tui import fake_desk

    frame = dataclasses.replace(
        fake_desk.TAGGING.frame, leading="1500 IU",
        candidates=(Candidate("1500 IU", "number", (11, 12), 1.0),),
    )  # fmt: skip
    tagging = dataclasses.replace(fake_desk.TAGGING, frame=frame)
    full = fake_desk.full_ask
    monkeypatch.setattr(
        fake_desk, "full_ask", lambda q: dataclasses.replace(full(q), tagging=tagging))
    async with make_app().run_test(size=(100, 30)) as pilot:
        await ask(pilot)
        await settle(pilot)
        text = text_of(pilot.app.screen, "#answer-text")
        # passages 11 and 12; the fake's rule is "viewpoints" (opinions)
        assert text.startswith(
            "In short: 1500 IU [1][2] (most passages; the sources give several answers)")
        assert "The Endocrine Society advises" in text
