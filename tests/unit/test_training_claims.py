"""In-domain claim × document builders and the honest RAMDocs/QACC split."""

from __future__ import annotations

import random

import pytest

from conflictdesk.training import claims
from conflictdesk.training.nli_data import LABEL_ID

E, N, C = LABEL_ID["entailment"], LABEL_ID["neutral"], LABEL_ID["contradiction"]


def record(question, docs, golds, wrongs):
    return {
        "question": question,
        "gold_answers": golds,
        "wrong_answers": wrongs,
        "documents": [{"text": t, "type": k, "answer": a} for t, k, a in docs],
    }


def test_claim_text_and_hedged_claims():
    assert (
        claims.claim_text("Who wrote X?", "Ann")
        == "The answer to the question Who wrote X? is Ann."
    )
    assert claims.claim_text("Q?", ["A", "B", "C"]).endswith("is A, B or C.")
    with pytest.raises(ValueError):
        claims.claim_text("Q?", ["  "])


def test_ramdocs_half_is_stable_and_splits_both_ways():
    questions = [f"What is question {i}?" for i in range(200)]
    halves = [claims.ramdocs_half(q) for q in questions]
    assert halves == [claims.ramdocs_half(q) for q in questions]
    assert claims.ramdocs_half("What is question 3?") == claims.ramdocs_half(
        "  what is  question 3? "
    )
    assert 60 < halves.count("train") < 140


def test_contains_respects_word_boundaries():
    assert claims.contains("Founded in 2012 in Oslo.", "2012")
    assert not claims.contains("Founded in 2012.", "12")
    assert claims.contains("the CITY of Oslo", "city of oslo")


def test_answer_window_centres_on_the_answer():
    words = [f"w{i}" for i in range(500)]
    words[400] = "Zanzibar"
    window = claims.answer_window(" ".join(words), ["Zanzibar"], max_words=100)
    assert "Zanzibar" in window and len(window.split()) == 100
    assert claims.answer_window("short text", ["x"]) == "short text"


def _train_half_questions(n):
    found = []
    i = 0
    while len(found) < n:
        q = f"Which city hosts event {i}?"
        if claims.ramdocs_half(q) == "train":
            found.append(q)
        i += 1
    return found


def test_ramdocs_training_pairs_follow_the_label_semantics():
    q1, q2 = _train_half_questions(2)
    records = [
        record(
            q1,
            [
                ("Event held in Oslo since 1990.", "correct", "Oslo"),
                ("Event held in Rome since 1990.", "misinfo", "Rome"),
                ("Unrelated chatter about weather.", "noise", "unknown"),
            ],
            ["Oslo"],
            ["Rome"],
        ),
        record(q2, [("It takes place in Lima.", "correct", "Lima")], ["Lima"], []),
    ]
    rows = claims.ramdocs_training_pairs(records, seed=1)
    by = {(r.premise, r.hypothesis): r.label for r in rows}
    assert by[("Event held in Oslo since 1990.", claims.claim_text(q1, "Oslo"))] == E
    assert by[("Event held in Oslo since 1990.", claims.claim_text(q1, "Rome"))] == C
    assert by[("Event held in Rome since 1990.", claims.claim_text(q1, "Rome"))] == E
    assert by[("Event held in Rome since 1990.", claims.claim_text(q1, "Oslo"))] == C
    noise = [r for r in rows if r.premise.startswith("Unrelated")]
    assert noise and all(r.label == N for r in noise)
    other = [r for r in rows if r.source == "ramdocs_train_other"]
    assert other and all(r.label == N for r in other)
    assert rows == claims.ramdocs_training_pairs(records, seed=1)


def test_ramdocs_training_refuses_eval_half_questions():
    q = next(f"Q{i}?" for i in range(100) if claims.ramdocs_half(f"Q{i}?") == "eval")
    with pytest.raises(ValueError):
        claims.ramdocs_training_pairs([record(q, [("t", "correct", "a")], ["a"], [])])


def test_ramdocs_eval_pairs_and_string_match_baseline():
    records = [
        record(
            "Q1?",
            [
                ("Born in 1987 indeed.", "correct", "1987"),
                ("Born in 1990.", "misinfo", "1990"),
                ("Nothing here.", "noise", "unknown"),
            ],
            ["1987", "1988"],
            ["1990"],
        ),
        record("Q2?", [("Text two.", "correct", "x")], ["x"], []),
    ]
    pairs = claims.ramdocs_eval_pairs(records, seed=0)
    q1 = [p for p in pairs if p.question == "Q1?"]
    assert [p.relation for p in q1] == ["SUPPORTS", "CONTRADICTS", "IRRELEVANT", "IRRELEVANT"]
    assert q1[0].claim.endswith("is 1987 or 1988.")
    assert [claims.string_match_relation(p) for p in q1[:3]] == [
        "SUPPORTS",
        "CONTRADICTS",
        "IRRELEVANT",
    ]
    assert [claims.claim_match_relation(p) for p in q1[:3]] == [
        "SUPPORTS",
        "CONTRADICTS",
        "CONTRADICTS",
    ]


QACC = {
    "question": "When did it open?",
    "split": "train",
    "firstAnswer": "1911",
    "firstContext": "['A', 'B']",
    "secondAnswerExist": "A",
    "secondAnswer": "1912",
    "secondContext": "['C']",
    "thirdAnswerExist": "B",
    "thirdAnswer": None,
    "thirdContext": None,
    "contexts": ["Opened in 1911.", "It opened 1911.", "Opened in 1912.", "A cat video."],
}


def test_qacc_answers_and_claim_pairs():
    assert claims.qacc_answers(QACC) == [("1911", {0, 1}), ("1912", {2})]
    pairs = claims.qacc_claim_pairs([QACC])
    rel = {(p.document, p.candidates[0]): p.relation for p in pairs}
    assert rel[("Opened in 1911.", "1911")] == "SUPPORTS"
    assert rel[("Opened in 1911.", "1912")] == "CONTRADICTS"
    assert rel[("Opened in 1912.", "1911")] == "CONTRADICTS"
    assert rel[("A cat video.", "1911")] == "IRRELEVANT"


def test_qacc_training_refuses_dev_records_and_swaps_same_kind_answers():
    with pytest.raises(ValueError):
        claims.qacc_training_pairs([{**QACC, "split": "dev"}])
    other = {
        **QACC,
        "question": "When did the other one open?",
        "firstAnswer": "1850",
        "secondAnswerExist": "B",
        "contexts": ["Opened 1850."],
        "firstContext": "['A']",
    }
    rows = claims.qacc_training_pairs([QACC, other], seed=2)
    swaps = [r for r in rows if r.source == "qacc_train_swap"]
    assert swaps and all(r.label == C for r in swaps)
    assert all(
        claims.answer_kind(r.hypothesis.rsplit(" is ", 1)[1].rstrip(".")) == "year" for r in swaps
    )


def test_answer_bank_keeps_the_kind():
    bank = claims.AnswerBank({"a": ["1999"], "b": ["Paris"], "c": ["2001"]})
    got = {bank.swap("a", "1999", [], random.Random(i)) for i in range(10)}
    assert got == {"2001"}
