"""Claim decomposition (ConflictScore §3, step 1): the paper's Table 6 prompt on a GGUF model
with a JSON-schema answer, or the rule-based splitter of `conflictdesk.text`."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from conflictdesk.backends.base import Generator
from conflictdesk.errors import LLM_HINT, CapabilityError, InputError, ModelOutputError, UsageError
from conflictdesk.scoring.cache import Ledger
from conflictdesk.scoring.prompts import (
    DECOMPOSE_JSON_NOTE,
    DECOMPOSE_SCHEMA,
    DECOMPOSE_TABLE6,
    fill,
)
from conflictdesk.text import split_claims

DECOMPOSERS = ("auto", "llm", "splitter")
DECOMPOSE_STAGE = "decompose-table6"
SPLITTER_METHOD = "splitter(sentences, then clauses)"
_CLAIMS_PREFIX = re.compile(r"^\s*(?:claims?\s*:\s*|[-*•]\s+|\d+[.)]\s+)+", re.IGNORECASE)


@dataclass(frozen=True)
class Decomposition:
    """The claims of a response and how they were obtained."""

    claims: tuple[str, ...]
    method: str


def decompose(
    response: str,
    llm: Generator | None = None,
    *,
    decomposer: str = "auto",
    ledger: Ledger | None = None,
) -> Decomposition:
    """Claims of `response`: "auto" uses the LLM when one is configured, else the splitter."""
    if decomposer not in DECOMPOSERS:
        raise UsageError(f"decomposer must be one of {', '.join(DECOMPOSERS)}, not {decomposer!r}")
    if not response.strip():
        raise InputError("empty response")
    if decomposer == "llm" and llm is None:
        raise CapabilityError(
            f"LLM decomposition needs an LLM (a GGUF model or a server): {LLM_HINT}"
        )
    if llm is not None and decomposer in ("auto", "llm"):
        return decompose_with_llm(response, llm, ledger or Ledger())
    reason = "requested" if decomposer == "splitter" else "no LLM configured"
    return Decomposition(tuple(split_claims(response)), f"{SPLITTER_METHOD} ({reason})")


def decompose_with_llm(response: str, llm: Generator, ledger: Ledger) -> Decomposition:
    """Table 6 prompt; the schema-constrained answer is {"claims": [...]}, cached per response."""
    key = Ledger.key(DECOMPOSE_STAGE, response)
    answer = ledger.get(DECOMPOSE_STAGE, llm.model_id, key)
    if answer is None:
        prompt = fill(DECOMPOSE_TABLE6, report=response) + "\n" + DECOMPOSE_JSON_NOTE
        start = time.perf_counter()
        answer = llm.generate_json(
            [{"role": "user", "content": prompt}], DECOMPOSE_SCHEMA, max_tokens=1024
        )
        claims = _validated_claims(answer, llm.model_id)
        ledger.put(DECOMPOSE_STAGE, llm.model_id, key, {"claims": claims},
                   (time.perf_counter() - start) * 1000)  # fmt: skip
    return Decomposition(
        tuple(_validated_claims(answer, llm.model_id)), f"llm-table6({llm.model_id})"
    )


def _validated_claims(answer: Any, model_id: str) -> list[str]:
    """The answer's claims without "Claims:" or list markers that Table 6's wording invites."""
    if not isinstance(answer, dict) or not isinstance(answer.get("claims"), list):
        raise ModelOutputError(f"{model_id}: decomposition answer {answer!r} has no claims list")
    claims = []
    for item in answer["claims"]:
        if not isinstance(item, str):
            raise ModelOutputError(f"{model_id}: claim {item!r} is not a string")
        text = _CLAIMS_PREFIX.sub("", item).strip()
        if text:
            claims.append(text)
    return list(dict.fromkeys(claims))
