"""What a number question measures and what a number span measures
(conflictdesk/analysis/dimensions.py), and how the answer reading uses them."""

from __future__ import annotations

import re

import pytest

from conflictdesk.analysis import dimensions as dim
from conflictdesk.analysis.claims import answer_spans, frame_query
from conflictdesk.types import Passage

NUMBER = re.compile(r"[\d,.]*\d%?")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("How tall is the Brenwick tower?", dim.LENGTH),
        ("What is the elevation of Lake Ormond?", dim.LENGTH),
        ("How much does the new kettle weigh?", dim.MASS),
        ("What is the melting point of tin?", dim.TEMPERATURE),
        ("How long does the journey take?", dim.TIME),
        ("How old is the cathedral?", dim.TIME),
        ("What is the length of time between the two surveys?", dim.TIME),
        ("What is the length of the Emsworth canal?", dim.LENGTH),
        ("What is the area of the park?", dim.AREA),
        ("How much is the entrance fee?", dim.MONEY),
        ("What percentage of voters turned out?", dim.PERCENT),
        ("How many miles is the trail?", dim.LENGTH),
        ("How many members does the choir have?", dim.COUNT),
        ("What is the number of seats in the hall?", dim.COUNT),
        ("How long is the Emsworth canal?", None),  # a length or a time
        ("What is the capacity of the arena?", None),
        ("What is the speed limit on the coast road?", dim.SPEED),
        ("How fast does the ferry go?", dim.SPEED),
        ("What is the maximum charging power of the tablet?", dim.POWER),
        ("What is the battery capacity of the earbuds?", dim.CHARGE),
        ("How long is the warranty on the dryer?", dim.TIME),
    ],
)
def test_asked_dimension(query: str, expected: str | None) -> None:
    assert dim.asked_dimension(query) == expected


def _span(text: str, surface: str) -> tuple[int, int]:
    start = text.index(surface)
    return start, start + len(surface)


@pytest.mark.parametrize(
    ("text", "surface", "expected"),
    [
        ("It covers 2,300 square kilometres.", "2,300 square kilometres", dim.AREA),
        ("A frame with 20-inch wheels.", "20", dim.LENGTH),
        ("The walk takes 40 minutes.", "40 minutes", dim.TIME),
        ("Tickets cost $35 each.", "35", dim.MONEY),
        ("Turnout was 61 percent.", "61 percent", dim.PERCENT),
        ("The hall seats 900 people.", "900", None),
        ("It holds 4,000.", "4,000", None),
        ("The limit is 80 km/h here.", "80", dim.SPEED),
        ("It charges at 65 W.", "65", dim.POWER),
        ("A 5,000 mAh cell.", "5,000", dim.CHARGE),
        ("With 256 GB of storage.", "256", dim.DATA),
        ("Covered by a 3-year warranty.", "3", dim.TIME),
    ],
)
def test_span_dimension(text: str, surface: str, expected: str | None) -> None:
    assert dim.span_dimension(text, *_span(text, surface)) == expected


def test_fits_keeps_unitless_spans_and_drops_other_dimensions() -> None:
    text = "The summit rises 2,950 metres over a park of 1,200 square kilometres; 17 huts."
    assert dim.fits(dim.LENGTH, text, *_span(text, "2,950 metres"))
    assert not dim.fits(dim.LENGTH, text, *_span(text, "1,200 square kilometres"))
    assert dim.fits(dim.LENGTH, text, *_span(text, "17"))
    assert dim.fits(None, text, *_span(text, "1,200 square kilometres"))
    # a count is no measurement
    assert not dim.fits(dim.COUNT, text, *_span(text, "2,950 metres"))
    assert dim.fits(dim.COUNT, text, *_span(text, "17"))


def test_a_bare_year_after_a_preposition_of_time_is_no_number_answer() -> None:
    text = "The club has played here since 1921 and the ground holds 18,000."
    assert dim.is_bare_year(text, *_span(text, "1921"))
    assert not dim.fits(dim.COUNT, text, *_span(text, "1921"))
    assert not dim.is_bare_year(text, *_span(text, "18,000"))
    assert not dim.is_bare_year("It has 1921 seats.", 7, 11)


def test_answer_spans_read_only_numbers_that_measure_what_is_asked() -> None:
    sentence = "Ben Corran is 1,344 metres high and its massif covers 620 square kilometres."
    query = "How high is Ben Corran?"
    surfaces = [s[2] for s in answer_spans(sentence, "number", query)]
    assert surfaces == ["1,344 metres"]
    unmeasured = [s[2] for s in answer_spans(sentence, "number", query, measured=False)]
    assert unmeasured == ["1,344 metres", "620 square kilometres"]


def _frame(query: str, texts: list[str]):
    passages = [Passage(id=i, text=t, document_id=i) for i, t in enumerate(texts)]
    ranked = {p.id: [p.text] for p in passages}
    return frame_query(query, passages, ranked, {p.id: 1.0 for p in passages})


def test_frame_prefers_numbers_of_the_asked_dimension() -> None:
    frame, answers = _frame(
        "How much does the Altano scooter weigh?",
        ["The Altano scooter has 10-inch tyres.", "The Altano scooter weighs 12.5 kg."],
    )
    assert frame.leading == "12.5 kg"
    assert 0 not in answers  # the tyre size is no weight
    assert frame.method == "rule"


def test_frame_falls_back_to_any_number_when_none_measures_the_asked_dimension() -> None:
    frame, _ = _frame(
        "How many volunteers staff the Vessary festival?",
        ["The Vessary festival runs for 12 days."],
    )
    assert frame.leading == "12 days"
    assert frame.method == "rule:unit-fallback"


