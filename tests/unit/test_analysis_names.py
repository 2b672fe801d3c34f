"""Name variants: subject matching in the tagger and answer keys in the claim step."""

from __future__ import annotations

import pytest

from conflictdesk.analysis.claims import frame_query
from conflictdesk.analysis.names import (
    GENERIC_WEIGHT,
    answer_key,
    name_tokens,
    subject_weights,
    word_form,
)
from conflictdesk.analysis.tag import read_passages, subject_coverage, subject_words
from conflictdesk.types import Passage


@pytest.mark.parametrize(
    ("word", "form"),
    [
        ("Zembrook's", "zembrook"),
        ("Zembrook’s", "zembrook"),
        ("Hexworths'", "hexworth"),
        ("Hexworths", "hexworth"),
        ("glass", "glass"),  # -ss is no plural
        ("Plissadine", "plissadine"),
        ("bus", "bus"),  # too short to reduce
    ],
)
def test_word_form_drops_case_possessive_and_plural(word, form):
    assert word_form(word) == form


def test_name_tokens_split_hyphens_and_keep_the_whole():
    tokens = name_tokens("The Zembrook-Tobrevant line's timetable")
    assert {"zembrook", "tobrevant", "zembrook-tobrevant", "line", "timetable"} <= tokens
    assert "line's" not in tokens


@pytest.mark.parametrize(
    "variant",
    ["Quarvington", "quarvington", "Quarvington's", "the Quarvington", "Quarvington Ltd.",
     "QUARVINGTON, Inc.", "Quarvington plc", "Quarvington FC"],
)  # fmt: skip
def test_answer_variants_share_one_key(variant):
    assert answer_key(variant) == "quarvington"


def test_answer_keys_keep_different_names_apart_and_a_bare_suffix():
    assert answer_key("Quarvington Holdings") != answer_key("Quarvington")
    assert answer_key("Plissadine") != answer_key("Quarvington")
    assert answer_key("Ltd") == "ltd"  # nothing before it: kept, not emptied
    assert answer_key("Co Tobrevant") == "co tobrevant"  # only a trailing suffix goes


def test_subject_weights_legal_suffix_nothing_common_word_little():
    weights = subject_weights({"zembrook", "ltd", "river", "2019", "st"}, {"river"})
    assert weights == {
        "zembrook": 1.0,
        "ltd": 0.0,
        "river": GENERIC_WEIGHT,
        "2019": GENERIC_WEIGHT,
        "st": GENERIC_WEIGHT,
    }


def test_company_named_with_its_legal_suffix_or_possessive_is_the_subject():
    passages = [
        Passage(0, "Zembrook Ltd was founded in 1931 by two glassblowers."),
        Passage(1, "Zembrook's first kiln opened in 1931 on the river bank."),
        Passage(2, "Tobrevant Glassworks was founded in 1890 by Ada Hexworth."),
    ]
    query = "In what year was Zembrook founded?"
    assert subject_words(query, passages) == {"zembrook"}
    assert subject_coverage(query, passages) == {0: 1.0, 1: 1.0, 2: 0.0}
    assert read_passages(query, passages).about_other == frozenset({2})


def test_rare_part_of_a_multiword_name_covers_it_a_shared_common_part_does_not():
    passages = [
        Passage(0, "Mount Plissadine rises to 3,120 metres above the valley."),
        Passage(1, "The summit of Plissadine was first reached in 1901."),
        Passage(2, "Mount Kessary, its neighbour across the mount road, is lower."),
    ]
    query = "How high is Mount Plissadine?"
    coverage = subject_coverage(query, passages)
    assert coverage is not None
    # "mount" is written in lower case in passage 2: a common word, weight GENERIC_WEIGHT
    assert coverage[1] == pytest.approx(1 / (1 + GENERIC_WEIGHT))
    assert coverage[2] == pytest.approx(GENERIC_WEIGHT / (1 + GENERIC_WEIGHT))
    assert read_passages(query, passages).about_other == frozenset({2})


