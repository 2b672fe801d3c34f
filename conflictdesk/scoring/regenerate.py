"""Conflict feedback (ConflictScore §6): the claim with the most conflict and its supporting
and contradicting documents go back to the GGUF model with the paper's Table 13 prompt; the
revised answer is scored again."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conflictdesk.backends.base import Backends, JudgmentCache
from conflictdesk.errors import LLM_HINT, CapabilityError, InputError, ModelOutputError
from conflictdesk.scoring.cache import Ledger
from conflictdesk.scoring.label import DEFAULT_LABELLER, TWO_STAGE_THRESHOLD, document_text
from conflictdesk.scoring.pipeline import as_documents, score_response
from conflictdesk.scoring.prompts import REGENERATE_TABLE13, fill
from conflictdesk.scoring.results import CacheUse, ClaimScore, ScoreResult
from conflictdesk.types import Document

REGENERATE_STAGE = "regenerate-table13"
MAX_TOKENS = 768


@dataclass(frozen=True)
class Regeneration:
    """Before/after ConflictScore of a response revised with conflict feedback.

    `selected` is None (and nothing was regenerated) when no claim had conflicting evidence."""

    before: ScoreResult
    selected: ClaimScore | None
    revised_response: str | None
    after: ScoreResult | None
    method: str
    cache: CacheUse

    def to_json(self) -> dict[str, Any]:
        def scores(result: ScoreResult | None) -> dict[str, Any] | None:
            if result is None:
                return None
            full = result.to_json()
            return {"cs_c": full["cs_c"], "cs_r": full["cs_r"], "claims": full["claims"]}

        return {
            "regenerated": self.revised_response is not None,
            "selected_claim": self.selected.text if self.selected else None,
            "supporting": list(self.selected.supporting) if self.selected else [],
            "contradicting": list(self.selected.contradicting) if self.selected else [],
            "revised_response": self.revised_response,
            "before": scores(self.before),
            "after": scores(self.after),
            "method": self.method,
            "cached": self.cache.to_json(),
        }


def select_claim(result: ScoreResult) -> ClaimScore | None:
    """The claim with the most conflict: among claims with both D⁺ and D⁻, the highest
    |D⁻| / (|D⁺| + |D⁻|), then the most contradicting documents, then the earliest."""
    conflicting = [(i, c) for i, c in enumerate(result.claims) if c.conflict]
    if not conflicting:
        return None
    best = max(conflicting, key=lambda ic: (ic[1].ratio or 0.0, len(ic[1].contradicting), -ic[0]))
    return best[1]


def context_text(documents: Sequence[Document]) -> str:
    """The documents numbered from 1, as the prompt's DOCUMENTS block."""
    return "\n\n".join(f"Document {i}: {document_text(d)}" for i, d in enumerate(documents, 1))


def conflict_details(claim: ClaimScore, documents: Sequence[Document]) -> str:
    """The supporting and contradicting documents of the selected claim (Table 13's
    {conflict_details}; the paper shows the model both sets, §6.4)."""

    def block(title: str, indices: Sequence[int]) -> str:
        lines = [f"Document {i + 1}: {document_text(documents[i])}" for i in indices]
        return f"{title} ({len(indices)}):\n" + "\n".join(lines)

    return "\n".join([
        block("DOCUMENTS THAT SUPPORT THIS CLAIM", claim.supporting),
        block("DOCUMENTS THAT CONTRADICT THIS CLAIM", claim.contradicting),
    ])  # fmt: skip


def regenerate(
    question: str,
    response: str,
    documents: Sequence[Document | str | dict],
    backends: Backends,
    *,
    cache: JudgmentCache | None = None,
    decomposer: str = "auto",
    labeller: str = DEFAULT_LABELLER,
    threshold: float = TWO_STAGE_THRESHOLD,
    gate: bool = True,
    prune: bool = False,
) -> Regeneration:
    """Score `response`, feed its most conflicted claim back (Table 13), score the revision."""
    if backends.llm is None:
        raise CapabilityError(f"regenerate needs an LLM (a GGUF model or a server): {LLM_HINT}")
    if not isinstance(question, str) or not question.strip():
        raise InputError("empty question")
    docs = as_documents(documents)
    options: dict[str, Any] = {"cache": cache, "decomposer": decomposer, "labeller": labeller,
                               "threshold": threshold, "gate": gate, "prune": prune}  # fmt: skip
    before = score_response(response, docs, backends, **options)
    selected = select_claim(before)
    if selected is None:
        return Regeneration(before, None, None, None,
                            f"{before.method}; no claim with conflicting evidence, nothing regenerated",
                            before.cache)  # fmt: skip
    ledger = Ledger(cache)
    revised = _revise(question, response, docs, selected, backends, ledger)
    after = score_response(revised, docs, backends, **options)
    method = f"{before.method}; regenerate=llm-table13({backends.llm.model_id})"
    return Regeneration(before, selected, revised, after, method,
                        before.cache + ledger.use() + after.cache)  # fmt: skip


def _revise(
    question: str,
    response: str,
    docs: Sequence[Document],
    selected: ClaimScore,
    backends: Backends,
    ledger: Ledger,
) -> str:
    llm = backends.llm
    assert llm is not None  # checked by regenerate()
    prompt = fill(
        REGENERATE_TABLE13,
        question=question.strip(),
        context_text=context_text(docs),
        original_response=response.strip(),
        selected_claim=selected.text,
        conflict_details=conflict_details(selected, docs),
    )
    key = Ledger.key(REGENERATE_STAGE, prompt)
    cached = ledger.get(REGENERATE_STAGE, llm.model_id, key)
    if cached is not None:
        return str(cached["text"])
    start = time.perf_counter()
    text = llm.generate([{"role": "user", "content": prompt}], max_tokens=MAX_TOKENS).strip()
    if not text:
        raise ModelOutputError(f"{llm.model_id}: empty regenerated response")
    ledger.put(REGENERATE_STAGE, llm.model_id, key, {"text": text},
               (time.perf_counter() - start) * 1000)  # fmt: skip
    return text
