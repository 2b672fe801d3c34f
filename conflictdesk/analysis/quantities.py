"""Quantities in one unit per dimension, so "3.4 kilometres" and "3,412 metres" are one answer.

`quantity` reads a number span as written by `text.NUMBER` ("3,412 metres", "133 miles",
"287.6 °F") into its dimension, its value in the dimension's base unit, and the precision the
writer gave it (half a unit of its last written digit, in the base unit). Two quantities
agree (`same_quantity`) when they share a dimension and differ by no more than the coarser
one's precision: "3.4 km" (± 50 m) agrees with "3,412 m", "1,180 °C" does not with
"1,170 °C". The unit table is a closed list of measurement units (length, mass, volume,
temperature, time, speed, power, energy, charge, digital storage; metric and imperial), so
"24 months" agrees with "2 years" and a hyphenated unit ("2-year") is its unit; a number
without a unit has none and compares only by its written value. "pounds" is left out (also a
currency), and so is "in" (also a preposition). A time of day ("9am", "9:30 p.m.", "13:00") is a
quantity of the dimension "clock", in minutes after midnight, so "1pm" and "13:00" agree."""

from __future__ import annotations

import re
from dataclasses import dataclass

# unit (lower case) -> (dimension, factor to the base unit, offset added after scaling)
# fmt: off
_UNITS: dict[str, tuple[str, float, float]] = {
    **dict.fromkeys(("m", "metre", "metres", "meter", "meters"), ("length", 1.0, 0.0)),
    **dict.fromkeys(("km", "kilometre", "kilometres", "kilometer", "kilometers"),
                    ("length", 1000.0, 0.0)),
    **dict.fromkeys(("mile", "miles"), ("length", 1609.344, 0.0)),
    **dict.fromkeys(("ft", "feet", "foot"), ("length", 0.3048, 0.0)),
    **dict.fromkeys(("cm", "centimetre", "centimetres", "centimeter", "centimeters"),
                    ("length", 0.01, 0.0)),
    **dict.fromkeys(("mm", "millimetre", "millimetres", "millimeter", "millimeters"),
                    ("length", 0.001, 0.0)),
    **dict.fromkeys(("inch", "inches"), ("length", 0.0254, 0.0)),
    **dict.fromkeys(("yd", "yard", "yards"), ("length", 0.9144, 0.0)),
    **dict.fromkeys(("lb", "lbs"), ("mass", 453.59237, 0.0)),
    **dict.fromkeys(("oz", "ounce", "ounces"), ("mass", 28.349523125, 0.0)),
    **dict.fromkeys(("kg",), ("mass", 1000.0, 0.0)),
    **dict.fromkeys(("g", "gram", "grams"), ("mass", 1.0, 0.0)),
    **dict.fromkeys(("mg", "milligram", "milligrams"), ("mass", 1e-3, 0.0)),
    **dict.fromkeys(("µg", "mcg", "microgram", "micrograms"), ("mass", 1e-6, 0.0)),
    **dict.fromkeys(("tonnes", "tons"), ("mass", 1e6, 0.0)),
    **dict.fromkeys(("ml", "millilitre", "millilitres"), ("volume", 1e-3, 0.0)),
    **dict.fromkeys(("litre", "litres"), ("volume", 1.0, 0.0)),
    "°c": ("temperature", 1.0, 0.0),
    "°f": ("temperature", 5 / 9, -32 * 5 / 9),
    # time in seconds (a month is a twelfth of the mean Gregorian year)
    **dict.fromkeys(("sec", "secs", "second", "seconds"), ("time", 1.0, 0.0)),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), ("time", 60.0, 0.0)),
    **dict.fromkeys(("hr", "hrs", "hour", "hours"), ("time", 3600.0, 0.0)),
    **dict.fromkeys(("day", "days"), ("time", 86400.0, 0.0)),
    **dict.fromkeys(("week", "weeks"), ("time", 7 * 86400.0, 0.0)),
    **dict.fromkeys(("month", "months"), ("time", 365.2425 / 12 * 86400.0, 0.0)),
    **dict.fromkeys(("year", "years", "yr", "yrs"), ("time", 365.2425 * 86400.0, 0.0)),
    **dict.fromkeys(("decade", "decades"), ("time", 3652.425 * 86400.0, 0.0)),
    **dict.fromkeys(("century", "centuries"), ("time", 36524.25 * 86400.0, 0.0)),
    # speed in metres per second
    **dict.fromkeys(("km/h", "kph", "kmh", "km/hr"), ("speed", 1 / 3.6, 0.0)),
    **dict.fromkeys(("mph",), ("speed", 0.44704, 0.0)),
    **dict.fromkeys(("m/s",), ("speed", 1.0, 0.0)),
    **dict.fromkeys(("knot", "knots"), ("speed", 1852 / 3600, 0.0)),
    # power in watts
    **dict.fromkeys(("w", "watt", "watts"), ("power", 1.0, 0.0)),
    **dict.fromkeys(("kw", "kilowatt", "kilowatts"), ("power", 1e3, 0.0)),
    **dict.fromkeys(("mw", "megawatt", "megawatts"), ("power", 1e6, 0.0)),
    **dict.fromkeys(("gw", "gigawatt", "gigawatts"), ("power", 1e9, 0.0)),
    **dict.fromkeys(("hp", "horsepower"), ("power", 745.69987, 0.0)),
    # energy in watt-hours
    **dict.fromkeys(("wh",), ("energy", 1.0, 0.0)),
    **dict.fromkeys(("kwh",), ("energy", 1e3, 0.0)),
    **dict.fromkeys(("mwh",), ("energy", 1e6, 0.0)),
    **dict.fromkeys(("gwh",), ("energy", 1e9, 0.0)),
    # electric charge (a battery's capacity) in milliampere-hours
    **dict.fromkeys(("mah",), ("charge", 1.0, 0.0)),
    **dict.fromkeys(("ah",), ("charge", 1e3, 0.0)),
    # digital storage in bytes (decimal prefixes, as device makers write them)
    **dict.fromkeys(("kb", "kilobyte", "kilobytes"), ("data", 1e3, 0.0)),
    **dict.fromkeys(("mb", "megabyte", "megabytes"), ("data", 1e6, 0.0)),
    **dict.fromkeys(("gb", "gigabyte", "gigabytes"), ("data", 1e9, 0.0)),
    **dict.fromkeys(("tb", "terabyte", "terabytes"), ("data", 1e12, 0.0)),
}
# fmt: on
# unit -> its dimension ("length", "mass", "time", "speed", ...): what `dimensions` reads
UNIT_DIMENSIONS: dict[str, str] = {unit: spec[0] for unit, spec in _UNITS.items()}
_SPAN = re.compile(r"^\s*(\d[\d,]*(?:\.(\d+))?)\s*(.*?)\s*$")
# a number whose groups of three digits a space separates ("23 500", "1 234 567")
_SPACED_THOUSANDS = re.compile(r"(?<![\d,.])\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)")


