"""The CONFLICTS strategies and the parametric check on a scripted fake generator."""

from __future__ import annotations

import pytest

from conflictdesk.errors import ModelOutputError, UsageError
from conflictdesk.generation.answer import answer, default_strategy
from conflictdesk.generation.llm import ANSWER_SCHEMA, TAXONOMY_SCHEMA
from conflictdesk.generation.parametric import parametric_check
from conflictdesk.generation.types import SentenceRole, Strategy
from conflictdesk.types import ConflictType
from tests.fakes import FakeGenerator, MemoryCache, build_analysis, fake_backends

REPLY = {
    "answer": [
        {"sent": "Renn is CEO.", "cites": [1, 9], "about_disagreement": False},
        {"sent": "Older sources name Castellane.", "cites": [0, 1], "about_disagreement": True},
    ],
    "conflict": "an older source is out of date",
}


def _analysis():
    return build_analysis(
        "Who is the CEO of Orvane?",
        ["Castellane is CEO.", "Renn is CEO.", "Orvane makes turbines."],
        [("refute", 0.8), ("support", 0.9), ("irrelevant", 0.7)],
        conflict_type="outdated",
        dates={0: "2018", 1: "2024"},
    )


def _backends():
    backends = fake_backends(with_llm=True)
    return backends, backends.llm


def _prompt(llm: FakeGenerator, index: int = 0) -> str:
    return "\n".join(m["content"] for m in llm.history[index]["messages"])


def test_default_strategy_is_pipeline_with_an_llm():
    backends, _ = _backends()
    assert default_strategy(backends) is Strategy.PIPELINE
    assert default_strategy(fake_backends()) is Strategy.EXTRACTIVE


def test_vanilla_sees_no_conflict_type_and_cites_are_checked_against_the_packet():
    backends, llm = _backends()
    llm.enqueue(REPLY)
    result = answer(_analysis(), backends, "vanilla", check_parametric=False)
    prompt = _prompt(llm)
    assert "CONFLICT TYPE" not in prompt and "[1]" in prompt and "(2024)" in prompt
    assert llm.history[0]["schema"] == ANSWER_SCHEMA
    assert [s.cites for s in result.sentences] == [(1,), (0, 1)]
    assert result.method["dropped_citations"] == [9]  # recorded, not silently lost
    assert result.sentences[1].role is SentenceRole.CONFLICT
    assert result.method["generation"] == "llm:fake-llm:vanilla"


def test_pipeline_adds_the_analysis_type_and_oracle_the_gold_type():
    backends, llm = _backends()
    llm.enqueue(REPLY, REPLY)
    answer(_analysis(), backends, "pipeline", check_parametric=False)
    assert "CONFLICT TYPE OF THE SEARCH RESULTS: outdated" in _prompt(llm, 0)
    answer(
        _analysis(),
        backends,
        "oracle",
        gold_type=ConflictType.MISINFORMATION,
        check_parametric=False,
    )
    assert "CONFLICT TYPE OF THE SEARCH RESULTS: misinformation" in _prompt(llm, 1)


def test_oracle_without_gold_type_is_a_usage_error():
    backends, _ = _backends()
    with pytest.raises(UsageError, match="gold"):
        answer(_analysis(), backends, "oracle")


def test_taxonomy_aware_reads_the_predicted_category():
    backends, llm = _backends()
    llm.enqueue({**REPLY, "category": 3, "explanation": "they argue"})
    result = answer(_analysis(), backends, "taxonomy-aware", check_parametric=False)
    assert llm.history[0]["schema"] == TAXONOMY_SCHEMA
    assert "CATEGORIES" in _prompt(llm)
    assert result.predicted_type == "conflicting_opinions"
    assert result.method["generation_type_source"] == "llm:fake-llm"


def test_a_disagreement_sentence_citing_one_side_is_reported():
    backends, llm = _backends()
    llm.enqueue(
        {
            "answer": [{"sent": "They disagree.", "cites": [1], "about_disagreement": True}],
            "conflict": "",
        }
    )
    result = answer(_analysis(), backends, "vanilla", check_parametric=False)
    assert result.method["citation_violations"] == [
        "sentence 1 states the disagreement without citing both sides"
    ]


def test_empty_answer_is_a_model_output_error():
    backends, llm = _backends()
    llm.enqueue(
        {"answer": [{"sent": "  ", "cites": [], "about_disagreement": False}], "conflict": ""}
    )
    with pytest.raises(ModelOutputError):
        answer(_analysis(), backends, "vanilla", check_parametric=False)


def test_generation_is_recorded_in_the_cache_and_reused():
    backends, llm = _backends()
    llm.enqueue(REPLY)
    cache = MemoryCache()
    first = answer(_analysis(), backends, "vanilla", check_parametric=False, cache=cache)
    second = answer(_analysis(), backends, "vanilla", check_parametric=False, cache=cache)
    assert len(llm.history) == 1 and cache.hits == 1
    assert first.sentences == second.sentences
    assert any(stage == "generate" for stage, _, _ in cache.rows)


def test_parametric_check_reports_a_disagreement():
    llm = FakeGenerator()
    llm.enqueue("Castellane", {"agree": False, "explanation": "different people"})
    check = parametric_check("Who is the CEO?", "Renn is CEO.", llm)
    assert check.ran and check.status == "disagree"
    assert check.closed_book == "Castellane" and check.open_book == "Renn is CEO."
    assert "retrieved evidence" in (check.explanation or "")
    assert [h["kind"] for h in llm.history] == ["generate", "json"]
    assert "Castellane" in _prompt(llm, 1) and "Renn is CEO." in _prompt(llm, 1)


def test_parametric_check_without_llm_is_not_run():
    check = parametric_check("q", "a", None)
    assert not check.ran and check.status == "not run: no LLM configured"


def test_answer_runs_the_parametric_check_on_the_open_book_answer():
    backends, llm = _backends()
    llm.enqueue(REPLY, "Renn", {"agree": True, "explanation": "same person"})
    result = answer(_analysis(), backends, "pipeline")
    assert result.parametric is not None and result.parametric.status == "agree"
    assert result.parametric.open_book == "Renn is CEO. Older sources name Castellane."
    assert result.method["parametric"] == "agree"
