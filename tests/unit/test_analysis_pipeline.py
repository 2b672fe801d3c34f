"""The analysis pipeline: stage order, events, cancellation, methods, JSON."""

from __future__ import annotations

import json
import threading

import pytest

from conflictdesk.analysis.pipeline import (
    STAGES,
    AnalysisCancelled,
    AnalysisOptions,
    analyze,
    default_type_model,
)
from conflictdesk.analysis.types import Analysis
from conflictdesk.errors import UsageError
from conflictdesk.types import ConflictType, Passage
from tests.fakes import MemoryCache, fake_backends

PASSAGES = [
    Passage(0, "Season 5 of Prison Break premiered on April 4, 2017 on Fox."),
    Passage(1, "The fifth season of Prison Break premiered on April 4, 2017."),
    Passage(2, "Season 5 of Prison Break was released on May 30, 2017."),
    Passage(3, "Bananas are a yellow fruit rich in potassium."),
]
QUERY = "When did season 5 of Prison Break come out?"


def test_stages_run_in_order_and_report_events():
    events = []
    analysis = analyze(
        QUERY, PASSAGES, fake_backends(), on_event=lambda s, r: events.append((s, r))
    )
    assert [stage for stage, _ in events] == ["embed", *STAGES]
    results = dict(events)
    assert tuple(results["embed"][0]) == analysis.passages
    assert results["tag"] is analysis.tagging and results["resolve"] is analysis.resolution
    assert set(analysis.timings) == {"embed", *STAGES}
    assert all(ms >= 0 for ms in analysis.timings.values())
    assert set(analysis.packet.passage_ids) <= {p.id for p in PASSAGES}
    assert (
        len(analysis.pairs)
        == len(analysis.packet.passage_ids) * (len(analysis.packet.passage_ids) - 1) // 2
    )


# The shipped type model reads the fake embedder's vectors only if it has no subjectivity
# probe (the probe is trained on the shipped embedder's); otherwise the rules run and say why.
FAKE_EMBEDDER_TYPING = (
    "model:conflictdesk-type-lr@"
    if default_type_model().probe is None
    else "rules (type model conflictdesk-type-lr@"
)


def test_inline_documents_get_cosine_relevance_and_methods_say_so():
    analysis = analyze(QUERY, PASSAGES, fake_backends())
    assert analysis.methods["relevance"] == "embedding-cosine"
    rel = {p.id: p.relevance for p in analysis.passages}
    assert rel[3] < min(rel[0], rel[1], rel[2])
    assert analysis.methods["classify"].startswith(FAKE_EMBEDDER_TYPING)
    assert analysis.methods["llm"] == "none"
    assert analysis.tagging.frame.leading == "April 4, 2017"


def test_retrieval_scores_are_kept():
    scored = [Passage(p.id, p.text, relevance=1.0 / (1 + p.id)) for p in PASSAGES]
    analysis = analyze(QUERY, scored, fake_backends())
    assert analysis.methods["relevance"] == "retrieval"
    assert [p.relevance for p in analysis.passages] == [p.relevance for p in scored]


def test_analysis_serialises_to_json():
    analysis = analyze(QUERY, PASSAGES, fake_backends())
    blob = json.loads(json.dumps(analysis.to_json()))
    assert blob["verdict"]["type"] in {t.value for t in ConflictType}
    assert blob["score"]["kappa"] == pytest.approx(analysis.kappa, abs=1e-6)
    assert len(blob["tagging"]["tags"]) == len(PASSAGES)


def test_cancel_between_stages():
    cancel = threading.Event()

    def stop_after_tag(stage, _result):
        if stage == "tag":
            cancel.set()

    seen = []
    with pytest.raises(AnalysisCancelled, match="cluster"):
        analyze(
            QUERY,
            PASSAGES,
            fake_backends(),
            on_event=lambda s, r: (seen.append(s), stop_after_tag(s, r)),
            options=AnalysisOptions(cancel=cancel),
        )
    assert seen == ["embed", "tag"]