def group_digits(text: str) -> str:
    """`text` with the spaces that separate thousands removed ("23 500" -> "23500")."""
    return _SPACED_THOUSANDS.sub(lambda m: re.sub(r"\D", "", m.group(0)), text)


# A time of day: an hour with "am"/"pm" ("9am", "9:30 p.m.", "10.30am"), or hours and minutes
# on the 24-hour clock ("09:00", "19:30"; not "3:33.08", a time with hundredths, nor "1:2:3").
CLOCK = r"\d{1,2}(?:[:.][0-5]\d)?\s?(?:[ap]\.m\.?|[ap]m\b)|(?:[01]?\d|2[0-4]):[0-5]\d(?![\d:]|\.\d)"
_CLOCK_TIME = re.compile(rf"(?<![\w.:])(?:{CLOCK})", re.IGNORECASE)
_CLOCK_PARTS = re.compile(
    r"^\s*(\d{1,2})(?:([:.])([0-5]\d))?\s?(?:([ap])\.?m\.?)?\s*$", re.IGNORECASE
)


@dataclass(frozen=True)
class Quantity:
    dimension: str
    value: float  # in the dimension's base unit
    precision: float  # half a unit of the last written digit, in the base unit


def clock_minutes(surface: str) -> int | None:
    """Minutes after midnight of a time of day written alone ("9am" 540, "1:30 pm" 810,
    "13:00" 780); None for anything else, a bare number included."""
    match = _CLOCK_PARTS.match(surface)
    if not match:
        return None
    hour, separator, minutes, half = match.groups()
    if half is None and separator != ":":  # "9" or "9.30": a number, not a time
        return None
    hour, minute = int(hour), int(minutes or 0)
    if half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half.lower() == "p" else 0)
    elif hour > 24 or (hour == 24 and minute):
        return None
    return hour % 24 * 60 + minute


