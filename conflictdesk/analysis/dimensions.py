"""What a number question measures, and what a number span measures, so that a passage's
answer to "How tall is X?" is a length and not the area or the year beside it.

`asked_dimension` reads the question's measuring words (English quantity vocabulary: "how
tall", "weigh", "temperature", "cost", "how many <things>", ...) into one dimension, or None
when the question does not say. `span_dimension` reads the unit written after a number span
("2,300 square kilometres", "20-inch", "40 minutes", "61 percent") or the currency sign
before it. `fits` keeps a span unless both are known and differ: a span without a unit
always fits (the unit is often left out), and a question that names no dimension keeps every
span. A count ("how many", "population") is a whole number or a decimal with a scale word
("1.2 million"), never a rate ("139.8 people per square mile", `is_count`). A bare year
after a preposition of time ("since 1921", "in 2010") is a date, never the answer to a number
question. `NUMBER_WORDS` finds cardinals written in words ("nine",
"forty-two", "two hundred and fifty"; not a lone "one", which is as often a pronoun), `number_word_value`
gives their value, so that "nine" and "9" are one answer.

The word lists are general measurement vocabulary, not read off any document."""

from __future__ import annotations

import itertools
import re

from conflictdesk import vocabulary as vocab
from conflictdesk.analysis.quantities import UNIT_DIMENSIONS, starts_with_clock

LENGTH, MASS, VOLUME, TEMPERATURE, TIME, AREA, PERCENT, MONEY, COUNT = (
    "length", "mass", "volume", "temperature", "time", "area", "percent", "money", "count",
)  # fmt: skip
SPEED, POWER, ENERGY, CHARGE, DATA = "speed", "power", "energy", "charge", "data"
CLOCK = "clock"  # a time of day ("9am", "13:00"), `quantities.clock_minutes`
MEASURED = (
    LENGTH, MASS, VOLUME, TEMPERATURE, TIME, AREA, PERCENT, MONEY, SPEED, POWER, ENERGY, CHARGE, DATA,
    CLOCK,
)  # fmt: skip

# unit word (lower case, as written after the number) -> dimension: the units `quantities`
# converts (time, speed, power, ... among them), and spellings and dimensions it does not
# (area, percent, money)
# fmt: off
_UNIT_DIMENSION: dict[str, str] = {
    **UNIT_DIMENSIONS,
    **dict.fromkeys(("nautical miles",), LENGTH),
    **dict.fromkeys(("kilogram", "kilograms", "tonne", "ton", "stone"), MASS),
    **dict.fromkeys((
        "milliliter", "milliliters", "l", "liter", "liters", "gallon", "gallons",
        "cubic metres", "cubic meters",
    ), VOLUME),
    **dict.fromkeys(("degrees", "degree", "kelvin"), TEMPERATURE),
    **dict.fromkeys((
        "acre", "acres", "hectare", "hectares", "ha", "km²", "m²", "square miles",
        "square kilometres", "square kilometers", "square metres", "square meters",
        "square feet", "sq",
    ), AREA),
    **dict.fromkeys(("%", "percent", "per cent"), PERCENT),
    **dict.fromkeys(("dollars", "dollar", "euros", "euro", "usd", "eur", "gbp", "cents"), MONEY),
}
# fmt: on
_CURRENCY_SIGNS = frozenset("$€£¥")
_UNIT_AFTER = re.compile(
    r"^(?:\s?-\s?|\s)?(square \w+|cubic \w+|nautical miles|per cent|°[cf]|[%²]|km/hr?\b|m/s\b"
    r"|[a-zµ]+²?)",
    re.IGNORECASE,
)
_TIME_PREPOSITIONS = frozenset(("in", "since", "from", "until", "till", "by", "before", "after",
                                "circa", "c", "around", "early", "late", "mid"))  # fmt: skip
_YEAR = re.compile(r"^(?:1[5-9]|20)\d\d$")

