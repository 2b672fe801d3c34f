"""Evaluation cases (conflictdesk.evaluation.cases): construction, baseline and Table 2 metrics."""

from __future__ import annotations

import pytest

from conflictdesk.evaluation import cases as ev

RAMDOCS = {
    "question": "What is the population of Broken Bow?",
    "documents": [
        {"text": "In 2010 there were 3,559 people.", "type": "correct", "answer": "3,559 people"},
        {"text": "Broken Bow has 3,559 people.", "type": "correct", "answer": "3,559 people"},
        {"text": "Broken Bow, Oklahoma has 4,120.", "type": "correct", "answer": "4,120"},
        {"text": "There were 10,000 people in 2010.", "type": "misinfo", "answer": "10,000 people"},
        {"text": "The city is in Nebraska.", "type": "noise", "answer": "unknown"},
    ],
    "gold_answers": ["3,559 people", "4,120"],
    "wrong_answers": ["10,000 people"],
}


def test_ramdocs_case_uses_the_most_frequent_correct_answer_and_drops_other_correct_docs():
    case = ev.ramdocs_case(RAMDOCS)
    assert case.answer == "3,559 people"
    assert (
        case.claim
        == "The answer to the question What is the population of Broken Bow? is 3,559 people."
    )
    assert case.gold == ("SUPPORTS", "SUPPORTS", "CONTRADICTS", "IRRELEVANT")
    assert "Oklahoma" not in " ".join(case.documents)
    assert set(case.others) == {"4,120", "10,000 people"}
    assert case.conflict is True
    assert case.half in ("train", "eval")


def test_qacc_case_contexts_of_other_answers_contradict():
    record = {
        "question": "when did it open?", "contexts": ["Opened 1990.", "Opened 1992.", "News.", "Both 1990."],
        "firstAnswer": "1990", "firstContext": "['A', 'D']",
        "secondAnswerExist": "A", "secondAnswer": "1992", "secondContext": "['B', 'D']",
        "thirdAnswerExist": None, "correctAnswer": "1990",
    }  # fmt: skip
    case = ev.qacc_case(record, "dev")
    assert case.gold == ("SUPPORTS", "CONTRADICTS", "IRRELEVANT", "SUPPORTS")
    assert case.others == ("1992",)
    assert case.conflict is True
    assert ev.string_match(case) == ["SUPPORTS", "CONTRADICTS", "IRRELEVANT", "SUPPORTS"]
    # The claim-only baseline cannot tell another answer from an unrelated text.
    assert ev.claim_match(case) == ["SUPPORTS", "CONTRADICTS", "CONTRADICTS", "SUPPORTS"]


def test_detection_metrics_hand_computed():
    gold = [True, True, True, False, False]
    predicted = [True, True, False, True, False]  # tp 2, fn 1, fp 1, tn 1
    m = ev.detection_metrics(gold, predicted)
    assert m["precision"] == pytest.approx(2 / 3)
    assert m["recall"] == m["acc_conf"] == pytest.approx(2 / 3)
    assert m["f1"] == pytest.approx(2 / 3)
    assert m["accuracy"] == pytest.approx(3 / 5)
    assert m["acc_noconf"] == pytest.approx(1 / 2)


def test_relation_metrics_hand_computed():
    gold = ["SUPPORTS", "SUPPORTS", "CONTRADICTS", "IRRELEVANT"]
    predicted = ["SUPPORTS", "CONTRADICTS", "CONTRADICTS", "SUPPORTS"]
    m = ev.relation_metrics(gold, predicted)
    assert m["f1_supports"] == pytest.approx(0.5)  # p 1/2, r 1/2
    assert m["f1_contradicts"] == pytest.approx(2 / 3)  # p 1/2, r 1
    assert m["f1_irrelevant"] == 0.0
    assert m["macro_f1"] == pytest.approx((0.5 + 2 / 3) / 3)
    assert m["pair_accuracy"] == pytest.approx(2 / 4)
