"""Type labels for stage-1 conflict pairs (ConflictRAG Head 2: none / factual / temporal /
opinion), by documented, testable rules. No dataset here carries these labels, so they are
derived from the text of the two passages:

- none: the pair does not conflict.
- opinion: the conflict is between evaluations, not facts: each passage carries an opinion
  or evaluation marker (believe, argue, should, best, recommend, ...), or one carries two.
- temporal: the two passages are dated differently: both mention years/dates and their sets
  differ, and either the disputed value is itself a date/year or a passage uses temporal
  wording (as of, currently, no longer, until, since, latest, ...).
- factual: every other conflict.

`label_pair_type` is the rule the model is trained on; `label_pair_type_loose` is a second,
looser variant (any year difference is temporal, any one opinion marker is opinion) whose
agreement with the first measures how noisy the labels are."""

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
_TEMPORAL_WORDS = re.compile(
    r"\b(as of|currently|current|now|no longer|formerly|former|previously|until|since|latest|"
    r"recent|recently|updated|today|this year|last year|at the time|used to|was replaced|"
    r"nowadays|anymore|still)\b",
    re.IGNORECASE,
)
_OPINION_WORDS = re.compile(
    r"\b(i think|i believe|believe|believes|argue|argues|argued|should|shouldn't|best|worst|"
    r"better|worse|recommend|recommended|opinion|in my view|prefer|preferred|overrated|"
    r"underrated|great|terrible|awful|excellent|beautiful|ugly|favorite|favourite|"
    r"controversial|debate|debated|claims?|critics?|supporters?|arguably|feel|feels)\b",
    re.IGNORECASE,
)


def years(text: str) -> set[str]:
    """Four-digit years (1600-2099) mentioned in the text."""
    return set(_YEAR.findall(text))


def has_date(text: str) -> bool:
    return bool(_YEAR.search(text) or _MONTH_DATE.search(text))


def opinion_markers(text: str) -> int:
    """How many opinion/evaluation markers the text carries."""
    return len(_OPINION_WORDS.findall(text))


def temporal_wording(text: str) -> bool:
    return bool(_TEMPORAL_WORDS.search(text))


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
    op_i, op_j = opinion_markers(text_i), opinion_markers(text_j)
    if (op_i and op_j) or max(op_i, op_j) >= 2:
        return PairType.OPINION
    years_i, years_j = years(text_i), years(text_j)
    dated = _is_date_value(disputed) or temporal_wording(text_i) or temporal_wording(text_j)
    if years_i and years_j and years_i != years_j and dated:
        return PairType.TEMPORAL
    return PairType.FACTUAL


def label_pair_type_loose(
    text_i: str, text_j: str, conflict: bool, disputed: str | None = None
) -> PairType:
    """The looser variant used only to measure label noise."""
    if not conflict:
        return PairType.NONE
    if opinion_markers(text_i) or opinion_markers(text_j):
        return PairType.OPINION
    if has_date(text_i) and has_date(text_j) and years(text_i) != years(text_j):
        return PairType.TEMPORAL
    return PairType.FACTUAL


def type_index(kind: PairType) -> int:
    return PAIR_TYPES.index(kind)
