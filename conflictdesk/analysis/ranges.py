"""Ranges read as one answer: numbers ("600–800 IU", "between 5 and 10 kg") and periods of
dates ("1884–1886", "from 1900 to 1902"); a change ("dropped from 300 to 75") reads its new
value. The word list is English grammar (verbs of change), none from a development case."""

from __future__ import annotations

import re

from conflictdesk import vocabulary as vocab
from conflictdesk.analysis import text as tx
from conflictdesk.analysis.quantities import clock_key, group_digits

Span = tuple[int, str, str, str]  # (start, key, surface, kind), as `claims.answer_spans`


def date_ranges(sentence: str, spans: list[Span]) -> list[Span]:
    """Date spans with a period read as one ("1884–1886", "from 1912 to 1914": key
    "date:1884/1886"): two dates joined by a dash, "to" or "until", the first earlier. A
    birth or death question keeps a lifespan's two dates apart (`claims.answer_spans` does
    not call this for one)."""
    out: list[Span] = []
    for span in spans:
        if out and "/" not in out[-1][1] and _joins_period(sentence, out[-1], span):
            first = out.pop()
            surface = sentence[first[0] : span[0] + len(span[2])]
            out.append((first[0], f"{first[1]}/{span[1][len('date:') :]}", surface, "date"))
            continue
        hyphened = _HYPHEN_YEAR.match(sentence, span[0] + len(span[2]))
        year = span[1][len("date:") :]
        if re.fullmatch(r"\d{4}", year) and hyphened and hyphened.group(1) > year:
            # "1912-1914": the year after a hyphen is no date of its own (`find_dates`)
            surface = sentence[span[0] : hyphened.end()]
            out.append((span[0], f"{span[1]}/{hyphened.group(1)}", surface, "date"))
            continue
        out.append(span)
    return out


_HYPHEN_YEAR = re.compile(r"-(\d{4})\b")
_PERIOD_JOIN = re.compile(r"^\s*(?:[–—-]|to|until|till)\s*$", re.IGNORECASE)


def _joins_period(sentence: str, first: Span, second: Span) -> bool:
    between = sentence[first[0] + len(first[2]) : second[0]]
    return bool(_PERIOD_JOIN.match(between)) and first[1] < second[1]


def number_ranges(text: str) -> list[tuple[int, int, str]]:
    """(start, end, key) of the numbers written in digits in `text`, a range read as one
    ("600–800 IU", "2.1 to 2.4 metres", "between 5 and 10 kg": key "num:600-800"): two
    numbers joined by a dash, "to", or "and" after "between", the first smaller, with no
    unit or the second's. "dropped from 300 to 75" is a change, not a range: only its new
    value is read. A time of day is keyed on the 24-hour clock ("9am" is "num:09:00"), and
    two joined by a dash, "to", "till" or "until" are one span of time ("9am to 1pm",
    "09:00-13:00": key "num:09:00-13:00"; "22:00-02:00" runs past midnight)."""
    found = []
    for match in tx.NUMBER.finditer(text):
        clock = clock_key(match.group(0))
        value = re.match(r"[\d,]+(?:\.\d+)*", group_digits(match.group(0).strip()))
        if clock is not None:
            found.append((match.start(), match.end(), clock))
        elif value:
            found.append((match.start(), match.end(), value.group(0).replace(",", "")))
    out, i = [], 0
    while i < len(found):
        start, end, value = found[i]
        following = found[i + 1] if i + 1 < len(found) else None
        if following is not None and _is_change(text, found[i], following):
            i += 1  # the value before the change is not read
            continue
        if following is not None and _is_range(text, found[i], following):
            out.append((start, following[1], f"num:{value}-{following[2]}"))
            i += 2
            continue
        out.append((start, end, f"num:{value}"))
        i += 1
    return out


_RANGE_JOIN = re.compile(r"^\s*(?:[–—-]|to)\s*$", re.IGNORECASE)
_CLOCK_JOIN = re.compile(r"^\s*(?:[–—-]|to|till|until)\s*$", re.IGNORECASE)
_BETWEEN = re.compile(r"\bbetween\s+$", re.IGNORECASE)
_FROM = re.compile(r"\bfrom\s+$", re.IGNORECASE)


def _is_range(text: str, first: tuple[int, int, str], second: tuple[int, int, str]) -> bool:
    before, between = text[: first[0]], text[first[1] : second[0]]
    clocks = [":" in value for value in (first[2], second[2])]
    if any(clocks):  # a span of time needs two times of day, in any order
        return all(clocks) and bool(_CLOCK_JOIN.match(between))
    if _BETWEEN.search(before):
        joined = between.strip().lower() in ("and", "-", "–", "—")
    else:
        joined = bool(_RANGE_JOIN.match(between))  # a change is told apart by the caller
    if not joined or _version(first[2]) or _version(second[2]):
        return False  # "2.4.1-2.4.3" or "1.3.3 to 2.0": versions, no range of values
    if float(first[2]) >= float(second[2]):
        return False
    unit = _unit(text[first[0] : first[1]])
    return not unit or unit == _unit(text[second[0] : second[1]])


def _version(value: str) -> bool:
    """A dotted run of digits ("2.4.1"), a version, not a value."""
    return value.count(".") > 1


def _is_change(text: str, first: tuple[int, int, str], second: tuple[int, int, str]) -> bool:
    """ "<verb of change> ... from <first> to <second>" ("dropped from 300 to 75", "raised
    the fee from 5 to 8"): the first is the value a quantity had before."""
    before, between = text[: first[0]], text[first[1] : second[0]]
    if not _FROM.search(before) or between.strip().lower() != "to":
        return False
    words = vocab.words(before.lower())[-5:-1]
    return any(w in CHANGE_VERBS for w in words)


# verbs of a quantity's change, every form (English; "ranges from 5 to 9" is a range)
CHANGE_VERBS = vocab.wordset(
    "rise rises rose risen rising fall falls fell fallen falling grow grows grew grown growing "
    "drop drops dropped dropping increase increases increased increasing decrease decreases "
    "decreased decreasing decline declines declined declining reduce reduces reduced reducing "
    "raise raises raised raising cut cuts cutting jump jumps jumped jumping climb climbs "
    "climbed climbing shrink shrinks shrank shrunk shrinking go goes went gone going change "
    "changes changed changing lower lowers lowered lowering boost boosts boosted boosting "
    "double doubled doubling soar soared plunge plunged slash slashed"
)


def _unit(surface: str) -> str:
    return re.sub(r"^\s*[\d,]+(?:\.\d+)?", "", surface).strip().lower()