def test_llm_is_used_for_typing_when_configured():
    backends = fake_backends(with_llm=True)
    # τ_c = 0: stage 1 is confident everywhere, but passage 2's answer (May 30) differs from
    # passages 0 and 1 (April 4), so those two pairs still go to the LLM (stage 2).
    pair_answer = {"conflict": True, "type": "factual", "reason": "different dates"}
    backends.llm.enqueue(pair_answer, pair_answer)
    backends.llm.default = '{"explanation": "one wrong source", "category": 5}'
    analysis = analyze(QUERY, PASSAGES, backends, options=AnalysisOptions(tau_c=0.0))
    routed = {frozenset((p.i, p.j)) for p in analysis.pairs if p.stage == "llm"}
    assert routed == {frozenset((0, 2)), frozenset((1, 2))}
    assert analysis.verdict.type is ConflictType.MISINFORMATION
    assert analysis.verdict.method == "llm:fake-llm"
    assert analysis.resolution.rule == "entropy_topsis"
    off = analyze(
        QUERY, PASSAGES, fake_backends(with_llm=True), options=AnalysisOptions(use_llm=False)
    )
    assert off.verdict.method.startswith(FAKE_EMBEDDER_TYPING)
    assert (off.verdict.confidence is not None) is off.verdict.method.startswith("model:")


def test_cache_makes_a_second_run_model_free_for_nli():
    backends, cache = fake_backends(), MemoryCache()
    analyze(QUERY, PASSAGES, backends, cache=cache)
    calls = len(backends.nli.history)
    analyze(QUERY, PASSAGES, backends, cache=cache)
    assert len(backends.nli.history) == calls


def test_bad_input_is_a_usage_error():
    with pytest.raises(UsageError):
        analyze("  ", PASSAGES, fake_backends())
    with pytest.raises(UsageError):
        analyze(QUERY, [], fake_backends())
    with pytest.raises(UsageError):
        analyze(QUERY, [PASSAGES[0], PASSAGES[0]], fake_backends())


def test_stored_passage_vectors_are_reused():
    backends = fake_backends()
    vectors = backends.embedder.embed([p.text for p in PASSAGES])
    backends.embedder.history.clear()
    known = {p.id: vectors[i] for i, p in enumerate(PASSAGES[:3])}
    with_vectors = analyze(QUERY, PASSAGES, backends, passage_vectors=known)
    assert backends.embedder.history[0] == [QUERY, PASSAGES[3].text]
    plain = analyze(QUERY, PASSAGES, fake_backends())
    assert with_vectors.tags == plain.tags


def test_stored_analysis_round_trips_through_json():
    from conflictdesk.analysis.serial import analysis_from_json

    backends = fake_backends()
    for opts in (AnalysisOptions(), AnalysisOptions(tau_c=1.0)):  # all pairs via NLI, too
        blob = json.loads(json.dumps(analyze(QUERY, PASSAGES, backends, options=opts).to_json()))
        again = analysis_from_json(blob)
        assert again.to_json() == blob
        assert again.verdict.type.value == blob["verdict"]["type"]


def test_malformed_stored_analysis_is_an_input_error():
    from conflictdesk.analysis.serial import analysis_from_json
    from conflictdesk.errors import InputError

    with pytest.raises(InputError):
        analysis_from_json({"query": "q"})


def test_the_analysis_runs_the_cascade_first_tier_unless_asked_for_the_cascade():
    from conflictdesk.backends.cascade_nli import CascadeNLI
    from tests.fakes import FakeNLI

    backends = fake_backends()
    fast = backends.nli
    accurate = FakeNLI()
    accurate.model_id = "fake-accurate"
    backends.nli = CascadeNLI(fast, accurate, 1.01)  # every pair would reach the second tier
    default = analyze(QUERY, PASSAGES, backends)
    assert default.tagging.method == f"nli:{fast.model_id}" and accurate.history == []
    assert backends.nli.routed == {"fast": 0, "accurate": 0}
    full = analyze(QUERY, PASSAGES, backends, options=AnalysisOptions(cascade=True))
    assert full.tagging.method == f"nli:{backends.nli.model_id}" and accurate.history


def test_a_reworded_query_is_read_as_its_question_and_shown_as_typed():
    typed = "Prison Break season 5 release date"
    analysis = analyze(typed, PASSAGES, fake_backends())
    assert analysis.query == typed  # what the user typed is what the output shows
    assert analysis.asked == f"What is the {typed}?"
    assert analysis.tagging.frame.form.value == "wh"  # not a claim to verify
    assert analysis.methods["query"] == f"read as: What is the {typed}?"
    assert Analysis.from_json(json.loads(json.dumps(analysis.to_json()))).asked == analysis.asked
    assert analyze(QUERY, PASSAGES, fake_backends()).asked == QUERY
    assert "query" not in analyze(QUERY, PASSAGES, fake_backends()).methods
