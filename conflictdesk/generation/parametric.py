"""ConflictRAG's parametric–contextual conflict check: the model's closed-book answer
a_par = LLM(q) against the open-book answer a_ctx = LLM(q, D), compared by a structured
prompt. When they disagree the system defers to the retrieved evidence and says so."""

from __future__ import annotations

import time
from typing import Any

from conflictdesk.analysis.calls import llm_json
from conflictdesk.backends.base import Generator, JudgmentCache, Message
from conflictdesk.generation.types import ParametricCheck
from conflictdesk.hashing import input_hash

NO_LLM = "not run: no LLM configured"
CLOSED_BOOK_TOKENS = 96

COMPARE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"agree": {"type": "boolean"}, "explanation": {"type": "string"}},
    "required": ["agree", "explanation"],
}


def parametric_check(
    query: str,
    open_book: str,
    generator: Generator | None,
    *,
    cache: JudgmentCache | None = None,
) -> ParametricCheck:
    """Compare the closed-book and open-book answers; "not run" without an LLM. Both calls
    are recorded in `cache` (stage "parametric")."""
    if generator is None:
        return ParametricCheck(ran=False, status=NO_LLM)
    closed_book = _closed_book(query, generator, cache)
    verdict = llm_json(
        generator,
        [
            {
                "role": "system",
                "content": (
                    "Two answers to the same question are given. Decide whether they state "
                    "the same answer (agree) or incompatible answers (disagree). An answer "
                    "that adds detail to the other still agrees. Reply in JSON."
                ),
            },
            {
                "role": "user",
                "content": f"QUESTION: {query}\nANSWER A: {closed_book}\nANSWER B: {open_book}",
            },
        ],
        COMPARE_SCHEMA,
        stage="parametric",
        cache=cache,
        max_tokens=128,
    )
    agree = bool(verdict["agree"])
    return ParametricCheck(
        ran=True,
        status="agree" if agree else "disagree",
        closed_book=closed_book,
        open_book=open_book,
        explanation=str(verdict["explanation"]).strip()
        + ("" if agree else " The answer follows the retrieved evidence."),
    )


def _closed_book(query: str, generator: Generator, cache: JudgmentCache | None) -> str:
    """a_par = LLM(q), one short sentence from the model's own knowledge, cached."""
    messages: list[Message] = [
        {"role": "system", "content": "Answer from your own knowledge in one short sentence."},
        {"role": "user", "content": query},
    ]
    key = input_hash("text", messages, CLOSED_BOOK_TOKENS)
    if cache is not None:
        hit = cache.get("parametric", generator.model_id, key)
        if hit is not None:
            return str(hit)
    started = time.perf_counter()
    text = generator.generate(messages, max_tokens=CLOSED_BOOK_TOKENS).strip()
    if cache is not None:
        cache.put(
            "parametric", generator.model_id, key, text, (time.perf_counter() - started) * 1e3
        )
    return text
