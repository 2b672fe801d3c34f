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


def _typed_row(kind, gold="", golds=()):
    docs = [{"title": "T", "text": "Text one.", "date": "2024-01-02", "source": "a.org"},
            {"title": "U", "text": "Text two.", "date": None, "source": "b.org"}]  # fmt: skip
    return {"id": f"d-{kind}-1", "conflict_type": kind, "query": "q?", "gold_answer": gold,
            "gold_answers_all": list(golds), "documents": docs}  # fmt: skip


def test_typed_dev_cases_and_type_scores(tmp_path):
    path = tmp_path / "cases.jsonl"
    rows = [_typed_row("no_conflict", "Kelston"), _typed_row("complementary", "", ["Tessel", "Corvane"]),
            _typed_row("conflicting_opinions"), _typed_row("no_conflict", "Ardmuir")]  # fmt: skip
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    cases = eval_ask.load_typed_dev(path)
    assert [c.gold_conflict for c in cases] == [False, True, True, False]
    assert cases[1].gold_answers == ("Tessel", "Corvane") and cases[2].gold_answers == ()
    assert cases[0].passages[0].date == "2024-01-02" and cases[0].passages[1].title == "U"
    preds = [
        eval_ask.Prediction(False, "no_conflict", "direct", (AnswerSentence("Kelston.", (0,)),)),
        eval_ask.Prediction(
            True, "complementary", "consolidate", (AnswerSentence("Tessel.", (0,)),)
        ),
        eval_ask.Prediction(True, "outdated", "recency", (AnswerSentence("x.", (0,)),)),
        eval_ask.Prediction(True, "outdated", "recency", (AnswerSentence("x.", (0,)),)),
    ]
    report = eval_ask.score(cases, preds)
    # answer recall over the 3 cases with a gold answer: Kelston yes, Tessel yes, Ardmuir no
    assert report["answered_questions"] == 3 and report["answer_recall"] == pytest.approx(2 / 3)
    types = report["types"]
    assert types["accuracy"] == pytest.approx(0.5) and types["majority_class"] == 0.5
    assert types["per_type"] == {"complementary": 1.0, "conflicting_opinions": 0.0,
                                 "no_conflict": 0.5}  # fmt: skip
    assert types["answer_coverage"] == pytest.approx(0.5)  # Tessel of Tessel and Corvane


def test_conflictqa_cases_one_per_question_with_yes_no_gold(tmp_path):
    import gzip

    def row(i, question, conflict, truth):
        return {"id": f"c{i}", "question": question, "passage_a": "pa", "passage_b": "pb",
                "conflict": conflict, "ground_truth": truth}  # fmt: skip

    rows = [row(0, "Is A?", True, "['True']"), row(1, "Is A?", False, "['True']"),
            row(2, "Is B?", False, ["False"]), row(3, "Is C?", False, "['True']")]  # fmt: skip
    path = tmp_path / "pairs_test.jsonl.gz"
    with gzip.open(path, "wt") as handle:
        handle.write("\n".join(json.dumps(r) for r in rows) + "\n")
    cases = eval_ask.load_conflictqa(path, per_kind=1)
    assert [c.id for c in cases] == [
        "c0",
        "c2",
    ]  # the second "Is A?" and the third agreeing skipped
    assert cases[0].gold_conflict and cases[0].gold_answers == () and cases[0].gold_type is None
    assert cases[1].gold_answers == ("No",) and cases[1].gold_type is ConflictType.NO_CONFLICT


