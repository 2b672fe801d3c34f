"""Questions asking what an abbreviation stands for, and the expansions passages write."""

from __future__ import annotations

import pytest

from conflictdesk.analysis.acronyms import asked_abbreviation, expansion, expansion_answer
from conflictdesk.analysis.claims import frame_query
from conflictdesk.types import Passage


@pytest.mark.parametrize(
    ("query", "letters"),
    [
        ("What does QTR stand for on Velmark tax forms?", "qtr"),
        ("what does the vkp in vkp index stand for", "vkp"),
        ("Full form of brt on the Ostrava timetable?", "brt"),
        ("What is the meaning of lq in Tobrevant reports?", "lq"),
        ("What does pz mean on a Zembrook kettle?", "pz"),
        ("What does QUVARN mean in the Hexworth archive?", "quvarn"),  # capitals: an abbreviation
        ("What does d k stand for in the Ostrava novels?", "dk"),  # single letters
        ("What is BTK short for?", "btk"),
    ],
)
def test_questions_about_an_abbreviation_name_its_letters(query, letters):
    assert asked_abbreviation(query) == letters


@pytest.mark.parametrize(
    "query",
    [
        "What does the o in a Velmark surname mean?",  # one letter
        "What does borg mean at the end of a place name?",  # a word, not an abbreviation
        "What is the meaning of the name Plissadine?",
        "What does code 12 mean at the Ostrava depot?",
        "Who founded the Zembrook glassworks?",
    ],
)
def test_other_questions_ask_no_expansion(query):
    assert asked_abbreviation(query) is None


@pytest.mark.parametrize(
    ("sentence", "letters", "surface"),
    [
        ("QTR stands for Quarterly Tax Return, filed in April.", "qtr", "Quarterly Tax Return"),
        ("The Velmark Kettle Prize (VKP) index rose.", "vkp", "Velmark Kettle Prize"),
        ("It is the Bank of Rural Towns.", "brt", "Bank of Rural Towns"),  # a connector between
        ("Its lower quartile (LQ) is reported yearly.", "lq", "lower quartile"),  # written beside
        ("Tobrevant and Zembrook signed first.", "tz", "Tobrevant and Zembrook"),
    ],
)
def test_an_expansion_is_the_run_of_words_spelling_the_letters(sentence, letters, surface):
    assert expansion(sentence, letters) == surface


@pytest.mark.parametrize(
    ("sentence", "letters"),
    [
        ("the lower quay was closed", "lq"),  # lower case, abbreviation not written: chance
        ("D.K. Hexworth wrote the novels.", "dk"),  # the abbreviation itself, with stops
        ("The QTR form is due in April.", "qtr"),  # the abbreviation alone
        ("Quarterly reports of the Tax office", "qtr"),  # a word between that is no connector
    ],
)
def test_no_expansion_by_chance_or_from_the_abbreviation_itself(sentence, letters):
    assert expansion(sentence, letters) is None


def test_expansion_answer_takes_the_first_sentence_that_writes_one():
    sentences = ["The QTR form is due in April.", "QTR stands for quarterly tax return."]
    key, surface, kind, sentence = expansion_answer(sentences, "qtr")
    assert (key, surface, kind) == ("exp:quarterly tax return", "quarterly tax return", "phrase")
    assert sentence == sentences[1]
    assert expansion_answer(["The QTR form is due."], "qtr") is None


def test_the_frame_leads_with_the_expansion_most_passages_write():
    passages = [
        Passage(0, "On Velmark forms, QTR stands for Quarterly Tax Return."),
        Passage(1, "The QTR (quarterly tax return) is filed by every trader in Velmark."),
        Passage(2, "Velmark QTR forms: Quick Trader Registration, for new firms."),
        Passage(3, "The QTR form on Velmark's site is a PDF of two pages."),
    ]
    query = "What does QTR stand for on Velmark forms?"
    ranked = {p.id: [p.text] for p in passages}
    frame, answers = frame_query(query, passages, ranked, {p.id: 1.0 for p in passages})
    assert [(c.text, c.passage_ids) for c in frame.candidates] == [
        ("Quarterly Tax Return", (0, 1)),
        ("Quick Trader Registration", (2,)),
    ]
    assert frame.leading == "Quarterly Tax Return" and frame.method == "rule"
    assert 3 not in answers  # a passage writing no expansion holds no answer


def test_without_an_expansion_the_question_is_read_as_before():
    passages = [Passage(0, "The QTR form of Velmark is due on 30 April.")]
    query = "What does QTR stand for on Velmark forms?"
    frame, _ = frame_query(query, passages, {0: [passages[0].text]}, {0: 1.0})
    assert frame.leading != "" and not frame.leading.startswith("exp")
