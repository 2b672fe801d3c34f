"""Quantities across units: one answer when the written precision allows it."""

from __future__ import annotations

import pytest

from conflictdesk.analysis.claims import frame_query
from conflictdesk.analysis.quantities import merge_same_quantities, quantity, same_quantity
from conflictdesk.types import Passage


def test_quantity_reads_value_unit_and_written_precision():
    q = quantity("3.4 kilometres")
    assert q is not None
    assert (q.dimension, q.value, q.precision) == ("length", pytest.approx(3400), pytest.approx(50))
    assert quantity("3,412 metres").value == pytest.approx(3412)
    assert quantity("287.6 °F").value == pytest.approx(142.0)
    assert quantity("412") is None  # no unit
    assert quantity("18 degrees") is None  # not in the unit table


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("3.4 km", "3,412 m", True),
        ("214 km", "133 miles", True),
        ("142 °C", "287.6 °F", True),
        ("12 km", "7.5 miles", True),
        ("1,180 °C", "1,170 °C", False),
        ("2,741 m", "3,741 metres", False),
        ("250 mg", "250 ml", False),  # another dimension
        ("3.4 km", "3,480 m", False),
        ("24 months", "2 years", True),
        ("2-year", "24 months", True),  # a hyphenated unit is the unit
        ("10 years", "2 years", False),
        ("100 km/h", "62 mph", True),
        ("45 W", "0.045 kW", True),
        ("45 W", "45 Wh", False),  # power is not energy
        ("1 TB", "1,000 GB", True),
        ("4,600 mAh", "4.6 Ah", True),
    ],
)
def test_same_quantity_within_the_coarser_precision(a, b, same):
    assert same_quantity(quantity(a), quantity(b)) is same


def test_merge_moves_the_less_voted_unit_to_the_more_voted():
    groups = {"num:214": [0, 1], "num:133": [2], "num:90": [3]}
    votes = {"num:214": 2.0, "num:133": 1.0, "num:90": 1.0}
    surfaces = {"num:214": "214 km", "num:133": "133 miles", "num:90": "90 km"}
    merge_same_quantities(groups, votes, surfaces)
    assert groups == {"num:214": [0, 1, 2], "num:90": [3]}
    assert votes["num:214"] == 3.0


def _candidates(query: str, texts: list[str]) -> list[tuple[str, list[int]]]:
    passages = [Passage(i, text) for i, text in enumerate(texts)]
    ranked = {p.id: [p.text] for p in passages}
    frame, _ = frame_query(query, passages, ranked, {p.id: 1.0 for p in passages})
    return [(c.text, sorted(c.passage_ids)) for c in frame.candidates]


def test_one_length_in_two_units_is_one_candidate_answer():
    texts = [
        "The Zembrook river is 214 km long from source to sea.",
        "From its source the Zembrook river is 133 miles long.",
        "The Zembrook river is 180 km long, says an old atlas.",
    ]
    assert _candidates("How long is the Zembrook river?", texts) == [
        ("214 km", [0, 1]),
        ("180 km", [2]),
    ]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [("24.7 lb", "11.2 kg", True), ("3 oz", "85 g", True), ("5 inches", "12.7 cm", True),
     ("100 yards", "91 m", True), ("450 mm", "45 cm", True), ("24.7 lb", "12.5 kg", False)],
)  # fmt: skip
def test_imperial_and_small_metric_units_compare_across_units(a, b, same):
    assert same_quantity(quantity(a), quantity(b)) is same


def test_number_spans_keep_imperial_units():
    from conflictdesk.analysis import text as tx

    text = "At 24.7 lb it weighs 11.2 kg; 5 inches (12.7 cm) wide and 3 oz of battery."
    assert [m.group(0) for m in tx.NUMBER.finditer(text)] == [
        "24.7 lb", "11.2 kg", "5 inches", "12.7 cm", "3 oz"]  # fmt: skip


def test_two_years_and_twenty_four_months_are_one_candidate_answer():
    texts = [
        "The Orvane dryer comes with a 2-year guarantee on parts and labour.",
        "Standard warranty on the Orvane dryer: 24 months parts and labour.",
        "The Orvane dryer's motor is covered for 10 years.",
    ]
    found = _candidates("How long is the warranty on the Orvane dryer?", texts)
    assert [ids for _, ids in found] == [[0, 1], [2]]
    assert found[1][0] == "10 years"


@pytest.mark.parametrize(
    ("surface", "minutes"),
    [("9am", 540), ("9 a.m.", 540), ("1:30 pm", 810), ("10.30am", 630), ("13:00", 780),
     ("12am", 0), ("12pm", 720), ("24:00", 0), ("9", None), ("9.30", None), ("13pm", None),
     ("25:00", None)],
)  # fmt: skip
def test_a_time_of_day_is_minutes_after_midnight(surface, minutes):
    from conflictdesk.analysis.quantities import clock_minutes

    assert clock_minutes(surface) == minutes
    if minutes is not None:
        assert quantity(surface) == quantity(f"{minutes // 60:02d}:{minutes % 60:02d}")


def test_times_of_day_are_number_spans_and_a_span_of_them_is_one_range():
    from conflictdesk.analysis import text as tx
    from conflictdesk.analysis.ranges import number_ranges

    text = "Mon-Fri 09:00-19:00; Sat 9am to 1 p.m.; bar 22:00 until 02:00; record 3:33.08"
    assert [(text[a:b], key) for a, b, key in number_ranges(text)] == [
        ("09:00-19:00", "num:09:00-19:00"),
        ("9am to 1 p.m.", "num:09:00-13:00"),
        ("22:00 until 02:00", "num:22:00-02:00"),  # past midnight
        ("3", "num:3"),  # a race time with hundredths is no time of day
        ("33.08", "num:33.08"),
    ]
    assert tx.numbers("9 amazing facts, 2:1 win") == ["9", "2", "1"]


def test_opening_hours_are_read_and_one_span_of_time_however_written():
    texts = [
        "Wexbury Library, Market Street. Monday to Friday: 9:00-19:00. Saturday: 9:00-13:00.",
        "On Saturdays the library opens from 9am to 1pm, and the cafe stays open until 4pm.",
        "Saturday opening: 10:00-12:00, the old leaflet in the hall still says.",
    ]
    found = _candidates("What are the Saturday opening hours of Wexbury Library?", texts)
    assert found == [("9:00-13:00", [0, 1]), ("10:00-12:00", [2])]