@pytest.mark.parametrize(
    ("surface", "value"),
    [("seven", 7), ("Nineteen", 19), ("forty-two", 42), ("ninety", 90), ("two hundred", 200),
     ("three thousand", 3000), ("two hundred and fifty", 250), ("one hundred", 100),
     ("three thousand four hundred and twelve", 3412), ("seventeen hundred", 1700),
     ("two hundred thousand", 200_000)],
)  # fmt: skip
def test_cardinals_in_words(surface: str, value: int) -> None:
    assert [m.group(0) for m in dim.NUMBER_WORDS.finditer(f"about {surface} of them")] == [surface]
    assert dim.number_word_value(surface) == value


def test_a_lone_one_and_a_dangling_and_are_no_part_of_a_cardinal() -> None:
    found = [m.group(0) for m in dim.NUMBER_WORDS.finditer("one of two hundred and the rest")]
    assert found == ["two hundred"]


def test_a_number_written_in_words_answers_a_number_question_and_merges_with_digits() -> None:
    spans = answer_spans("Each crew has nine rowers.", "number", "How many rowers are in a crew?")
    assert [(s[1], s[2]) for s in spans] == [("num:9", "nine")]
    assert answer_spans("Each crew has nine rowers.", "entity", "Who rows?") == []
    frame, _ = _frame(
        "How many rowers are in a Tallis crew?",
        ["A Tallis crew has nine rowers.", "Tallis crews race with 9 rowers."],
    )
    assert len(frame.candidates) == 1  # "nine" and "9" are one answer


def test_every_unit_quantities_converts_reads_as_its_dimension() -> None:
    from conflictdesk.analysis.quantities import UNIT_DIMENSIONS

    for unit, dimension in UNIT_DIMENSIONS.items():
        text = f"about 7 {unit} in all"
        assert dim.span_dimension(text, 6, 7) == dimension, unit


def test_a_population_is_a_count():
    assert dim.asked_dimension("What is the population of Tessel?") == dim.COUNT
    text = "Of 17,289 people, 28.7% are over 65; density 139.8 people per square mile; 1.2 million"
    found = {m.group(0): dim.fits(dim.COUNT, text, *m.span()) for m in NUMBER.finditer(text)}
    assert found == {"17,289": True, "28.7%": False, "65": True, "139.8": False, "1.2": True}


def test_a_count_is_whole_or_scaled_and_no_rate():
    assert dim.is_count("about 41.172464 north", 6, 15) is False
    assert dim.is_count("2.4 million visitors", 0, 3) is True
    assert dim.is_count("8 deaths per 1,000 births", 0, 1) is False
    assert dim.is_count("61 per cent of voters", 0, 2) is True  # a percentage: its unit decides


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12% of the residents are aged 65 or older.", "65"),
        ("No one under the age of 18 may vote.", "18"),
        ("The population grew by 1,951 between the censuses.", "1,951"),
        ("The population rose by 4.2% (1,951 people) in ten years.", "1,951"),
    ],
)
def test_an_age_or_a_change_is_no_count(text, value):
    start = text.index(value)
    assert dim.is_count(text, start, start + len(value)) is False
    plain = f"The town had {value} residents."
    assert dim.is_count(plain, plain.index(value), plain.index(value) + len(value)) is True


def test_a_population_question_reads_the_population_not_its_growth() -> None:
    frame, _ = _frame(
        "What is the population of Orla?",
        ["Orla's population grew by 1,951 between 1992 and 2002 and is now 16,337."],
    )
    assert [c.text for c in frame.candidates] == ["16,337"]


def test_a_speed_question_reads_the_speed_not_the_distance() -> None:
    frame, _ = _frame(
        "What is the speed limit on the coast road?",
        [
            "The coast road is 42 km long and the limit on it is 80 km/h.",
            "Drivers on the 42 km coast road must keep to 80 km/h.",
        ],
    )
    assert [c.text for c in frame.candidates] == ["80 km/h"]


@pytest.mark.parametrize(
    ("query", "clock"),
    [("What time does the Orlen museum open?", True), ("At what time does the ferry leave?", True),
     ("What hours is the pool open?", True), ("What are the Saturday opening hours of X?", True),
     ("What time period is the Jurassic?", False), ("How many hours does the ferry take?", False),
     ("What are the side effects of X?", False), ("What is the time limit for appeals?", False)],
)  # fmt: skip
def test_a_question_for_a_time_of_day_asks_for_the_clock(query: str, clock: bool) -> None:
    from conflictdesk.analysis.claims import answer_kind

    assert (dim.asked_dimension(query) == dim.CLOCK) is clock
    if clock:
        assert answer_kind(query) == "number"


def test_a_time_of_day_is_no_count_and_no_duration() -> None:
    text = "The gates open at 10 p.m. and the 12 km walk takes 3 hours."
    spans = answer_spans(text, "number", "How many people walk?")
    assert [s[2] for s in spans] == []  # neither the time nor the measures are counts
    frame, _ = _frame("What time do the gates open?", [text])
    assert [c.text for c in frame.candidates] == ["10 p.m."]


def test_a_capacity_asks_for_a_number_and_a_year_after_mid_is_a_date() -> None:
    from conflictdesk.analysis.claims import answer_kind

    assert answer_kind("What is the capacity of the Orlen stadium?") == "number"
    text = "Our home since 1908, the Orlen stadium holds 23,500 spectators."
    frame, _ = _frame("What is the capacity of the Orlen stadium?", [text])
    assert [c.text for c in frame.candidates] == ["23,500"]  # not the year after "since"
    text = "Estimated resident population of Orlen, mid-2017: 43,100."
    frame, _ = _frame("What is the population of Orlen?", [text])
    assert [c.text for c in frame.candidates] == ["43,100"]
