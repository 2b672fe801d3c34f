"""score_response, detect, the decomposers, the lighter variants and regeneration on fakes."""

from __future__ import annotations

import pytest

from conflictdesk.errors import CapabilityError, InputError, ModelOutputError, UsageError
from conflictdesk.scoring import detect, regenerate, score_response, select_claim
from conflictdesk.scoring.cache import Ledger
from conflictdesk.scoring.decompose import DECOMPOSE_SCHEMA, decompose
from conflictdesk.scoring.prompts import DECOMPOSE_TABLE6, REGENERATE_TABLE13
from conflictdesk.types import Relation
from tests.fakes import MemoryCache

S, C, I = Relation.SUPPORTS, Relation.CONTRADICTS, Relation.IRRELEVANT
DOCS = [
    "In 2010 Broken Bow had 3559 residents.",
    {"text": "Broken Bow had 10000 residents in 2011.", "source": "blog"},
    "Nebraska is a state in the Midwest.",
]
RESPONSE = (
    "Broken Bow had 3559 residents in 2010. Nebraska is a state in the Midwest. "
    "The mayor likes jazz."
)


def test_score_response_per_claim_and_aggregate(backends):
    result = score_response(RESPONSE, DOCS, backends)
    texts = [c.text for c in result.claims]
    assert texts == [
        "Broken Bow had 3559 residents in 2010.",
        "Nebraska is a state in the Midwest.",
        "The mayor likes jazz.",
    ]
    assert [c.relations for c in result.claims] == [(S, C, I), (I, I, S), (I, I, I)]
    assert [c.conflict for c in result.claims] == [True, False, False]
    assert [c.ratio for c in result.claims] == [0.5, 0.0, None]
    assert result.cs_c == pytest.approx(1 / 3)
    assert result.cs_r == pytest.approx(0.25)  # the claim with neither is left out
    assert "splitter(sentences, then clauses) (no LLM configured)" in result.method
    out = result.to_json()
    assert out["claims"][0]["relations"] == ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]
    assert out["claims"][2]["ratio"] is None
    assert out["cached"] == {"hits": 0, "total": 3}  # 6 pairs gated (no shared content word)
    assert out["claims"][2]["confidences"] == [None, None, None]
    assert "gate: 6 of 9 pairs" in result.method


def test_gate_off_asks_the_model_about_every_pair(backends):
    result = score_response(RESPONSE, DOCS, backends, gate=False)
    assert result.cache.total == 9
    assert "gate" not in result.method
    assert [c.relations for c in result.claims] == [(S, C, I), (I, I, S), (I, I, I)]


def test_repeated_score_is_served_from_cache(backends):
    cache = MemoryCache()
    score_response(RESPONSE, DOCS, backends, cache=cache)
    calls = len(backends.nli.history)
    again = score_response(RESPONSE, DOCS, backends, cache=cache)
    assert again.cache.hits == again.cache.total == 3
    assert len(backends.nli.history) == calls


def test_bad_inputs_raise_input_errors(backends):
    with pytest.raises(InputError, match="empty response"):
        score_response("  ", DOCS, backends)
    with pytest.raises(InputError, match="no documents"):
        score_response(RESPONSE, [], backends)
    with pytest.raises(InputError):
        score_response(RESPONSE, ["ok", ""], backends)
    with pytest.raises(UsageError):
        score_response(RESPONSE, DOCS, backends, variant="nope")


def test_llm_decomposition_uses_table6_and_a_schema(backends_llm):
    llm = backends_llm.llm
    llm.enqueue(
        {"claims": ["Claims: Broken Bow had 3559 residents in 2010.", "- The mayor likes jazz."]}
    )
    cache = MemoryCache()
    result = score_response(RESPONSE, DOCS, backends_llm, cache=cache)
    assert [c.text for c in result.claims] == [
        "Broken Bow had 3559 residents in 2010.",
        "The mayor likes jazz.",
    ]
    call = llm.history[0]
    assert call["kind"] == "json" and call["schema"] == DECOMPOSE_SCHEMA
    prompt = call["messages"][0]["content"]
    assert prompt.startswith(DECOMPOSE_TABLE6.split("{report}")[0] + RESPONSE)
    assert 'starting with "Claims: ".' in prompt
    assert "claims=llm-table6(fake-llm)" in result.method
    again = decompose(RESPONSE, llm, ledger=Ledger(cache))
    assert len(llm.history) == 1  # served from the cache
    assert again.claims[0] == "Broken Bow had 3559 residents in 2010."


def test_llm_decomposition_rejects_a_bad_answer(backends_llm):
    backends_llm.llm.enqueue({"items": []})
    with pytest.raises(ModelOutputError, match="claims list"):
        score_response(RESPONSE, DOCS, backends_llm)


def test_splitter_can_be_requested_and_llm_decomposer_needs_an_llm(backends, backends_llm):
    result = score_response(RESPONSE, DOCS, backends_llm, decomposer="splitter")
    assert "(requested)" in result.method and not backends_llm.llm.history
    with pytest.raises(CapabilityError):
        score_response(RESPONSE, DOCS, backends, decomposer="llm")


def test_whole_response_variant_is_one_claim_judged_by_its_parts(backends):
    result = score_response(RESPONSE, DOCS, backends, variant="whole-response")
    assert len(result.claims) == 1
    # part 1 is supported by doc 0 and contradicted by doc 1; part 2 supported by doc 2
    assert result.claims[0].relations == (S, C, S)
    assert result.cs_c == 1.0
    assert "whole-response" in result.method


