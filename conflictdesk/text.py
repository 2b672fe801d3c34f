"""Rule-based text helpers: sentence spans, clause-level claims, numbers and years.

No model is involved, so the rules are written down here and tested; they are the fallback
claim decomposition of ConflictScore when no LLM is configured, and shared by other stages."""

from __future__ import annotations

import re

from conflictdesk.vocabulary import ABBREVIATIONS

# A sentence ends at . ! ? (or …), optionally followed by closing quotes/brackets, then space.
_BOUNDARY = re.compile(r"""([.!?…]+)(["'”’)\]]*)(\s+)""")
_LINE_BREAK = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)")
_WORD = re.compile(r"\S+")
_BULLET = re.compile(r"\s*(?:[-*•]|\d+[.)])\s+")

# Clause splitting (see split_clauses for the rules).
# fmt: off
_AUXILIARIES = frozenset((
    "can", "could", "may", "might", "must", "shall", "should", "will", "would", "is", "are",
    "was", "were", "has", "have", "had", "does", "do", "did", "cannot",
))
# fmt: on
# fmt: off
_SUBJECT_STARTS = frozenset((
    "i", "you", "he", "she", "it", "we", "they", "this", "that", "these", "those", "there",
    "its", "their", "his", "her", "our", "my", "the", "a", "an", "some", "many", "most",
    "several", "few", "other", "others",
))
# fmt: on
_CONTRAST = r"but|while|whereas|although|though|yet|however"
_CLAUSE_BREAK = re.compile(
    rf"\s*;\s*|,\s+(?:{_CONTRAST})\b,?\s*|\s+but\s+|,\s+and\s+(?=(?:{'|'.join(_SUBJECT_STARTS)})\b)",
    re.IGNORECASE,
)
MIN_CLAUSE_WORDS = 3

_NUMBER = re.compile(
    r"(?<![\w.])[-−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|(?<![\w.])[-−]?\d+(?:\.\d+)?"
)
_YEAR = re.compile(r"(?<!\d)(1[0-9]{3}|20[0-9]{2})(?!\d)")


def split_sentences(text: str) -> list[tuple[int, int, str]]:
    """Sentences as (start, end, sentence) with `text[start:end] == sentence`.

    Blank lines and list items start new sentences (a list marker is not part of the span);
    inside a block a sentence ends at
    . ! ? followed by space, unless the word before the period is a known abbreviation, a
    single initial ("J. K. Rowling") or the next text starts lower-case."""
    spans: list[tuple[int, int, str]] = []
    for block_start, block_end in _blocks(text):
        bullet = _BULLET.match(text, block_start, block_end)
        start = block_start = bullet.end() if bullet else block_start
        for match in _BOUNDARY.finditer(text, block_start, block_end):
            if not _ends_sentence(text, match, block_end):
                continue
            end = match.end(2)
            _add_span(spans, text, start, end)
            start = match.end(3)
        _add_span(spans, text, start, block_end)
    return spans


def _blocks(text: str) -> list[tuple[int, int]]:
    blocks, start = [], 0
    for match in _LINE_BREAK.finditer(text):
        blocks.append((start, match.start()))
        start = match.end()
    blocks.append((start, len(text)))
    return blocks


def _ends_sentence(text: str, match: re.Match[str], block_end: int) -> bool:
    following = text[match.end(3) : block_end]
    if not following or following[0].islower():
        return False
    if match.group(1) != ".":
        return True
    word = text[: match.start(1)].rsplit(None, 1)[-1] if text[: match.start(1)].strip() else ""
    word = word.lstrip("(\"'“‘").lower()
    if word in ABBREVIATIONS:
        return False
    return not (len(word) == 1 and word.isalpha())


def _add_span(spans: list[tuple[int, int, str]], text: str, start: int, end: int) -> None:
    chunk = text[start:end]
    stripped = chunk.strip()
    if not stripped:
        return
    left = start + (len(chunk) - len(chunk.lstrip()))
    spans.append((left, left + len(stripped), stripped))


def split_clauses(sentence: str) -> list[str]:
    """Split a multi-part sentence into clauses that each stand as a claim.

    Rules, in order: break at semicolons, at ", but/while/whereas/although/though/yet/however",
    at " but " and at ", and" followed by a new subject (a pronoun or determiner). A break is kept
    only when both sides have at least MIN_CLAUSE_WORDS words; a right side that starts with an
    auxiliary or modal ("... but may also cause ...") borrows the left side's subject (the words
    before its first auxiliary). Without a usable break the sentence is returned whole."""
    parts = [sentence.strip()]
    while True:
        split = _first_split(parts[-1])
        if split is None:
            break
        parts[-1:] = split
    return [_as_claim(part) for part in parts if part.strip()]


def _first_split(clause: str) -> list[str] | None:
    for match in _CLAUSE_BREAK.finditer(clause):
        left, right = clause[: match.start()].strip(), clause[match.end() :].strip()
        if len(_WORD.findall(left)) < MIN_CLAUSE_WORDS:
            continue
        if len(_WORD.findall(right)) < MIN_CLAUSE_WORDS:
            continue
        first = right.split(None, 1)[0].lower()
        if first in _AUXILIARIES:
            subject = _subject(left)
            if subject is None:
                continue
            right = f"{subject} {right}"
        return [left, right]
    return None


def _subject(clause: str) -> str | None:
    """The words before the clause's first auxiliary or modal, if it has one after word 1."""
    words = clause.split()
    for index, word in enumerate(words[1:], start=1):
        if word.lower().strip(",") in _AUXILIARIES:
            return " ".join(words[:index])
    return None


def _as_claim(part: str) -> str:
    part = part.strip().rstrip(",;:")
    if not part:
        return part
    part = part[0].upper() + part[1:]
    return part if part[-1] in ".!?\"”')" else part + "."


def split_claims(text: str) -> list[str]:
    """ConflictScore's rule-based decomposition: sentences, then clauses of each sentence.

    Questions (sentences ending in "?") assert nothing and are left out."""
    return [
        clause
        for _, _, sentence in split_sentences(text)
        if not sentence.rstrip("\"”')").endswith("?")
        for clause in split_clauses(sentence)
    ]


def find_numbers(text: str) -> list[float]:
    """Numbers written with digits ("3,559", "2.5", "-4"), in order of appearance."""
    return [float(m.group(0).replace(",", "").replace("−", "-")) for m in _NUMBER.finditer(text)]


def find_years(text: str) -> list[int]:
    """Four-digit years from 1000 to 2099, in order of appearance."""
    return [int(m.group(1)) for m in _YEAR.finditer(text)]


def normalise_answer(text: str) -> str:
    """Lower-case, drop punctuation and articles, squeeze spaces (SQuAD-style answer matching)."""
    text = re.sub(r"[^\w\s]", " ", text.lower())
    words = [w for w in text.split() if w not in ("a", "an", "the")]
    return " ".join(words)
