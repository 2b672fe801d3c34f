"""Claim × document labelling: the NLI mapping, partial support, caching, the Table 7 LLM
labeller and the two-stage mode, on fakes."""

from __future__ import annotations

import pytest

from conflictdesk.errors import CapabilityError, ModelOutputError
from conflictdesk.scoring.cache import Ledger
from conflictdesk.scoring.label import (
    DEFAULT_LABELLER,
    LLM_STAGE,
    NLI_STAGE,
    claim_parts,
    document_text,
    document_windows,
    label_claims,
    nli_judgment,
    partial_support,
    shares_content,
)
from conflictdesk.scoring.prompts import LABEL_TABLE7
from conflictdesk.scoring.results import Judgment
from conflictdesk.types import Document, NLIScores, Relation
from tests.fakes import FakeNLI, MemoryCache, fake_backends

S, C, I = Relation.SUPPORTS, Relation.CONTRADICTS, Relation.IRRELEVANT
CLAIM = "Broken Bow had 3559 residents in 2010."
DOCS = [
    Document("In 2010 Broken Bow had 3559 residents."),
    Document("Broken Bow had 10000 residents in 2011."),
    Document("Nebraska is a state in the Midwest."),
]


def test_nli_mapping_is_argmax():
    assert nli_judgment(NLIScores(0.7, 0.2, 0.1)).relation is S
    assert nli_judgment(NLIScores(0.1, 0.2, 0.7)).relation is C
    neutral = nli_judgment(NLIScores(0.3, 0.4, 0.3))
    assert neutral.relation is I
    assert neutral.confidence == pytest.approx(0.4)
    assert neutral.probabilities == (0.3, 0.3, 0.4)  # SUPPORTS, CONTRADICTS, IRRELEVANT


def test_partial_support_prefers_support_then_contradiction():
    sup = Judgment(S, 0.6, (0.6, 0.3, 0.1), "nli")
    con = Judgment(C, 0.9, (0.05, 0.9, 0.05), "nli")
    irr = Judgment(I, 0.8, (0.1, 0.1, 0.8), "nli")
    assert partial_support([con, sup, irr]) is sup
    assert partial_support([irr, con]) is con
    assert partial_support([irr]) is irr


def test_claim_parts():
    hedged = "Coffee can improve alertness but may also cause sleep disruption."
    assert claim_parts(hedged) == [
        hedged,
        "Coffee can improve alertness.",
        "Coffee may also cause sleep disruption.",
    ]
    assert claim_parts(CLAIM) == [CLAIM]
    assert claim_parts("One thing is true. Another thing holds.") == [
        "One thing is true.",
        "Another thing holds.",
    ]


def test_document_text_prefixes_a_title_once():
    assert document_text(Document("Body text.", title="Title")) == "Title. Body text."
    assert document_text(Document("Title: body.", title="Title")) == "Title: body."


def test_nli_labels_support_contradiction_and_irrelevance(backends):
    labelling = label_claims([CLAIM], DOCS, backends, labeller="nli")
    assert [j.relation for j in labelling.judgments[0]] == [S, C, I]
    assert [j.labeller for j in labelling.judgments[0]] == ["nli", "nli", "gate"]
    assert labelling.method == (
        "nli(fake-nli); gate: 1 of 3 pairs share no content word (IRRELEVANT)"
    )
    assert len(backends.nli.history[0]) == 2  # the gated pair never reached the model


def test_without_the_gate_every_pair_goes_to_the_model(backends):
    labelling = label_claims([CLAIM], DOCS, backends, labeller="nli", gate=False)
    assert [j.labeller for j in labelling.judgments[0]] == ["nli", "nli", "nli"]
    assert labelling.judgments[0][2].relation is I
    assert labelling.method == "nli(fake-nli)"


