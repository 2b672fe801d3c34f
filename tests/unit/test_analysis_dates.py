"""Dates in metadata and text."""

from __future__ import annotations

from datetime import date

import pytest

from conflictdesk.analysis.claims import answer_spans, frame_query
from conflictdesk.analysis.dates import find_calendar, find_dates, parse_iso, passage_date, years
from conflictdesk.types import Passage


def test_parse_iso_precisions():
    assert parse_iso("2024") == date(2024, 1, 1)
    assert parse_iso("2024-03") == date(2024, 3, 1)
    assert parse_iso("2024-03-17T10:00:00Z") == date(2024, 3, 17)
    assert parse_iso("March 2024") == date(2024, 3, 1)
    assert parse_iso("2024-13-01") is None
    assert parse_iso(None) is None


def test_find_dates_in_text_forms():
    found = find_dates(
        "As of March 2024, 279 people; on 12 September 2021 it was 244; "
        "the 2017-04-04 release; in 1998; 1,950 visitors."
    )
    assert [(d.iso(), d.precision) for d in found] == [
        ("2024-03", "m"),
        ("2021-09-12", "d"),
        ("2017-04-04", "d"),
        ("1998", "y"),
    ]


def test_numbers_are_not_years():
    assert years("It cost 1,950 dollars and 2000.5 grams") == set()


def test_passage_date_prefers_metadata_then_latest_text_date():
    assert passage_date(Passage(0, "In 1990 and 2010.", date="2015-06")) == (
        date(2015, 6, 1),
        "metadata",
    )
    assert passage_date(Passage(1, "In 1990 and in May 2010.")) == (date(2010, 5, 1), "text")
    assert passage_date(
        Passage(2, "Released on May 30, 2017, after 2016."), exclude={"may 30, 2017"}
    ) == (date(2016, 1, 1), "text")
    assert passage_date(Passage(3, "No dates here.")) is None


def test_parse_iso_reads_the_date_forms_ingestion_accepts():
    # Inline documents (`ask -`) carry dates as users write them, not only ISO.
    assert parse_iso("15 October 2022") == date(2022, 10, 15)
    assert parse_iso("October 2022") == date(2022, 10, 1)
    assert parse_iso("2022-02-30") is None
    assert parse_iso("soon") is None and parse_iso(None) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Held every Wednesday and on Saturdays.", [("Wednesday", "wednesday"), ("Saturdays", "saturday")]),
        ("The final is played in May.", [("May", "05")]),
        ("on the last Friday of October", [("last Friday of October", "last-friday-10")]),
        ("on 15 June, or June 15th", [("15 June", "06-15"), ("June 15th", "06-15")]),
        ("from mid-June to late August", [("June", "06"), ("August", "08")]),
        ("You may march at will.", []),  # the verbs, not the months
        ("May I ask?", []),  # "May" without a preposition before it: the modal
    ],
)  # fmt: skip
def test_find_calendar_reads_yearless_times(text: str, expected: list[tuple[str, str]]) -> None:
    assert [(c.span, c.key) for c in find_calendar(text)] == expected


def test_a_date_question_reads_a_yearless_time_only_where_no_year_dates_the_sentence() -> None:
    query = "When is the Osterley fair held?"
    assert [s[1:3] for s in answer_spans("The fair is held every Saturday.", "date", query)] == [
        ("cal:saturday", "Saturday")
    ]
    spans = answer_spans("The fair was first held on a Saturday in 1871.", "date", query)
    assert [s[2] for s in spans] == ["1871"]


def test_frame_groups_one_yearless_time_however_written() -> None:
    texts = [
        "The fair is held on 15 June.",
        "It takes place on June 15th.",
        "The fair opens in May.",
    ]
    passages = [Passage(id=i, text=t, document_id=i) for i, t in enumerate(texts)]
    ranked = {p.id: [p.text] for p in passages}
    frame, answers = frame_query(
        "When is the Osterley fair held?", passages, ranked, {p.id: 1.0 for p in passages}
    )
    assert frame.leading in ("15 June", "June 15th")
    assert [c.kind for c in frame.candidates] == ["date", "date"]
    assert len(answers) == 3


def test_a_month_backs_the_day_of_that_month_it_contains():
    texts = ["The fair is held on 15 June.", "The fair is held in June.", "The fair opens in May."]
    passages = [Passage(id=i, text=t, document_id=i) for i, t in enumerate(texts)]
    ranked = {p.id: [p.text] for p in passages}
    frame, answers = frame_query(
        "When is the Osterley fair held?", passages, ranked, {0: 0.5, 1: 0.5, 2: 0.9}
    )
    assert frame.leading == "15 June"  # 0.5 + 0.5 for June against 0.9 for May
    assert frame.candidates[0].passage_ids == (0, 1)
    assert answers[1][0] == "15 June"
