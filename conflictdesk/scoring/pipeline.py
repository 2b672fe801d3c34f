"""ConflictScore end to end: decompose, label every claim × document, aggregate (§3)."""

from __future__ import annotations

from collections.abc import Sequence

from conflictdesk.backends.base import Backends, JudgmentCache
from conflictdesk.errors import InputError, UsageError
from conflictdesk.scoring.cache import Ledger
from conflictdesk.scoring.decompose import Decomposition, decompose
from conflictdesk.scoring.label import (
    DEFAULT_LABELLER,
    TWO_STAGE_THRESHOLD,
    Labelling,
    label_claims,
)
from conflictdesk.scoring.metrics import conflictscore_count, conflictscore_ratio, score_claim
from conflictdesk.scoring.results import Detection, ScoreResult
from conflictdesk.scoring.variants import (
    SALIENT_K,
    label_all_documents,
    salient_claims,
    whole_response,
)
from conflictdesk.scoring.verdict import (
    DECISIONS,
    DEFAULT_DECISION,
    default_verdict_models,
    question_decision,
)
from conflictdesk.types import Document

VARIANTS = ("full", "whole-response", "salient", "all-documents")


def as_documents(documents: Sequence[Document | str | dict]) -> tuple[Document, ...]:
    """Documents given as Document, string or `{"text", ...}` object; at least one."""
    if not documents:
        raise InputError("no documents")
    return tuple(d if isinstance(d, Document) else Document.from_json(d) for d in documents)


def score_response(
    response: str,
    documents: Sequence[Document | str | dict],
    backends: Backends,
    *,
    cache: JudgmentCache | None = None,
    decomposer: str = "auto",
    labeller: str = DEFAULT_LABELLER,
    variant: str = "full",
    salient_k: int = SALIENT_K,
    threshold: float = TWO_STAGE_THRESHOLD,
    gate: bool = True,
    prune: bool = False,
) -> ScoreResult:
    """ConflictScore of `response` against `documents`: per-claim D⁺/D⁻, CS-C and CS-R."""
    if variant not in VARIANTS:
        raise UsageError(f"variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
    if not isinstance(response, str) or not response.strip():
        raise InputError("empty response")
    docs = as_documents(documents)
    ledger = Ledger(cache)
    claims = _claims(response, docs, backends, variant, decomposer, salient_k, ledger)
    labelling = _labels(claims, docs, backends, variant, labeller, threshold, (gate, prune), ledger)
    scored = tuple(score_claim(c, row) for c, row in zip(claims.claims, labelling.judgments))
    relations = [claim.relations for claim in scored]
    return ScoreResult(
        claims=scored,
        cs_c=conflictscore_count(relations),
        cs_r=conflictscore_ratio(relations),
        method=f"variant={variant}; claims={claims.method}; labels={labelling.method}",
        cache=ledger.use(),
    )


def _claims(
    response: str,
    docs: tuple[Document, ...],
    backends: Backends,
    variant: str,
    decomposer: str,
    salient_k: int,
    ledger: Ledger,
) -> Decomposition:
    if variant == "whole-response":
        return whole_response(response)
    if variant == "salient":
        return salient_claims(
            response, docs, backends, k=salient_k, decomposer=decomposer, ledger=ledger
        )
    return decompose(response, backends.llm, decomposer=decomposer, ledger=ledger)


def _labels(
    claims: Decomposition,
    docs: tuple[Document, ...],
    backends: Backends,
    variant: str,
    labeller: str,
    threshold: float,
    gate_prune: tuple[bool, bool],
    ledger: Ledger,
) -> Labelling:
    if variant == "all-documents":
        return label_all_documents(claims.claims, docs, backends, ledger=ledger)
    return label_claims(
        claims.claims,
        docs,
        backends,
        labeller=labeller,
        ledger=ledger,
        threshold=threshold,
        gate=gate_prune[0],
        prune=gate_prune[1],
    )


def detect(
    claim: str,
    documents: Sequence[Document | str | dict],
    backends: Backends,
    *,
    cache: JudgmentCache | None = None,
    labeller: str = DEFAULT_LABELLER,
    threshold: float = TWO_STAGE_THRESHOLD,
    gate: bool = True,
    prune: bool = False,
    verdict: str = DEFAULT_DECISION,
) -> Detection:
    """ConflictBench's conflict detection: is `claim` both supported and contradicted? With
    `verdict="model"` the verdict model decides (`conflictdesk.scoring.verdict`), not the
    paper's rule; D⁺ and D⁻ stay the labeller's."""
    if verdict not in DECISIONS:
        raise UsageError(f"verdict must be one of {', '.join(DECISIONS)}, not {verdict!r}")
    if not isinstance(claim, str) or not claim.strip():
        raise InputError("empty claim")
    docs = as_documents(documents)
    ledger = Ledger(cache)
    labelling = label_claims(
        [claim.strip()],
        docs,
        backends,
        labeller=labeller,
        ledger=ledger,
        threshold=threshold,
        gate=gate,
        prune=prune,
    )
    scored = score_claim(claim.strip(), labelling.judgments[0])
    method = f"labels={labelling.method}"
    if verdict == "rule":
        return Detection(claim=scored, method=method, cache=ledger.use())
    decision = question_decision(scored.judgments, default_verdict_models()["detect"])
    read = decision.method
    if any(j.labeller == "fusion" for j in scored.judgments):
        read += " (fitted on the NLI encoder's probabilities; here it reads the fusion labeller's)"
    return Detection(scored, f"{method}; conflict: {read}", ledger.use(), decision)
