"""The gold-label scoring of `ask` (conflictdesk/evaluation/ask_scoring.py, reported by
scripts/eval_ask.py) on hand-computed cases."""

from __future__ import annotations

import dataclasses
import json

import pytest

from conflictdesk.evaluation import ask_scoring as eval_ask
from conflictdesk.generation.types import AnswerSentence, SentenceRole
from conflictdesk.types import ConflictType


def _qacc_row(**extra):
    row = {
        "annotation_task_id": 4,
        "question": "q?",
        "contexts": ["a", "b", "c", "d", "e", "f"],
        "sources": ["s"] * 6,
        "firstAnswer": "every Monday",
        "firstContext": "['F', 'E']",
        "secondAnswerExist": "B",
        "secondAnswer": None,
        "secondContext": None,
        "thirdAnswerExist": None,
        "thirdAnswer": None,
        "thirdContext": None,
        "fourthAnswerExist": None,
        "correctAnswer": "every Monday",
    }
    row.update(extra)
    return row


def test_qacc_gold_conflict_and_supporting_contexts(tmp_path):
    path = tmp_path / "dev.jsonl"
    rows = [
        _qacc_row(),
        _qacc_row(secondAnswerExist="A", secondAnswer="Sunday", secondContext="['B']"),
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    single, double = eval_ask.load_qacc(path)
    assert not single.gold_conflict and double.gold_conflict
    assert single.support == {"every Monday": frozenset({4, 5})}  # F, E → contexts[5], [4]
    assert double.support["Sunday"] == frozenset({1})
    assert single.gold_answers == ("every Monday",) and single.gold_type is None


def test_ramdocs_gold_conflict_type_and_half(tmp_path):
    path = tmp_path / "dev.jsonl"
    docs = [
        {"text": "t1", "type": "correct", "answer": "4,411"},
        {"text": "t2", "type": "misinfo", "answer": "10,000"},
        {"text": "t3", "type": "noise", "answer": "unknown"},
    ]
    path.write_text(
        json.dumps(
            {
                "question": "How many?",
                "documents": docs,
                "gold_answers": ["4,411"],
                "wrong_answers": ["10,000"],
            }
        )
    )
    (case,) = eval_ask.load_ramdocs(path)
    assert case.gold_conflict and case.gold_type is ConflictType.MISINFORMATION
    assert case.support == {"4,411": frozenset({0}), "10,000": frozenset({1})}
    assert case.half in ("train", "eval")


def _case():
    return eval_ask.Case(
        "c",
        "ramdocs",
        "q",
        (),
        True,
        ("3,559 people",),
        {"3,559 people": frozenset({0, 1}), "10,000": frozenset({2})},
        ConflictType.MISINFORMATION,
    )


def test_gold_citations_hand_computed():
    sentences = [
        AnswerSentence("There were 3,559 people.", (0, 2)),  # judged: 1 of 2 correct
        AnswerSentence("Nothing about numbers.", (1,)),  # mentions no answer: not judged
        AnswerSentence("It had 10,000 residents.", (1,)),  # judged: wrong passage
        AnswerSentence("Sources disagree on 10,000.", (0, 2), SentenceRole.CONFLICT),  # skipped
    ]
    assert eval_ask.gold_citations(_case(), sentences) == (1, 3, 1, 2)


def test_score_of_a_baseline_that_never_detects():
    case = _case()
    pred = eval_ask.Prediction(
        False, "no_conflict", "direct", (AnswerSentence("There were 3,559 people.", (0,)),)
    )
    report = eval_ask.score([case], [pred])
    assert report["detection"]["f1"] == 0.0 and report["detection"]["fn"] == 1
    assert report["answer_recall"] == 1.0 and report["citation_precision_gold"] == 1.0
    # CARS = 0.35·1 + 0.25·0 + 0.25·0 (direct ≠ entropy_topsis) + 0.15·1 = 0.5
    assert report["cars"]["cars"] == pytest.approx(0.5)


def test_score_reports_the_always_conflict_baseline_on_the_same_cases():
    conflict, quiet = _case(), dataclasses.replace(_case(), gold_conflict=False)
    pred = eval_ask.Prediction(False, "no_conflict", "direct", ())
    report = eval_ask.score([conflict, quiet, quiet, quiet], [pred] * 4)
    # always "conflict": precision 1/4, recall 1 -> F1 = 2 * 0.25 / 1.25 = 0.4
    assert report["always_conflict_f1"] == pytest.approx(0.4)
