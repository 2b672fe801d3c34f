"""Sentence spans, clause splitting and number helpers of conflictdesk.text."""

from __future__ import annotations

import pytest

from conflictdesk.text import (
    find_numbers,
    find_years,
    normalise_answer,
    split_claims,
    split_clauses,
    split_sentences,
)


def test_spans_index_the_original_text():
    text = "  Dr. Smith met J. K. Rowling in the U.S. on Monday. It took 3.5 hours!  Why? Yes."
    spans = split_sentences(text)
    assert [s for _, _, s in spans] == [
        "Dr. Smith met J. K. Rowling in the U.S. on Monday.",
        "It took 3.5 hours!",
        "Why?",
        "Yes.",
    ]
    for start, end, sentence in spans:
        assert text[start:end] == sentence


def test_blank_lines_and_list_items_start_sentences_without_their_markers():
    text = "Intro without a period\n\n- First item here\n- Second item here\n2. Third item"
    assert [s for _, _, s in split_sentences(text)] == [
        "Intro without a period",
        "First item here",
        "Second item here",
        "Third item",
    ]


def test_lower_case_after_period_does_not_split():
    assert len(split_sentences("It costs approx. five dollars. Next one.")) == 2
    assert len(split_sentences("Values e.g. this one and i.e. that one.")) == 1


def test_papers_hedged_example_splits_and_borrows_the_subject():
    claims = split_clauses(
        "Coffee consumption can improve alertness but may also cause sleep disruption."
    )
    assert claims == [
        "Coffee consumption can improve alertness.",
        "Coffee consumption may also cause sleep disruption.",
    ]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "The city had 3,559 people in 2010; the population fell to 3,506 in 2020.",
            ["The city had 3,559 people in 2010.", "The population fell to 3,506 in 2020."],
        ),
        (
            "The drug was approved in 2001, and it was withdrawn in 2005.",
            ["The drug was approved in 2001.", "It was withdrawn in 2005."],
        ),
        (
            "Most experts back the plan, while others say it is too costly.",
            ["Most experts back the plan.", "Others say it is too costly."],
        ),
        ("He likes apples and pears.", ["He likes apples and pears."]),
        ("Cats purr but rarely.", ["Cats purr but rarely."]),  # right side too short
    ],
)
def test_split_clauses(sentence, expected):
    assert split_clauses(sentence) == expected


def test_split_claims_drops_questions():
    text = "Is coffee healthy? Coffee contains caffeine. Tea contains less caffeine."
    assert split_claims(text) == ["Coffee contains caffeine.", "Tea contains less caffeine."]


def test_numbers_and_years():
    text = "In 2010 there were 3,559 people; density 2.5 per acre, down -4 since 1999."
    assert find_numbers(text) == [2010.0, 3559.0, 2.5, -4.0, 1999.0]
    assert find_years(text) == [2010, 1999]
    assert find_years("call 12345 or 20100") == []


def test_normalise_answer():
    assert normalise_answer("The  Dallas Cowboys!") == "dallas cowboys"