def test_possessive_and_legal_suffix_answers_count_as_one_answer():
    passages = [
        Passage(0, "The chief executive of Tobrevant is Quarvington Ltd, its parent."),
        Passage(1, "Tobrevant's chief executive is Quarvington's nominee board."),
        Passage(2, "The chief executive of Tobrevant is Hexworth."),
    ]
    query = "Who is the chief executive of Tobrevant?"
    ranked = {p.id: [p.text] for p in passages}
    frame, answers = frame_query(query, passages, ranked, {0: 1.0, 1: 1.0, 2: 1.0})
    assert [c.passage_ids for c in frame.candidates] == [(0, 1), (2,)]
    assert answers[0][0] == answers[1][0]


def test_names_ending_in_the_same_two_words_are_one_answer():
    passages = [
        Passage(0, "The chief executive of Tobrevant is Glassmaker Ada Hexworth."),
        Passage(1, "Tobrevant's chief executive is Councillor Ada Hexworth."),
        Passage(2, "The chief executive of Tobrevant is Piet Hexworth."),
    ]
    query = "Who is the chief executive of Tobrevant?"
    ranked = {p.id: [p.text] for p in passages}
    frame, _ = frame_query(query, passages, ranked, {0: 1.0, 1: 1.0, 2: 1.0})
    assert [c.passage_ids for c in frame.candidates] == [(0, 1), (2,)]  # one word: not one name


def test_the_subject_in_a_variant_form_is_no_answer_and_answers_lose_the_possessive():
    passages = [
        Passage(0, "Records show Tobrevant's founder was Ada Hexworth's cousin Plissadine."),
        Passage(1, "The founder of Tobrevant Ltd was Plissadine, a glassblower."),
    ]
    query = "Who was the founder of Tobrevant?"
    ranked = {p.id: [p.text] for p in passages}
    frame, _ = frame_query(query, passages, ranked, {0: 1.0, 1: 1.0})
    texts = [c.text for c in frame.candidates]
    assert not any("Tobrevant" in t for t in texts)
    assert all("'s" not in t for t in texts)


def test_an_entity_named_by_part_of_its_name_backs_the_full_name():
    passages = [
        Passage(0, "The mural was painted by Ada Hexworth in 1931."),
        Passage(1, "Critics credit the mural to Hexworth, who painted it in 1931."),
        Passage(2, "The mural was painted by Ada Hexworth, the town's first artist."),
        Passage(3, "The mural was painted by Tobias Quarvington."),
    ]
    query = "Who painted the mural?"
    ranked = {p.id: [p.text] for p in passages}
    frame, answers = frame_query(query, passages, ranked, {p.id: 1.0 for p in passages})
    assert [(c.text, c.passage_ids) for c in frame.candidates] == [
        ("Ada Hexworth", (0, 2, 1)),
        ("Tobias Quarvington", (3,)),
    ]
    assert answers[1][0] == "Ada Hexworth"


def test_a_passage_that_names_no_rival_keeps_the_subject_one_naming_a_rival_does_not():
    passages = [
        Passage(0, "Zembrook council collects bulky waste on the first Tuesday of each month."),
        Passage(1, "Zembrook residents can book a bulky waste collection online."),
        Passage(2, "Reminder: the next bulky waste collection is on Tuesday 4 June."),
        Passage(3, "In Hexworth, bulky waste is collected on the last Friday of each month."),
    ]
    query = "When is bulky waste collected in Zembrook?"
    coverage = subject_coverage(query, passages)
    assert coverage is not None and coverage[2] == coverage[3] == 0.0
    # passage 2 names nothing in the subject's place (a weekday and a date are no entity)
    assert read_passages(query, passages).about_other == frozenset({3})