def test_the_default_labeller_sends_claims_not_in_the_answer_form_to_the_encoder(backends):
    assert DEFAULT_LABELLER == "fusion"
    labelling = label_claims([CLAIM], DOCS, backends)  # no fusion model among the fakes
    assert [j.relation for j in labelling.judgments[0]] == [S, C, I]
    assert [j.labeller for j in labelling.judgments[0]] == ["nli", "nli", "gate"]
    assert labelling.method.startswith(
        "nli(fake-nli); fusion reads claims in the answer form only: 1 of 1 labelled by the "
        "encoder alone; gate:"
    )


def test_an_answer_form_claim_needs_the_fusion_model(backends):
    with pytest.raises(CapabilityError, match="labeller nli"):
        label_claims(
            ["The answer to the question Who won? is Ada."], [Document("Ada won.")], backends
        )
    labelling = label_claims(
        ["The answer to the question Who won? is Ada."],
        [Document("Ada won.")],
        backends,
        labeller="nli",
    )
    assert labelling.method.startswith("nli(fake-nli); gate: 0 of 1")


def test_shares_content():
    assert shares_content(CLAIM, "The residents of Broken Bow, Nebraska.")
    assert shares_content("It had 3,559 people.", "There were 3559 inhabitants.")
    assert not shares_content(CLAIM, "Nebraska is a state in the Midwest.")
    assert not shares_content("The answer to the question is this.", "What is the question?")


def test_a_document_supporting_one_part_of_a_hedged_claim_supports_it():
    hedged = "Coffee can improve alertness but may also cause sleep disruption."
    doc = "Studies say that coffee may cause sleep disruption in adults."
    nli = FakeNLI(override={
        (doc, hedged): NLIScores(0.1, 0.3, 0.6),
        (doc, "Coffee can improve alertness."): NLIScores(0.1, 0.2, 0.7),
        (doc, "Coffee may also cause sleep disruption."): NLIScores(0.8, 0.1, 0.1),
    })  # fmt: skip
    backends = fake_backends()
    backends.nli = nli
    judgment = label_claims([hedged], [Document(doc)], backends).judgments[0][0]
    assert judgment.relation is S
    assert judgment.confidence == pytest.approx(0.8)


def test_repeated_run_is_served_from_the_cache(backends):
    cache = MemoryCache()
    first = Ledger(cache)
    label_claims([CLAIM], DOCS, backends, ledger=first)
    assert (first.hits, first.total) == (0, 2)
    assert {key[0] for key in cache.rows} == {NLI_STAGE}
    assert {key[1] for key in cache.rows} == {"fake-nli"}
    calls = len(backends.nli.history)
    second = Ledger(cache)
    again = label_claims([CLAIM], DOCS, backends, ledger=second)
    assert (second.hits, second.total) == (2, 2)
    assert len(backends.nli.history) == calls  # no new model call
    assert [j.relation for j in again.judgments[0]] == [S, C, I]


def test_llm_labeller_sends_table7_and_reads_label_scores(backends_llm):
    llm = backends_llm.llm
    llm.enqueue(
        {"SUPPORTS": 0.7, "CONTRADICTS": 0.2, "IRRELEVANT": 0.1},
        {"SUPPORTS": 0.1, "CONTRADICTS": 0.8, "IRRELEVANT": 0.1},
    )
    labelling = label_claims([CLAIM], DOCS[:2], backends_llm, labeller="llm")
    assert [j.relation for j in labelling.judgments[0]] == [S, C]
    assert all(j.labeller == "llm" for j in labelling.judgments[0])
    prompt = llm.history[0]["messages"][0]["content"]
    assert prompt.startswith("Document-Claim Conflict Detection")
    assert f"Claim to evaluate\n{CLAIM}\nDocument to evaluate against\n{DOCS[0].text}" in prompt
    assert f'"claim": "{CLAIM}"' in prompt
    assert LABEL_TABLE7.splitlines()[-1] == prompt.splitlines()[-1]
    assert llm.history[0]["labels"] == ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]
    assert labelling.method.startswith("llm-table7(fake-llm); gate: 0 of 2")


