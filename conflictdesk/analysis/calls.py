"""Model calls of the analysis stages, batched and routed through the judgment cache.

Each judgment is stored as one record (stage, model id, input hash, output, ms), so a cached
analysis repeats no model work; a batch sends only its cache misses to the model, in one call."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from conflictdesk.backends.base import NLI, Generator, JudgmentCache, Message
from conflictdesk.hashing import input_hash
from conflictdesk.types import NLIScores


def nli_batch(
    nli: NLI, pairs: Sequence[tuple[str, str]], *, stage: str, cache: JudgmentCache | None = None
) -> list[NLIScores]:
    """`nli.classify` over the pairs not yet cached, in one call; results in input order."""
    keys = [input_hash("nli", premise, hypothesis) for premise, hypothesis in pairs]
    results: list[NLIScores | None] = [None] * len(pairs)
    if cache is not None:
        for index, key in enumerate(keys):
            hit = cache.get(stage, nli.model_id, key)
            if hit is not None:
                results[index] = NLIScores(**hit)
    missing = [i for i, r in enumerate(results) if r is None]
    if missing:
        started = time.perf_counter()
        scored = nli.classify([pairs[i] for i in missing])
        per_item_ms = (time.perf_counter() - started) * 1000.0 / len(missing)
        for index, scores in zip(missing, scored):
            results[index] = scores
            if cache is not None:
                cache.put(stage, nli.model_id, keys[index], scores.to_json(), per_item_ms)
    return [r for r in results if r is not None]


def llm_json(
    llm: Generator,
    messages: Sequence[Message],
    schema: dict[str, Any],
    *,
    stage: str,
    cache: JudgmentCache | None = None,
    max_tokens: int = 512,
) -> Any:
    """`llm.generate_json`, cached by the messages and schema."""
    key = input_hash("json", list(messages), schema)
    if cache is not None:
        hit = cache.get(stage, llm.model_id, key)
        if hit is not None:
            return hit
    started = time.perf_counter()
    answer = llm.generate_json(messages, schema, max_tokens=max_tokens)
    if cache is not None:
        cache.put(stage, llm.model_id, key, answer, (time.perf_counter() - started) * 1000.0)
    return answer
