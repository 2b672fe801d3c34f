"""Questions asking for a sport, read from descriptions of a role or an event."""

from __future__ import annotations

import pytest

from conflictdesk.analysis.claims import frame_query
from conflictdesk.analysis.sports import asks_sport, named_sport, sport_of
from conflictdesk.types import Passage


def test_sport_questions_are_recognised():
    assert asks_sport("What sport is Ada Hexworth associated with?")
    assert asks_sport("Which sport did the Zembrook club play?")
    assert not asks_sport("Who won the Ostrava sports award?")


@pytest.mark.parametrize(
    ("description", "sport"),
    [
        ("former Velmark cricketer", None),  # not a nationality: no agent stem read
        ("former English cricketer", "cricket"),
        ("Scottish former footballer", "football"),
        ("golfer", "golf"),
        ("basketball coach", "basketball"),
        ("ice hockey player", "ice hockey"),
        ("American football coach", "American football"),  # the nationality names the sport
        ("American former professional baseball pitcher", "baseball"),
        ("WTA Tour tennis event", "tennis"),
        ("rugby union", None),  # a sport's own name stays as read
        ("swimmer", None),  # "swimm" is no word
        ("professional wrestler", None),
        ("Ostrava Cup", None),
    ],
)
def test_sport_of_a_description(description, sport):
    assert sport_of(description) == sport


def test_a_sport_question_leads_with_the_sport_its_passages_describe():
    passages = [
        Passage(0, "Ada Hexworth is a former English cricketer who played for Zembrook."),
        Passage(1, "Ada Hexworth is an English cricket coach at the Ostrava academy."),
        Passage(2, "Ada Hexworth is a Scottish former footballer."),
    ]
    query = "What sport is Ada Hexworth associated with?"
    ranked = {p.id: [p.text] for p in passages}
    frame, _ = frame_query(query, passages, ranked, {p.id: 1.0 for p in passages})
    assert [(c.text, c.passage_ids) for c in frame.candidates] == [
        ("cricket", (0, 1)),
        ("football", (2,)),
    ]


def test_named_sport_reads_the_longest_name_as_written():
    assert named_sport(["The Ostrava Cup is a Rugby Union competition."]) == "Rugby Union"
    assert named_sport(["Zembrook won the cup twice.", "It is an ice hockey trophy."]) == (
        "ice hockey"
    )
    assert named_sport(["Zembrook won the Ostrava Cup twice."]) is None


def test_a_sport_question_reads_the_sport_a_passage_names_and_no_other_answer():
    passages = [
        Passage(
            0, "Ada Hexworth was named MVP in 2011 after playing college football at Zembrook."
        ),
        Passage(1, "Ada Hexworth was named MVP of the Ostrava Bowl in 2011."),
    ]
    query = "What sport is Ada Hexworth associated with?"
    ranked = {p.id: [p.text] for p in passages}
    frame, answers = frame_query(query, passages, ranked, {p.id: 1.0 for p in passages})
    assert [c.text for c in frame.candidates] == ["football"]
    assert 1 not in answers  # it names no sport


def test_a_sport_in_brackets_after_the_subjects_name_answers_first():
    from conflictdesk.analysis.sports import bracketed_sport

    query = "What sport is Ada Hexworth associated with?"
    page = [
        "Ada Hexworth played baseball at school and tennis in summer.",
        "Contents Ada Hexworth ( American football ) 3 languages Add topic",
    ]
    assert bracketed_sport(query, page) == ("American football", page[1])
    ranked = {0: page}
    frame, _ = frame_query(query, [Passage(0, " ".join(page))], ranked, {0: 1.0})
    assert [c.text for c in frame.candidates] == ["American football"]
    # a bracket after another name, or holding no sport, is no answer
    assert bracketed_sport(query, ["Tessel (ferry port) hosts Zembrook (cricket)."]) is None