def test_llm_labeller_rejects_a_non_distribution(backends_llm):
    backends_llm.llm.score_labels = lambda messages, labels: {"SUPPORTS": 0.5}
    with pytest.raises(ModelOutputError, match="not a distribution"):
        label_claims([CLAIM], DOCS[:1], backends_llm, labeller="llm")
    backends_llm.llm.score_labels = lambda messages, labels: dict.fromkeys(labels, 0.5)
    with pytest.raises(ModelOutputError, match="sum to"):
        label_claims([CLAIM], DOCS[:1], backends_llm, labeller="llm")


def test_llm_labeller_needs_an_llm(backends):
    with pytest.raises(CapabilityError, match="--llm"):
        label_claims([CLAIM], DOCS, backends, labeller="llm")


def test_llm_judgments_are_cached_per_window(backends_llm):
    cache = MemoryCache()
    backends_llm.llm.enqueue({"SUPPORTS": 0.9, "CONTRADICTS": 0.05, "IRRELEVANT": 0.05})
    label_claims([CLAIM], DOCS[:1], backends_llm, labeller="llm", ledger=Ledger(cache))
    ledger = Ledger(cache)
    again = label_claims([CLAIM], DOCS[:1], backends_llm, labeller="llm", ledger=ledger)
    assert len(backends_llm.llm.history) == 1
    assert ledger.hits == 1
    assert again.judgments[0][0].relation is S
    assert next(iter(cache.rows))[0] == LLM_STAGE


def test_two_stage_sends_only_uncertain_pairs_to_the_llm():
    doc_sure, doc_unsure = "Sure document text.", "Unsure document text."
    nli = FakeNLI(override={
        (doc_sure, CLAIM): NLIScores(0.95, 0.03, 0.02),
        (doc_unsure, CLAIM): NLIScores(0.4, 0.35, 0.25),
    })  # fmt: skip
    backends = fake_backends(with_llm=True)
    backends.nli = nli
    backends.llm.enqueue({"SUPPORTS": 0.1, "CONTRADICTS": 0.85, "IRRELEVANT": 0.05})
    labelling = label_claims(
        [CLAIM], [Document(doc_sure), Document(doc_unsure)], backends,
        labeller="two-stage", threshold=0.8, gate=False,
    )  # fmt: skip
    sure, unsure = labelling.judgments[0]
    assert (sure.relation, sure.labeller) == (S, "nli")
    assert (unsure.relation, unsure.labeller) == (C, "llm")
    assert len(backends.llm.history) == 1
    assert doc_unsure in backends.llm.history[0]["messages"][0]["content"]
    assert "1 of 2 pairs to the LLM" in labelling.method


def test_long_documents_are_windowed_for_the_llm():
    text = " ".join(f"Sentence number {i} says something." for i in range(400))
    windows = document_windows(text, max_chars=1000)
    assert len(windows) > 1
    assert all(len(w) <= 1000 for w in windows)
    assert windows[0].split(". ")[-1] in windows[1]  # neighbours share a sentence
    assert document_windows("short", max_chars=1000) == ["short"]


def test_llm_takes_the_window_with_the_strongest_evidence(backends_llm):
    text = " ".join(f"Filler sentence {i} about nothing." for i in range(300))
    windows = document_windows(text)
    assert len(windows) >= 2
    answers = [{"SUPPORTS": 0.1, "CONTRADICTS": 0.1, "IRRELEVANT": 0.8}] * len(windows)
    answers[-1] = {"SUPPORTS": 0.05, "CONTRADICTS": 0.9, "IRRELEVANT": 0.05}
    backends_llm.llm.enqueue(*answers)
    judgment = label_claims([CLAIM], [Document(text)], backends_llm, labeller="llm", gate=False)
    assert judgment.judgments[0][0].relation is C
    assert len(backends_llm.llm.history) == len(windows)