def starts_with_clock(surface: str) -> bool:
    """Whether a number span opens with a time of day ("9am", "09:00-13:00")."""
    match = _CLOCK_TIME.match(surface.strip())
    return match is not None and clock_minutes(match.group(0)) is not None


def clock_times(text: str) -> list[int]:
    """Minutes after midnight of every time of day in `text`, in text order ("9am to 1pm":
    [540, 780])."""
    found = (clock_minutes(m.group(0)) for m in _CLOCK_TIME.finditer(text))
    return [minutes for minutes in found if minutes is not None]


def clock_key(surface: str) -> str | None:
    """A time of day on the 24-hour clock ("9am" -> "09:00"), None when it is none."""
    minutes = clock_minutes(surface)
    return None if minutes is None else f"{minutes // 60:02d}:{minutes % 60:02d}"


def quantity(surface: str) -> Quantity | None:
    """The quantity a number span states; None without a unit of the table. A time of day is
    a quantity of the dimension "clock" (minutes after midnight, written to the minute)."""
    minutes = clock_minutes(surface)
    if minutes is not None:
        return Quantity("clock", float(minutes), 0.5)
    match = _SPAN.match(group_digits(surface))
    if not match:
        return None
    unit = _UNITS.get(" ".join(match.group(3).lower().lstrip("-").split()))
    if unit is None:
        return None
    dimension, factor, offset = unit
    number = float(match.group(1).replace(",", ""))
    decimals = len(match.group(2) or "")
    return Quantity(dimension, number * factor + offset, 0.5 * 10.0**-decimals * factor)


def same_quantity(a: Quantity, b: Quantity) -> bool:
    """Same dimension, and no further apart than the coarser precision allows."""
    tolerance = max(a.precision, b.precision) * (1 + 1e-9)
    return a.dimension == b.dimension and abs(a.value - b.value) <= tolerance


def merge_same_quantities(
    groups: dict[str, list[int]], votes: dict[str, float], surfaces: dict[str, str]
) -> None:
    """Move each answer whose surface states the same quantity as a more voted answer (or an
    equally voted one later in key order) to the most voted such answer, in place; `groups`
    maps an answer key to its passages, `votes` to its votes, `surfaces` to its text."""
    stated = {key: quantity(surfaces[key]) for key in groups}
    for key in sorted(groups, key=lambda k: (votes[k], k)):
        mine = stated[key]
        if mine is None:
            continue
        same = [
            other
            for other in groups
            if other != key
            and (other_q := stated[other]) is not None
            and same_quantity(mine, other_q)
            and (votes[other], other) > (votes[key], key)
        ]
        if same:
            target = max(same, key=lambda k: (votes[k], k))
            groups[target] += groups.pop(key)
            votes[target] += votes.pop(key)