def test_salient_variant_without_llm_keeps_claims_closest_to_documents(backends):
    result = score_response(RESPONSE, DOCS, backends, variant="salient", salient_k=2)
    assert [c.text for c in result.claims] == [
        "Broken Bow had 3559 residents in 2010.",
        "Nebraska is a state in the Midwest.",
    ]
    assert "salient(k=2, by embedding similarity" in result.method


def test_salient_variant_with_llm(backends_llm):
    backends_llm.llm.enqueue({"claims": ["Broken Bow had 3559 residents in 2010."]})
    result = score_response(RESPONSE, DOCS, backends_llm, variant="salient", salient_k=1)
    assert [c.text for c in result.claims] == ["Broken Bow had 3559 residents in 2010."]
    assert backends_llm.llm.history[0]["schema"]["properties"]["claims"]["maxItems"] == 1


def test_all_documents_variant(backends, backends_llm):
    with pytest.raises(CapabilityError, match="all-documents"):
        score_response(RESPONSE, DOCS, backends, variant="all-documents")
    backends_llm.llm.enqueue(
        {"claims": ["Broken Bow had 3559 residents in 2010."]},
        {"answers": ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]},
    )
    result = score_response(RESPONSE, DOCS, backends_llm, variant="all-documents")
    assert result.claims[0].relations == (S, C, I)
    assert result.claims[0].judgments[0].confidence is None
    prompt = backends_llm.llm.history[1]["messages"][0]["content"]
    assert "[1] In 2010 Broken Bow" in prompt and "[3] Nebraska" in prompt
    backends_llm.llm.enqueue({"claims": ["X is y."]}, {"answers": ["SUPPORTS"]})
    with pytest.raises(ModelOutputError, match="expected 3 labels"):
        score_response("X is y.", DOCS, backends_llm, variant="all-documents", cache=None)


def test_detect(backends):
    result = detect("Broken Bow had 3559 residents in 2010.", DOCS, backends)
    assert result.conflict is True
    assert result.to_json()["relations"] == ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]
    assert result.to_json()["method"].startswith("labels=nli(fake-nli); fusion reads claims in")
    assert "; gate: 1 of 3" in result.to_json()["method"]
    no_conflict = detect("Broken Bow had 3559 residents in 2010.", [DOCS[0], DOCS[2]], backends)
    assert no_conflict.conflict is False
    with pytest.raises(InputError):
        detect("", DOCS, backends)


def test_regenerate_needs_an_llm(backends):
    with pytest.raises(CapabilityError, match="GGUF"):
        regenerate("How many live in Broken Bow?", RESPONSE, DOCS, backends)


def test_regenerate_feeds_back_the_most_conflicted_claim(backends_llm):
    llm = backends_llm.llm
    llm.enqueue(
        {
            "claims": [
                "Broken Bow had 3559 residents in 2010.",
                "Nebraska is a state in the Midwest.",
            ]
        },
        "Sources disagree: one says 3559 residents in 2010, another 10000 in 2011.",
        {"claims": ["Sources disagree about the population of Broken Bow."]},
    )
    result = regenerate("How many people live in Broken Bow?", RESPONSE, DOCS, backends_llm)
    assert result.selected.text == "Broken Bow had 3559 residents in 2010."
    assert result.selected.supporting == (0,) and result.selected.contradicting == (1,)
    prompt = llm.history[1]["messages"][0]["content"]
    assert prompt.startswith(REGENERATE_TABLE13.split("{question}")[0])
    assert "ORIGINAL QUESTION: How many people live in Broken Bow?" in prompt
    assert "Document 2: Broken Bow had 10000 residents in 2011." in prompt
    assert "YOUR MAIN CLAIM THAT HAD CONFLICTS:\nBroken Bow had 3559 residents in 2010.\n" in prompt
    assert "DOCUMENTS THAT CONTRADICT THIS CLAIM (1):\nDocument 2:" in prompt
    assert result.revised_response.startswith("Sources disagree")
    assert result.before.cs_c == 0.5 and result.after.cs_c == 0.0
    out = result.to_json()
    assert out["regenerated"] is True and out["before"]["cs_c"] == 0.5
    assert "regenerate=llm-table13(fake-llm)" in out["method"]


def test_regenerate_without_conflict_changes_nothing(backends_llm):
    backends_llm.llm.enqueue({"claims": ["Nebraska is a state in the Midwest."]})
    result = regenerate(
        "Where is Nebraska?", "Nebraska is a state in the Midwest.", DOCS, backends_llm
    )
    assert result.selected is None and result.revised_response is None
    assert result.to_json()["regenerated"] is False
    assert len(backends_llm.llm.history) == 1  # decomposition only


def test_select_claim_prefers_the_highest_ratio(backends):
    docs = DOCS + ["Broken Bow had 10000 residents in 2011 per the census."]
    result = score_response(
        "Broken Bow had 10000 residents in 2011. Broken Bow had 3559 residents in 2010.",
        docs, backends, decomposer="splitter",
    )  # fmt: skip
    assert [c.ratio for c in result.claims] == [pytest.approx(1 / 3), pytest.approx(2 / 3)]
    assert select_claim(result) is result.claims[1]
