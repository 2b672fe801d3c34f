"""Score: pasting or loading a response and documents, the claim grid, regenerate."""

from __future__ import annotations

import json

from textual.widgets import DataTable, Input, TabbedContent, TextArea

from conflictdesk.app import ScoredClaim, ScoreView
from conflictdesk.tui.screens.score import format_documents, parse_documents
from conflictdesk.types import Document, Relation
from tests.tui.conftest import settle
from tests.tui.fake_desk import FakeDesk


def test_documents_are_split_on_separator_lines_with_optional_titles():
    text = "# IOM 2010\n600 IU is enough.\n---\n\n4000 IU is safe.\n---\n"
    assert parse_documents(text) == [
        Document("600 IU is enough.", title="IOM 2010"),
        Document("4000 IU is safe."),
    ]
    assert parse_documents(format_documents(parse_documents(text))) == parse_documents(text)


async def open_score(pilot):
    await settle(pilot)
    await pilot.press("f3")
    await settle(pilot)
    return pilot.app.screen


async def fill(screen, response: str, documents: str) -> None:
    screen.query_one("#response", TextArea).text = response
    screen.query_one("#documents", TextArea).text = documents


async def test_scoring_shows_the_grid_conflicted_claims_first(make_app, desk):
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_score(pilot)
        await fill(screen, "Take 600 IU daily.", "# A\n600 IU.\n---\n# B\n1500 IU.")
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert desk.calls[-1] == (
            "score",
            (
                "Take 600 IU daily.",
                [Document("600 IU.", title="A"), Document("1500 IU.", title="B")],
            ),
        )
        assert screen.query_one("#score-tabs", TabbedContent).active == "score-result"
        summary = str(screen.query_one("#cs-summary").render())
        assert "CS-C 0.33  CS-R 0.50" in summary and "1 of 3 claims conflicted" in summary
        table = screen.query_one("#claim-table", DataTable)
        assert table.row_count == 3
        first = table.get_row_at(0)
        assert [cell.plain for cell in first] == ["!", " C ", " S ", " · ", "Take 600 IU daily."]
        assert [table.get_row_at(i)[-1].plain for i in (1, 2)] == [
            "Sunlight alone is never enough.",
            "Doses above 4000 IU harm.",
        ]  # response order
        assert "D1 Endocrine Society 2011: CONTRADICTS 0.81" in str(
            screen.query_one("#claim-detail").render()
        )


async def test_missing_input_is_refused_without_calling_the_engine(make_app, desk):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await open_score(pilot)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert not [call for call in desk.calls if call[0] == "score"]
        assert any("Give a response" in str(n.message) for n in pilot.app._notifications)


async def test_loading_a_json_file_fills_the_form(make_app, tmp_path):
    path = tmp_path / "case.json"
    path.write_text(
        json.dumps(
            {
                "question": "Dose?",
                "response": "Take 600 IU.",
                "documents": ["600 IU.", {"title": "B", "text": "1500 IU."}],
            }
        )
    )
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_score(pilot)
        screen.query_one("#load-path", Input).focus()
        await pilot.press(*str(path), "enter")
        await pilot.pause()
        assert screen.query_one("#score-question", Input).value == "Dose?"
        assert screen.query_one("#response", TextArea).text == "Take 600 IU."
        assert screen.query_one("#documents", TextArea).text == "600 IU.\n---\n# B\n1500 IU."
        await pilot.press("ctrl+r")  # focus is still in the file box on the Input tab
        await settle(pilot)
        assert screen.query_one("#score-tabs", TabbedContent).active == "score-result"
        assert pilot.app.focused.id == "claim-table"


async def test_a_bad_file_is_reported(make_app, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_score(pilot)
        screen.query_one("#load-path", Input).focus()
        await pilot.press(*str(path), "enter")
        await pilot.pause()
        messages = [str(n.message) for n in pilot.app._notifications]
        assert any(m.startswith(f"Could not load {path}") for m in messages)
        assert screen.query_one("#response", TextArea).text == ""


async def test_regenerate_needs_a_question_then_shows_the_revision(make_app, desk):
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_score(pilot)
        assert screen.check_action("regenerate", ()) is None  # nothing scored yet
        await fill(screen, "Take 600 IU daily.", "600 IU.\n---\n1500 IU.")
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.check_action("regenerate", ()) is True
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert pilot.app.focused.id == "score-question"
        assert not [call for call in desk.calls if call[0] == "regenerate"]
        await pilot.press(*"How much?", "ctrl+g")
        await settle(pilot)
        assert desk.calls[-1] == ("regenerate", ("How much?", "Take 600 IU daily."))
        note = str(screen.query_one("#regenerated").render())
        assert "CS-C before 0.333" in note and "Original: Take 600 IU daily." in note
        assert "CS-C 0.00" in str(screen.query_one("#cs-summary").render())


async def test_regenerate_is_unavailable_without_a_gguf_model(make_app):
    app = make_app(FakeDesk(llm=False))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_score(pilot)
        await fill(screen, "Take 600 IU daily.", "600 IU.")
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.check_action("regenerate", ()) is None


async def test_a_scoring_error_is_shown(make_app, desk):
    desk.fail["score"] = ValueError("document 2 is empty")
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_score(pilot)
        await fill(screen, "Take 600 IU daily.", "600 IU.")
        await pilot.press("ctrl+r")
        await settle(pilot)
        status = str(screen.query_one("#score-status").render())
        assert status == "score failed: ValueError: document 2 is empty"


def test_claims_are_ordered_conflicted_then_contradicted_then_in_response_order():
    from conflictdesk.tui.widgets.claim_grid import ordered_claims

    s, c, i = Relation.SUPPORTS, Relation.CONTRADICTS, Relation.IRRELEVANT
    claims = [ScoredClaim("a", (s, i)), ScoredClaim("b", (c, i)),
              ScoredClaim("c", (s, c), conflict=True), ScoredClaim("d", (i, i))]  # fmt: skip
    assert [claim.text for claim in ordered_claims(claims)] == ["c", "b", "a", "d"]


async def test_a_response_without_claims_says_why_the_scores_are_undefined(make_app, desk):
    def no_claims(response, documents, cancel):
        return 9, ScoreView(response, tuple(documents), method="variant=full; claims=llm(tiny)")

    desk.score = no_claims
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_score(pilot)
        await fill(screen, "Hmm.", "600 IU.")
        await pilot.press("ctrl+r")
        await settle(pilot)
        summary = str(screen.query_one("#cs-summary").render())
        assert "CS-C —  CS-R —  0 of 0 claims" in summary and "claims=llm(tiny)" in summary
        assert "No claims were extracted" in str(screen.query_one("#claim-detail").render())