# the question's measuring words: (words that must all occur, dimension), first match wins
# fmt: off
_ASKED: tuple[tuple[tuple[str, ...], str], ...] = (
    (("how", "long", "ago"), TIME),
    (("how", "old"), TIME), (("what", "age"), TIME), (("age",), TIME),
    (("how", "long", "take"), TIME), (("how", "long", "last"), TIME),
    (("how", "long", "does"), TIME), (("how", "long", "did"), TIME),
    (("how", "long", "do"), TIME), (("how", "long", "will"), TIME),
    (("how", "long", "can"), TIME), (("how", "long", "has"), TIME),
    (("how", "long", "have"), TIME), (("how", "long", "had"), TIME),
    (("duration",), TIME), (("period",), TIME), (("lifespan",), TIME), (("life", "span"), TIME),
    (("half-life",), TIME), (("life", "expectancy"), TIME),
    (("length", "of", "time"), TIME), (("amount", "of", "time"), TIME),
    (("how", "tall"), LENGTH), (("how", "high"), LENGTH), (("how", "deep"), LENGTH),
    (("how", "far"), LENGTH), (("how", "wide"), LENGTH),
    (("height",), LENGTH), (("length",), LENGTH), (("depth",), LENGTH), (("width",), LENGTH),
    (("distance",), LENGTH), (("elevation",), LENGTH), (("altitude",), LENGTH),
    (("diameter",), LENGTH), (("radius",), LENGTH), (("wingspan",), LENGTH),
    (("weigh",), MASS), (("weighs",), MASS), (("weight",), MASS), (("how", "heavy"), MASS),
    (("mass",), MASS),
    (("temperature",), TEMPERATURE), (("boiling", "point"), TEMPERATURE),
    (("melting", "point"), TEMPERATURE), (("freezing", "point"), TEMPERATURE),
    (("how", "hot"), TEMPERATURE), (("how", "cold"), TEMPERATURE),
    (("area",), AREA), (("volume",), VOLUME),
    (("percentage",), PERCENT), (("percent",), PERCENT), (("proportion",), PERCENT),
    (("population",), COUNT), (("inhabitants",), COUNT), (("residents",), COUNT),
    (("cost",), MONEY), (("costs",), MONEY), (("price",), MONEY), (("fee",), MONEY),
    (("fees",), MONEY), (("fine",), MONEY), (("penalty",), MONEY), (("salary",), MONEY),
    (("wage",), MONEY), (("worth",), MONEY), (("revenue",), MONEY), (("budget",), MONEY),
    (("income",), MONEY),
    (("how", "fast"), SPEED), (("speed",), SPEED), (("velocity",), SPEED),
    (("power",), POWER), (("wattage",), POWER), (("horsepower",), POWER),
    (("battery", "capacity"), CHARGE), (("energy",), ENERGY), (("storage",), DATA),
    (("warranty",), TIME), (("guarantee",), TIME),
)
# fmt: on


def asked_dimension(query: str) -> str | None:
    """The dimension a number question asks for, or None when its words do not say
    ("how long is X?" asks for a length or a time).
    "How many <unit>" asks for that unit's dimension; "how many <other things>" and
    "number of" for a count; a time of day (`asks_clock`) for the clock."""
    words = vocab.words(query)
    if asks_clock(words):
        return CLOCK
    present = set(words)
    for i, word in enumerate(words[:-1]):
        if word == "how" and words[i + 1] == "many":
            counted = words[i + 2] if i + 2 < len(words) else ""
            return _UNIT_DIMENSION.get(counted, COUNT)
    for needed, dimension in _ASKED:
        if all(w in present for w in needed):
            return dimension
    if "number" in present and "of" in present:
        return COUNT
    return None


# "what time period / zone / frame" asks for no time of day
_NOT_CLOCK_AFTER_TIME = frozenset(("period", "periods", "zone", "zones", "frame", "frames",
                                   "limit", "limits", "span", "scale", "signature"))  # fmt: skip
_CLOCK_NOUNS = frozenset(("hours", "times"))
_NOUN_PHRASE_END = frozenset(("of", "at", "for", "on", "in", "during", "when"))


def asks_clock(words: list[str]) -> bool:
    """Whether a question (its words, lower case) asks for a time of day: "what time" or
    "what hours" ("What time does X open?", "At what time ...?", "What hours is X open?"),
    or "what are the ... hours / times" whose noun phrase ends in the plural ("What are the
    Saturday opening hours of X?"); not "what time period" nor "how many hours"."""
    for i, word in enumerate(words[:-1]):
        if word in ("what", "which") and words[i + 1] in ("time", "hours"):
            after = words[i + 2] if i + 2 < len(words) else ""
            if words[i + 1] == "hours" or after not in _NOT_CLOCK_AFTER_TIME:
                return True
    if len(words) < 4 or words[0] != "what" or words[1] not in ("are", "were"):
        return False
    phrase = list(itertools.takewhile(lambda w: w not in _NOUN_PHRASE_END, words[2:]))
    return len(phrase) >= 2 and phrase[-1] in _CLOCK_NOUNS


def span_dimension(text: str, start: int, end: int) -> str | None:
    """The dimension of the number span text[start:end] from the unit written after it (in
    the span or joined by a hyphen: "20-inch") or a currency sign before it; None without one."""
    if start > 0 and text[start - 1] in _CURRENCY_SIGNS:
        return MONEY
    surface = text[start:end]
    if starts_with_clock(surface):
        return CLOCK  # a time of day, or a span of them ("09:00-13:00")
    number = re.match(r"[\d,]*\d(?:\.\d+)?", surface)
    rest = surface[number.end() :] if number else surface
    unit = _UNIT_AFTER.match(rest if rest.strip() else text[end : end + 24])
    return _UNIT_DIMENSION.get(" ".join(unit.group(1).lower().split())) if unit else None


