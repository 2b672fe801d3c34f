"""Turn a user's own conflicting documents into corpus rows, where the documents allow it.

Input (JSON Lines): {"id", "query", "reasoning"?, "documents": [{"text", "answer"?,
"answer_long"?}]}, where `answer` is the short answer that document gives to the query
(absent or null when it gives none). A row needs two documents with different answers
(contexts 1 and 2), a third that agrees with the first (context 3) and one that answers
nothing (context 4); a record without them is skipped with the reason."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from conflictdesk.bench.corpus import REASONING_TYPES, CorpusEntry, row_problem

_RELATIONAL = re.compile(r"\b(before|after|earlier|later|until|since|prior to)\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Skipped:
    record_id: Any
    reason: str


def guess_reasoning(answers: Iterable[str], contexts: Iterable[str]) -> str:
    """temporal.numerical for years/dates in the answers, numerical for other numbers,
    temporal.relational for before/after wording in the contexts, else categorical."""
    answers, contexts = list(answers), list(contexts)
    if any(_YEAR.search(a) for a in answers):
        return "temporal.numerical"
    if any(_DIGIT.search(a) for a in answers):
        return "numerical"
    if any(_RELATIONAL.search(c) for c in contexts):
        return "temporal.relational"
    return "categorical"


def _norm(text: str) -> str:
    return " ".join(str(text).lower().split()).strip(" .")


def _long(doc: dict[str, Any]) -> str:
    if doc.get("answer_long"):
        return str(doc["answer_long"])
    answer = _norm(doc["answer"])
    sentences = re.split(r"(?<=[.!?])\s+", doc["text"].strip())
    return next((s for s in sentences if answer in s.lower()), sentences[0])


def _pick(docs: list[dict[str, Any]]) -> tuple[dict[str, Any], ...] | str:
    answered = [d for d in docs if d.get("answer")]
    neutral = [d for d in docs if not d.get("answer")]
    if not neutral:
        return "no document without an answer for context 4"
    for first in answered:
        second = next((d for d in answered if _norm(d["answer"]) != _norm(first["answer"])), None)
        if second is None:
            continue
        third = next(
            (
                d
                for d in answered
                if d is not first and _norm(d["answer"]) == _norm(first["answer"])
            ),
            None,
        )
        if third is not None:
            return first, second, third, neutral[0]
    return "needs two documents that give different answers and a third agreeing with one"


def import_record(record: dict[str, Any], number: int) -> CorpusEntry | Skipped:
    """One corpus entry from one record, or why it cannot become one."""
    record_id = record.get("id", number)
    docs = record.get("documents")
    if not isinstance(docs, list) or not all(isinstance(d, dict) and d.get("text") for d in docs):
        return Skipped(record_id, "documents must be a list of objects with text")
    picked = _pick(docs)
    if isinstance(picked, str):
        return Skipped(record_id, picked)
    c1, c2 = picked[0], picked[1]
    texts = [d["text"] for d in picked]
    reasoning = record.get("reasoning") or guess_reasoning([c1["answer"], c2["answer"]], texts)
    fields = {
        "contradiction_ID": str(record_id), "reasoning_required_c1c2": reasoning,
        "c1xq": "imported", "c2xq": "imported", "context_1": texts[0], "context_2": texts[1],
        "context_3_nc1_c2": texts[2], "context_4_nc1_nc2_nc3": texts[3],
        "query_text": str(record.get("query", "")), "answer_context1": str(c1["answer"]),
        "answer_context1_long": _long(c1), "answer_context2": str(c2["answer"]),
        "answer_context2_long": _long(c2),
    }  # fmt: skip
    if reasoning not in REASONING_TYPES:
        return Skipped(record_id, f"reasoning {reasoning!r} is not one of {REASONING_TYPES}")
    problem = row_problem(fields)
    if problem:
        return Skipped(record_id, problem)
    return CorpusEntry(**{k: " ".join(v.split()) for k, v in fields.items()}, row=number)
