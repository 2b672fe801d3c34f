"""Dates in metadata and text, for recency ranking and temporal typing.

A passage's date is its metadata date (ISO 8601: YYYY, YYYY-MM or YYYY-MM-DD) when it has
one; otherwise the latest date its text mentions, since a text cannot report on anything
after it was written. Dates that are the passage's answer to a date question are excluded
by the caller (`exclude`), because they date the event asked about, not the source.
Yearless calendar times ("every Wednesday", "in May") are read apart (`find_calendar`): they
answer when something recurs, and date no source."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from conflictdesk.analysis.names import WEEKDAYS
from conflictdesk.ingest.dates import normalise_date
from conflictdesk.types import Passage

MONTHS = {
    name: index
    for index, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?P<year>1[5-9]\d\d|20\d\d|21\d\d)"
_PATTERNS = (
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b"),  # ISO
    re.compile(
        rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\s*,?\s+{_YEAR}\b",
        re.IGNORECASE,
    ),
    re.compile(rf"\b{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s*,?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"(?<![\d,.\-])\b{_YEAR}\b(?!\d|,\d|\.\d)"),
)


@dataclass(frozen=True)
class FoundDate:
    """A date mentioned in text, at the precision the text gives (`precision`: y, m or d)."""

    value: date
    precision: str
    span: str
    start: int

    def iso(self) -> str:
        return self.value.strftime({"y": "%Y", "m": "%Y-%m", "d": "%Y-%m-%d"}[self.precision])


def parse_iso(value: str | None) -> date | None:
    """A metadata date → date, read by the ingestion's `normalise_date` (ISO, PDF, "15 October
    2022", "Oct 2022", ...) so inline documents and stored ones are read alike; None when
    unparsable. A year or month alone becomes its first day."""
    iso = normalise_date(value)
    if iso is None:
        return None
    parts = [int(part) for part in iso.split("-")]
    return date(parts[0], parts[1] if len(parts) > 1 else 1, parts[2] if len(parts) > 2 else 1)


def find_dates(text: str) -> list[FoundDate]:
    """Dates in `text`, most precise reading of each span first, in text order."""
    taken: list[tuple[int, int]] = []
    found: list[FoundDate] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < b and a < end for a, b in taken):
                continue
            parsed = _from_match(match)
            if parsed is not None:
                taken.append((start, end))
                found.append(FoundDate(parsed[0], parsed[1], match.group(0), start))
    return sorted(found, key=lambda d: d.start)


def _from_match(match: re.Match[str]) -> tuple[date, str] | None:
    groups = match.groupdict()
    try:
        if groups.get("y"):
            return date(int(groups["y"]), int(groups["m"]), int(groups["d"])), "d"
        year = int(groups["year"])
        month = MONTHS[groups["month"].lower()] if groups.get("month") else None
        if month is None:
            return date(year, 1, 1), "y"
        if groups.get("day"):
            return date(year, month, int(groups["day"])), "d"
        return date(year, month, 1), "m"
    except (ValueError, KeyError):
        return None


def without_dates(text: str) -> str:
    """`text` with every date `find_dates` reads blanked out ("May 19, 2023 ... X was" -> "
    ... X was"): what is left of a date stamp, or a sentence read for its words alone."""
    for found in find_dates(text):
        text = text.replace(found.span, " ")
    return text


def years(text: str) -> set[int]:
    return {d.value.year for d in find_dates(text)}


def passage_date(
    passage: Passage, exclude: frozenset[str] | set[str] = frozenset()
) -> tuple[date, str] | None:
    """(date, "metadata" | "text") for a passage: metadata first, else the latest date in
    its text whose span is not in `exclude` (normalised lower-case spans)."""
    meta = parse_iso(passage.date)
    if meta is not None:
        return meta, "metadata"
    in_text = [d for d in find_dates(passage.text) if d.span.lower() not in exclude]
    if not in_text:
        return None
    return max(d.value for d in in_text), "text"


# month names written out ("May" too; "Jan", "Dec" are also given names)
FULL_MONTHS = frozenset(n for n in MONTHS if len(n) > 3 or n == "may")
_WEEKDAY = r"(?P<weekday>" + "|".join(sorted(WEEKDAYS)) + r")s?"
_ORDINAL = r"(?P<ordinal>first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)"
_FULL_MONTH = r"(?P<month>" + "|".join(sorted(FULL_MONTHS)) + r")"
# Yearless calendar expressions, most specific first: "the last Friday of October", "15
# June" / "June 15th", a weekday, a month after a preposition or a season word ("in May",
# "until June", "early March"; "May" alone is more often the modal verb).
_CALENDAR = (
    re.compile(rf"\b{_ORDINAL}\s+{_WEEKDAY}\s+(?:of|in)\s+{_FULL_MONTH}\b", re.IGNORECASE),
    re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_FULL_MONTH}\b", re.IGNORECASE),
    re.compile(
        rf"\b{_FULL_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*,?\s*\d)", re.IGNORECASE
    ),
    re.compile(rf"\b{_WEEKDAY}\b", re.IGNORECASE),
    re.compile(
        r"\b(?P<lead>in|of|from|until|till|since|through|by|during|before|after|early|late|mid"
        rf"|each|every|and|or|to)[\s-]+{_FULL_MONTH}\b",
        re.IGNORECASE,
    ),
)


@dataclass(frozen=True)
class CalendarSpan:
    """A yearless calendar expression: when in the year or the week something happens
    ("every Wednesday", "in May", "15 June"), the answer to a question about a recurring
    time. `key` compares them by value ("June 15th" and "15 June" are one answer)."""

    start: int
    span: str
    key: str


def find_calendar(text: str) -> list[CalendarSpan]:
    """Yearless calendar expressions in `text` (dates with a year are `find_dates`'), most
    specific reading of each span first, in text order. Month names must be capitalised:
    lower-case "march" and "may" are verbs."""
    taken: list[tuple[int, int]] = []
    found: list[CalendarSpan] = []
    for pattern in _CALENDAR:
        for match in pattern.finditer(text):
            part = "month" if match.groupdict().get("lead") else 0  # the preposition is no part
            start, end = match.span(part)
            month = match.groupdict().get("month")
            if month and not month[0].isupper():
                continue
            if any(start < b and a < end for a, b in taken):
                continue
            taken.append((start, end))
            found.append(CalendarSpan(start, match.group(part), _calendar_key(match)))
    return sorted(found, key=lambda c: c.start)


def _calendar_key(match: re.Match[str]) -> str:
    groups = {k: (v or "").lower() for k, v in match.groupdict().items() if k != "lead"}
    month = f"{MONTHS[groups['month']]:02d}" if groups.get("month") else ""
    weekday = groups.get("weekday", "")
    if groups.get("ordinal"):
        ordinal = {"1st": "first", "2nd": "second", "3rd": "third", "4th": "fourth", "5th": "fifth"}
        return f"{ordinal.get(groups['ordinal'], groups['ordinal'])}-{weekday}-{month}"
    if groups.get("day"):
        return f"{month}-{int(groups['day']):02d}"
    return month or weekday