def test_a_rival_named_in_the_title_counts_even_when_the_text_writes_it_in_lower_case():
    passages = [
        Passage(0, "The maximum daily dose of Dravonil for adults is 300 mg.", title="Dravonil"),
        Passage(1, "Dravonil tablets: the daily dose for adults is 300 mg.", title="Label"),
        Passage(
            2,
            "Kessamine is a vitamin found in barley; an adequate kessamine intake helps bones. "
            "The recommended daily intake for adults is 9 micrograms.",
            title="Kessamine and bone health",
        ),
    ]
    query = "What is the recommended daily dose of dravonil for adults?"
    assert read_passages(query, passages).about_other == frozenset({2})


def test_the_answer_to_a_who_question_is_no_rival_of_the_subject():
    # passage 1 answers without repeating the band's name: the name it gives is the answer
    passages = [
        Passage(0, "Orlen Vask was the lead singer of the Tobrevant Quartet on its first album."),
        Passage(1, "Hessel Marr sang lead on the early records, his voice high and clear."),
        Passage(2, "The Tobrevant Quartet's lead singer on the first album was Orlen Vask."),
        Passage(3, "Kessary Choir, a rival group, toured with its conductor Ada Plum."),
    ]
    query = "Who was the lead singer of the Tobrevant Quartet?"
    assert read_passages(query, passages).about_other == frozenset({3})


def test_a_lone_place_whose_adjective_the_question_uses_is_no_answer():
    passages = [
        Passage(0, "The main source of Ostrava's classical dances was written by."),
        Passage(1, "A quiz: the main source of the classical dances of Ostrava was written by."),
        Passage(2, "The main source of Ostrava's classical dances was written by Ada Hexworth."),
    ]
    query = "The main source of ostravan classical dances was written by?"
    ranked = {p.id: [p.text] for p in passages}
    frame, _ = frame_query(query, passages, ranked, {0: 1.0, 1: 1.0, 2: 1.0})
    assert "Ostrava" not in [c.text for c in frame.candidates]
    assert frame.leading == "Ada Hexworth"


def test_a_name_qualifying_a_denied_noun_is_no_answer():
    passages = [
        Passage(0, "No Zembrook driver has won the Ostrava rally twice."),
        Passage(1, "The Ostrava rally was won twice by Ada Hexworth."),
    ]
    query = "Who has won the Ostrava rally twice?"
    ranked = {p.id: [p.text] for p in passages}
    frame, answers = frame_query(query, passages, ranked, {0: 1.0, 1: 0.9})
    assert [c.text for c in frame.candidates] == ["Ada Hexworth"]
    assert 0 not in answers


def test_a_profession_question_reads_no_name_as_the_profession():
    passages = [
        Passage(0, "Hexworth studied glassmaking at the Ostrava Academy of Arts in 1930."),
        Passage(1, "Hexworth studied at the Ostrava Academy of Arts with Piet Zembrook."),
        Passage(2, "Ada Hexworth (1902–1977) was a Velmark glassblower who worked in Ostrava."),
    ]
    query = "What is the profession of Ada Hexworth?"
    ranked = {p.id: [p.text] for p in passages}
    frame, answers = frame_query(query, passages, ranked, {p.id: 1.0 for p in passages})
    assert frame.leading == "Velmark glassblower"
    assert 0 not in answers and 1 not in answers


def test_a_genre_question_reads_no_name_as_the_genre():
    passages = [
        Passage(
            0, "The Zembrook Quartet recorded its first album at Ostrava Studios with Piet Kalder."
        ),
        Passage(1, "The Zembrook Quartet recorded with Piet Kalder in Ostrava."),
        Passage(2, "The Zembrook Quartet is a Velmark folk rock band formed in Ostrava in 1998."),
    ]
    query = "What genre does the Zembrook Quartet play?"
    ranked = {p.id: [p.text] for p in passages}
    frame, answers = frame_query(query, passages, ranked, {p.id: 1.0 for p in passages})
    assert frame.leading == "Velmark folk rock band"
    assert 0 not in answers and 1 not in answers