def test_leading_answer_recall_scores_the_frame_answer_over_wh_questions():
    case = _case()  # gold "3,559 people"
    said = (AnswerSentence("American town of 3,559 people.", (0,)),)
    preds = [
        eval_ask.Prediction(False, "no_conflict", "direct", said, leading="American",
                            shown="3,559"),
        eval_ask.Prediction(False, "no_conflict", "direct", said, leading="3,559 people",
                            shown="3,559 people"),
        eval_ask.Prediction(False, "no_conflict", "direct", said, leading=None),  # yes/no
    ]  # fmt: skip
    report = eval_ask.score([case] * 3, preds)
    assert report["lead_answer_recall"] == 1.0  # the sentence holds the gold either way
    assert report["leading_answer_recall"] == 0.5  # the frame's answer, wh-questions only
    assert report["short_answer_recall"] == 1.0  # the answer `ask --json` shows
    baseline = eval_ask.score([case], [eval_ask.Prediction(False, "no_conflict", "direct", said)])
    assert baseline["leading_answer_recall"] is None


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Herbert Hoover", True),
        ("President Herbert Hoover", True),
        ("Hoover", True),
        ("Herbert Clark Hoover", True),  # with a middle name (`same_person`)
        ("Herbert Clark", False),
        ("", False),
    ],
)
def test_a_short_answer_is_gold_when_one_contains_the_other(answer, expected):
    assert eval_ask.is_gold_answer(answer, ["Herbert Hoover"]) is expected


@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [
        ("January 15th, 2009", "15 January 2009", True),
        ("1891-01-13", "13 January 1891", True),
        ("6 July 1840", "1840", True),
        ("Apr 5, 2018", "April 6, 2018", False),
        ("1840", "1841", False),
        ("from 1790 to 1794", "1790", True),  # contains the gold answer
        ("1 June 1794", "June 1795", False),
    ],
)
def test_a_date_is_gold_however_written(answer, gold, expected):
    assert eval_ask.is_gold_answer(answer, [gold]) is expected


@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [
        ("3", "three", True),
        ("two hundred and fifty", "$250", True),
        ("3 doses", "three doses", True),
        ("4", "seven", False),
        ("3 and 4", "three", False),  # two numbers: not one value
        ("2.1 to 2.4 metres", "2.1 to 2.4 m", True),  # one range, its unit written another way
        ("2.1 to 2.5 metres", "2.1 to 2.4 m", False),
        ("James H. Meredith", "James Meredith", True),
        ("James Meredith", "James H. Meredith", True),
        ("James H. Meredith", "Ann Meredith", False),
    ],
)
def test_a_number_or_a_name_is_gold_however_written(answer, gold, expected):
    # a number in digits or in words; a name with or without its initials
    assert eval_ask.is_gold_answer(answer, [gold]) is expected


@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [
        ("133 miles", "214 km", True),  # 214.04 km, within the coarser precision
        ("24.7 lb", "11.2 kg", True),
        ("140 miles", "214 km", False),
        ("986 m", "1,812", False),  # a bare number has no unit to convert
        ("20 kg", "20 km", False),  # another dimension
    ],
)
def test_a_quantity_is_gold_in_another_unit(answer, gold, expected):
    assert eval_ask.is_gold_answer(answer, [gold]) is expected


def test_the_same_times_of_day_however_written_are_one_answer():
    from conflictdesk.evaluation.ask_scoring import is_gold_answer

    assert is_gold_answer("09:00-13:00", ["9am to 1pm"])
    assert is_gold_answer("1:30 p.m.", ["13:30"])
    assert not is_gold_answer("6 pm", ["8am to 6pm"])  # one end of the span is not the span
    assert not is_gold_answer("09:00", ["9"])  # a bare number is no time of day


def test_a_name_without_its_middle_names_is_the_same_answer():
    from conflictdesk.evaluation.ask_scoring import is_gold_answer

    assert is_gold_answer("Tatyana Ali", ["Tatyana Marisol Ali"])
    assert is_gold_answer("George Herbert Walker Bush", ["George Bush"])
    assert not is_gold_answer("Tatyana Banks", ["Tatyana Marisol Ali"])
    assert not is_gold_answer("the Ali family", ["Tatyana Marisol Ali"])  # not a name alone


def test_a_listed_gold_answer_is_held_when_every_item_is():
    from conflictdesk.evaluation.ask_scoring import is_gold_answer

    assert is_gold_answer("Ana Brill and Piet Rask", ["Piet Rask,Ana Brill"])
    assert is_gold_answer("Brill, Rask & Vell", ["Vell; Rask; Brill"])
    assert not is_gold_answer("Ana Brill", ["Piet Rask,Ana Brill"])  # one of two
    assert not is_gold_answer("Ana Brill and Tom Arlow", ["Piet Rask,Ana Brill"])
