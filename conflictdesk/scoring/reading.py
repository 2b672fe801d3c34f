"""Answer-aware reading of a document against a claim: the features of the fusion labeller.

A claim such as "The answer to the question Q is A." is a reading task: find the document's
answer-bearing sentence (the one that shares most with Q), then ask whether it states A,
another value of A's kind (a number, a year or date, a name), or nothing about Q. Claims of
another form are read the same way, with the claim's own numbers, years and names as the
values and the rest of the claim as the question. Everything here is rule-based and
language-general: no word list names any document's content."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from conflictdesk.analysis.dates import MONTHS
from conflictdesk.text import normalise_answer, split_sentences
from conflictdesk.vocabulary import content_stems

_TEMPLATE = re.compile(
    r"^\s*the answer to the question\s+(?P<q>.+?\?)\s*(?:is|are)\s+(?P<a>.+?)\s*\.?\s*$",
    re.IGNORECASE | re.DOTALL,
)
_YEAR = re.compile(r"(?<!\d)(1[0-9]{3}|20[0-9]{2})(?!\d)")
_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?")
_NAME = re.compile(r"\b[A-Z][\w'\-]*(?:\s+(?:of|the|de|da|von|van|del|la|le|&)?\s*[A-Z][\w'\-]*)*")
KINDS = ("year", "number", "name", "text")


@dataclass(frozen=True)
class ClaimFrame:
    """A claim read as question + answer values: `context` is what the answer-bearing
    sentence must share; `answers` the values the claim asserts; `kind` their kind."""

    context: str
    answers: tuple[str, ...]
    kind: str


def answer_kind(answer: str) -> str:
    """'year', 'number', 'name' (capitalised words) or 'text'."""
    if _YEAR.search(answer) and (
        _YEAR.fullmatch(answer.strip())
        or any(word in MONTHS for word in re.findall(r"[a-z]+", answer.lower()))
    ):
        return "year"
    if _NUMBER.search(answer):
        return "number"
    if _NAME.search(answer):
        return "name"
    return "text"


def _split_answers(text: str) -> tuple[str, ...]:
    # a comma separates answers, except the thousands separator of a number ("3,559")
    parts = re.split(r"(?<!\d),\s*|,(?!\d{3}(?!\d))\s*|\s+or\s+", text.strip().rstrip("."))
    return tuple(p.strip() for p in parts if p.strip()) or (text.strip(),)


def is_answer_claim(claim: str) -> bool:
    """Is the claim in ConflictBench's answer form, "The answer to the question Q? is A."?"""
    return _TEMPLATE.match(claim) is not None


def question_and_answer(claim: str) -> tuple[str, str] | None:
    """(question, answer) of an answer-form claim ("The answer to the question Q? is A."), as
    written; None for a claim of another form."""
    match = _TEMPLATE.match(claim)
    return (match.group("q").strip(), match.group("a").strip()) if match else None


def frame_claim(claim: str) -> ClaimFrame:
    """The claim as question and answer: the ConflictBench template gives both; otherwise its
    numbers, years and mid-sentence names are the answers and the whole claim the context."""
    match = _TEMPLATE.match(claim)
    if match:
        answers = _split_answers(match.group("a"))
        return ClaimFrame(match.group("q"), answers, answer_kind(answers[0]))
    years = _YEAR.findall(claim)
    if years:
        return ClaimFrame(claim, tuple(years), "year")
    numbers = _NUMBER.findall(claim)
    if numbers:
        return ClaimFrame(claim, tuple(numbers), "number")
    names = [m.group(0) for m in _NAME.finditer(claim) if m.start() > 0]
    if names:
        return ClaimFrame(claim, tuple(names), "name")
    return ClaimFrame(claim, (), "text")


def values_of_kind(text: str, kind: str) -> set[str]:
    """Normalised values of one kind in `text` (years, numbers, or capitalised names)."""
    if kind == "year":
        return set(_YEAR.findall(text))
    if kind == "number":
        return {n.replace(",", "") for n in _NUMBER.findall(text) if not _YEAR.fullmatch(n)}
    if kind == "name":
        return {normalise_answer(m.group(0)) for m in _NAME.finditer(text) if m.start() > 0}
    return set()


def _contains(text: str, answer: str) -> bool:
    needle = normalise_answer(answer)
    return bool(needle) and re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", text) is not None


def _token_share(text_words: frozenset[str], answer: str) -> float:
    words = content_stems(answer)
    return len(words & text_words) / len(words) if words else 0.0


@dataclass(frozen=True)
class Reading:
    """What a document says about a claim's question, as numbers in [0, 1] (and the key
    sentence, for the second NLI look)."""

    key_sentence: str
    question_share_document: float
    question_share_key: float
    answer_in_document: float
    answer_in_key: float
    answer_token_share: float
    other_value_in_key: float
    other_values_in_document: float
    key_position: float
    log_length: float


def key_sentence(frame: ClaimFrame, text: str) -> tuple[int, list[str]]:
    """Index of the sentence sharing most content words with the question (ties: earlier),
    and the sentences."""
    sentences = [s for _, _, s in split_sentences(text)] or [text]
    wanted = content_stems(frame.context)
    shares = [len(wanted & content_stems(s)) for s in sentences]
    best = max(range(len(sentences)), key=lambda i: (shares[i], -i))
    return best, sentences


def read_document(frame: ClaimFrame, text: str) -> Reading:
    """The answer-aware features of `text` for `frame`."""
    index, sentences = key_sentence(frame, text)
    key = sentences[index]
    wanted = content_stems(frame.context)
    doc_words, key_words = content_stems(text), content_stems(key)
    norm_doc, norm_key = normalise_answer(text), normalise_answer(key)
    asserted = {v for a in frame.answers for v in values_of_kind(a, frame.kind)} | {
        normalise_answer(a) for a in frame.answers
    }
    question_values = values_of_kind(frame.context, frame.kind)

    def others(passage: str) -> set[str]:
        found = values_of_kind(passage, frame.kind) - asserted - question_values
        return {v for v in found if not any(v in a or a in v for a in asserted if a)}

    share = (lambda words: len(wanted & words) / len(wanted)) if wanted else (lambda _w: 0.0)
    return Reading(
        key_sentence=key,
        question_share_document=share(doc_words),
        question_share_key=share(key_words),
        answer_in_document=float(any(_contains(norm_doc, a) for a in frame.answers)),
        answer_in_key=float(any(_contains(norm_key, a) for a in frame.answers)),
        answer_token_share=max((_token_share(doc_words, a) for a in frame.answers), default=0.0),
        other_value_in_key=float(bool(others(key))),
        other_values_in_document=min(1.0, len(others(text)) / 5),
        key_position=index / max(1, len(sentences) - 1),
        log_length=min(1.0, math.log1p(len(text.split())) / math.log1p(1000)),
    )


def sibling_features(frame: ClaimFrame, text: str, siblings: Sequence[str]) -> tuple[float, float]:
    """How `text` sits among the other documents judged against the same claim:
    (its largest content-word Jaccard similarity to another document that states the claim's
    answer, the share of those documents that state it). A near twin of a supporting document
    that does not state the answer is the classic shape of a contradicting one."""
    words = content_stems(text)
    stating = [s for s in siblings if any(_contains(normalise_answer(s), a) for a in frame.answers)]
    twins = [
        len(words & other) / len(words | other)
        for s in stating
        if s != text and (other := content_stems(s)) and words
    ]
    share = len(stating) / len(siblings) if siblings else 0.0
    return max(twins, default=0.0), share
