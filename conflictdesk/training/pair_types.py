"""Type labels for stage-1 conflict pairs (ConflictRAG Head 2: none / factual / temporal /
opinion). No dataset here carries all four labels, so they come from provenance and from
calendar facts, never from word lists:

- none: the pair does not conflict.
- opinion: only from provenance: PERSPECTRUM's opposite stances (`pairs.perspectrum_pairs`)
  are opinion conflicts; no text rule assigns it.
- temporal: both passages are dated (four-digit years), their year sets differ, and the
  disputed value is itself a date or a year: the sides disagree about when.
- factual: every other conflict.

`label_pair_type` is the rule the model is trained on; `label_pair_type_loose` is a second,
looser variant (any difference in the years mentioned is temporal) whose agreement with the
first measures how noisy the labels are."""

from __future__ import annotations

import re

from conflictdesk.types import PAIR_TYPES, PairType

_YEAR = re.compile(r"(?<!\d)(1[6-9]\d\d|20\d\d)(?!\d)")
_MONTH_DATE = re.compile(
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b|"
    r"\b\d{1,2}\s+(january|february|march|april|may|june|july|august|september|october|"
    r"november|december)\b",
    re.IGNORECASE,
)


def years(text: str) -> set[str]:
    """Four-digit years (1600-2099) mentioned in the text."""
    return set(_YEAR.findall(text))


def has_date(text: str) -> bool:
    return bool(_YEAR.search(text) or _MONTH_DATE.search(text))


def _is_date_value(value: str | None) -> bool:
    return bool(value) and bool(
        _YEAR.fullmatch(value.strip())
        or _MONTH_DATE.search(value or "")
        or (_YEAR.search(value or "") and len(value.split()) <= 4)
    )


def label_pair_type(
    text_i: str, text_j: str, conflict: bool, disputed: str | None = None
) -> PairType:
    """The type label the detector is trained on (see the module docstring)."""
    if not conflict:
        return PairType.NONE
    years_i, years_j = years(text_i), years(text_j)
    if years_i and years_j and years_i != years_j and _is_date_value(disputed):
        return PairType.TEMPORAL
    return PairType.FACTUAL


def label_pair_type_loose(
    text_i: str, text_j: str, conflict: bool, disputed: str | None = None
) -> PairType:
    """The looser variant used only to measure label noise."""
    if not conflict:
        return PairType.NONE
    if has_date(text_i) and has_date(text_j) and years(text_i) != years(text_j):
        return PairType.TEMPORAL
    return PairType.FACTUAL


def type_index(kind: PairType) -> int:
    return PAIR_TYPES.index(kind)
