"""The typed views the front ends read: an ask built stage by stage equals the one read back
from its stored run; stored score and regenerate runs read back as ScoreView."""

from __future__ import annotations

import json

from conflictdesk.analysis.pipeline import analyze
from conflictdesk.app import AskView, OpenedRun, Retrieval, RunSummary, ScoreView
from conflictdesk.generation.answer import answer
from conflictdesk.stages import ANALYSIS_STAGES, SHOWN_AS
from conflictdesk.types import Document, Passage, Relation
from tests.fakes import fake_backends

QUERY = "What is the daily dose of velsarin?"
PASSAGES = (
    Passage(1, "Velsarin is dosed at 250 mg daily.", 10, "Label 2020", "2020-01-01"),
    Passage(2, "The daily dose of velsarin is 400 mg.", 11, "Label 2023", "2023-01-01"),
    Passage(3, "Velsarin tablets are white.", 12),
)


def _stored(analysis, result) -> dict:
    output = {"analysis": analysis.to_json(), "answer": result.to_json()}
    return json.loads(json.dumps(output))


def test_an_ask_streamed_stage_by_stage_is_the_ask_read_back_from_the_store():
    backends = fake_backends()
    events: list[tuple[str, object]] = []
    analysis = analyze(QUERY, PASSAGES, backends, on_event=lambda s, v: events.append((s, v)))
    result = answer(analysis, backends)
    view = AskView(QUERY, "labels").after("retrieval", Retrieval(list(PASSAGES)))
    for event, value in events:
        view = view.after(event, value)
    assert view.tagging == analysis.tagging and view.answer is None
    assert [e for e, _ in events if e in SHOWN_AS] == list(ANALYSIS_STAGES)
    stored = AskView.from_run({"query": QUERY, "collection": "labels"}, _stored(analysis, result))
    assert stored.answer == result and stored.verdict.type == analysis.verdict.type
    assert [p.i for p in stored.detection.pairs] == [p.i for p in view.detection.pairs]
    assert stored.passages[0].document_id == 10 and stored.passage(2).title == "Label 2023"
    assert stored.disputed == view.disputed


def test_a_reworded_query_is_read_as_the_analysis_read_it_live_and_from_the_store():
    backends = fake_backends()
    typed = "velsarin daily dose"
    analysis = analyze(typed, PASSAGES, backends)
    live = AskView.start(typed, "labels")
    assert live.reworded == analysis.reworded == "What is the velsarin daily dose?"
    stored = AskView.from_run({"query": typed}, _stored(analysis, answer(analysis, backends)))
    assert stored.query == typed and stored.reworded == analysis.reworded
    assert AskView.start(QUERY).reworded == ""  # a question is read as typed


def test_inline_documents_lose_their_document_ids():
    backends = fake_backends()
    analysis = analyze(QUERY, PASSAGES, backends)
    run_input = {"query": QUERY, "documents": [{"text": p.text} for p in PASSAGES]}
    view = AskView.from_run(run_input, _stored(analysis, answer(analysis, backends)))
    assert view.collection is None and {p.document_id for p in view.passages} == {None}


SCORED = {"claims": [{"text": "It is 250 mg.", "relations": ["SUPPORTS", "CONTRADICTS"],
                      "confidences": [0.9, None]}], "cs_c": 1.0, "cs_r": 0.5, "method": "nli"}  # fmt: skip


def test_a_stored_score_reads_back_typed():
    run_input = {"response": "It is 250 mg.", "documents": ["250 mg.", {"text": "400 mg.",
                                                                       "title": "B"}]}  # fmt: skip
    view = ScoreView.from_run(run_input, SCORED)
    assert view.documents == (Document("250 mg."), Document("400 mg.", title="B"))
    (claim,) = view.claims
    assert claim.relations == (Relation.SUPPORTS, Relation.CONTRADICTS)
    assert claim.conflict and claim.confidences == (0.9, None) and view.regeneration is None


def test_a_regeneration_shows_the_revision_or_says_nothing_was_regenerated():
    run_input = {"question": "Dose?", "response": "It is 250 mg.", "documents": ["250 mg."]}
    done = {"regenerated": True, "revised_response": "It is 250 or 400 mg.", "before": SCORED,
            "after": {**SCORED, "cs_c": 0.0}, "method": "regenerate:llm"}  # fmt: skip
    view = ScoreView.from_regeneration(run_input, done)
    assert view.response == "It is 250 or 400 mg." and view.cs_c == 0.0
    assert view.regeneration.original == "It is 250 mg." and view.regeneration.cs_c_before == 1.0
    assert view.question == "Dose?" and view.method == "regenerate:llm"
    kept = ScoreView.from_regeneration(run_input, {"regenerated": False, "before": SCORED})
    assert kept.response == "It is 250 mg." and kept.regeneration.regenerated is False


def test_a_run_of_a_kind_without_a_screen_opens_with_no_view():
    summary = RunSummary(5, "detect", "2026-11-24 01:00", "claim")
    assert OpenedRun.of(summary, "detect", {"claim": "x"}, {"relations": []}).view is None
    opened = OpenedRun.of(summary, "score", {"response": "It is 250 mg."}, SCORED)
    assert isinstance(opened.view, ScoreView)