def is_bare_year(text: str, start: int, end: int) -> bool:
    """A four-digit year with nothing after it, right after a preposition of time ("since
    1921", "in 2010", "mid-2017")."""
    if not _YEAR.match(text[start:end].strip()):
        return False
    before = vocab.words(text[max(0, start - 12) : start])
    return bool(before) and before[-1].rstrip("-") in _TIME_PREPOSITIONS  # "mid-2017" too


def fits(asked: str | None, text: str, start: int, end: int) -> bool:
    """Whether the number span text[start:end] can answer a question asking for `asked`."""
    if is_bare_year(text, start, end):
        return False
    if asked is None:
        return True
    found = span_dimension(text, start, end)
    if found is None:
        return asked != COUNT or is_count(text, start, end)
    if asked == COUNT:
        return found not in MEASURED and is_count(text, start, end)
    return found == asked


_SCALE_AFTER = re.compile(
    r"^\s*(?:hundred|thousand|million|billion|trillion|lakh|crore|[mbk]n?)\b", re.IGNORECASE
)
_RATE_AFTER = re.compile(r"^\s*(?:[A-Za-z]+\s+){0,2}per\s+(?!cent\b)", re.IGNORECASE)


# what a number after them measures instead of a count: an age ("aged 65 or older", "under
# the age of 18"), or a change ("grew by 1,951", "rose by 4.2% (1,951 people)")
_AGE_BEFORE = re.compile(
    r"\b(?:aged|ages?(?:\s+of)?)\s+(?:between\s+|over\s+|under\s+)?$", re.IGNORECASE
)
_CHANGE_BEFORE = re.compile(
    r"\b(?:grew|grown|grows|increased|increases|decreased|decreases|rose|risen|rises|fell|fallen"
    r"|falls|dropped|drops|declined|declines|shrank|shrunk)\s+by\s+(?:about\s+|nearly\s+"
    r"|almost\s+|over\s+|some\s+)?(?:[\d.,]+\s*(?:%|per\s*cent)\s*\(\s*)?$",
    re.IGNORECASE,
)


def is_count(text: str, start: int, end: int) -> bool:
    """Whether the number span text[start:end] can be a count: a whole number ("17,289"), or
    a decimal with a scale word after it ("1.2 million"); not a rate ("139.8 people per
    square mile", "8 per 1,000"), an age ("aged 65") or a change ("grew by 1,951")."""
    before = text[max(0, start - 60) : start]
    if _AGE_BEFORE.search(before) or _CHANGE_BEFORE.search(before):
        return False
    surface = text[start:end].strip()
    number = re.match(r"[\d,]*\d(?:\.(\d+))?", surface)
    tail = (surface[number.end() :] if number else "") + text[end : end + 40]
    if _RATE_AFTER.match(tail):
        return False
    return not (number and number.group(1)) or bool(_SCALE_AFTER.match(tail))


_UNITS_WORDS = [
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS_WORDS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SMALL = {w: i for i, w in enumerate(["zero", "one", *_UNITS_WORDS], start=0)}
_TENS = {w: 20 + 10 * i for i, w in enumerate(_TENS_WORDS)}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_ATOM = (
    rf"(?:(?:{'|'.join(_TENS_WORDS)})(?:-(?:one|{'|'.join(_UNITS_WORDS[:8])}))?"
    rf"|{'|'.join(_UNITS_WORDS)})\b"
)
_SCALED = rf"(?:{_ATOM}|one\b)(?:\s+(?:{'|'.join(_SCALES)})\b)+"
# a cardinal: scaled groups, each joined by a space or "and", then a last small part ("two
# hundred and fifty", "three thousand four hundred and twelve"); or one small part alone
NUMBER_WORDS = re.compile(
    rf"\b(?:{_SCALED}(?:(?:\s+and)?\s+{_SCALED})*(?:(?:\s+and)?\s+{_ATOM})?|{_ATOM})",
    re.IGNORECASE,
)


def number_word_value(surface: str) -> int:
    """The value of a cardinal written in words ("seven", "forty-two", "two hundred and
    fifty", "three thousand four hundred")."""
    total = current = 0
    for word in surface.lower().split():
        if word == "and":
            continue
        if word in _SCALES:
            if _SCALES[word] == 100:
                current = max(current, 1) * 100
            else:
                total += max(current, 1) * _SCALES[word]
                current = 0
            continue
        head = word.split("-")
        current += _TENS.get(head[0], _SMALL.get(head[0], 0)) + (
            _SMALL[head[1]] if len(head) > 1 else 0
        )
    return total + current
