"""The lighter variants of ConflictScore's Limitations section: the whole response as one
claim, only the salient claims, and all documents in one labelling call."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from conflictdesk.backends.base import Backends, Generator
from conflictdesk.errors import LLM_HINT, CapabilityError, ModelOutputError
from conflictdesk.scoring.cache import Ledger
from conflictdesk.scoring.decompose import Decomposition, decompose
from conflictdesk.scoring.label import LLM_LABELS, Labelling, document_text
from conflictdesk.scoring.prompts import LABEL_TABLE7, claims_schema, fill
from conflictdesk.scoring.results import Judgment
from conflictdesk.types import Document, Relation

SALIENT_K = 3
SALIENT_STAGE = "salient-claims"
ALL_DOCUMENTS_STAGE = "label-all-documents"
# Document characters in one all-documents prompt; each document gets an equal share.
ALL_DOCUMENTS_BUDGET_CHARS = 9000

# Our wording (the paper describes this variant but gives no prompt for it).
SALIENT_PROMPT = """Instruction: Read the following report and select its {k} most salient claims: the central factual statements or opinions that the report's message depends on. Write each as one self-contained sentence.
Report: {report}
Write the list as JSON: {"claims": ["<one claim>", ...]}."""

# Table 7's instructions, then all documents numbered and one answer per document (ours).
ALL_DOCUMENTS_TAIL = """Now evaluate the following claim against each document below, separately.
Claim to evaluate
{claim}
Documents to evaluate against
{documents}
Output format
Return ONLY a single JSON object {"answers": [...]} with one answer per document, in the order of the documents, each one of SUPPORTS, CONTRADICTS or IRRELEVANT."""


def whole_response(response: str) -> Decomposition:
    """Variant 1: no decomposition; the response is one claim (judged by its parts by the
    encoder, see `label.claim_parts`)."""
    return Decomposition((response.strip(),), "whole-response (no decomposition)")


def salient_claims(
    response: str,
    documents: Sequence[Document],
    backends: Backends,
    *,
    k: int = SALIENT_K,
    decomposer: str = "auto",
    ledger: Ledger,
) -> Decomposition:
    """Variant 2: only `k` salient claims. With an LLM (unless the splitter is requested), the
    LLM picks them; otherwise the splitter's claims most similar to any document (cosine of
    the embedder), kept in response order."""
    if backends.llm is not None and decomposer != "splitter":
        return _salient_with_llm(response, backends.llm, k, ledger)
    full = decompose(response, None, decomposer="splitter", ledger=ledger)
    if backends.embedder is None:
        raise CapabilityError("salient claims without an LLM need the embedder model")
    claims = list(full.claims)
    if len(claims) > k:
        vectors = backends.embedder.embed(claims + [document_text(d) for d in documents])
        similarity = vectors[: len(claims)] @ vectors[len(claims) :].T
        keep = sorted(np.argsort(-similarity.max(axis=1), kind="stable")[:k])
        claims = [claims[i] for i in keep]
    method = f"salient(k={k}, by embedding similarity to the documents, {backends.embedder.model_id}) of {full.method}"
    return Decomposition(tuple(claims), method)


def _salient_with_llm(response: str, llm: Generator, k: int, ledger: Ledger) -> Decomposition:
    key = Ledger.key(SALIENT_STAGE, k, response)
    answer = ledger.get(SALIENT_STAGE, llm.model_id, key)
    if answer is None:
        schema = claims_schema(max_items=k)
        prompt = fill(SALIENT_PROMPT, k=str(k), report=response)
        start = time.perf_counter()
        answer = llm.generate_json([{"role": "user", "content": prompt}], schema, max_tokens=512)
        ledger.put(SALIENT_STAGE, llm.model_id, key, answer, (time.perf_counter() - start) * 1000)
    claims = answer.get("claims") if isinstance(answer, dict) else None
    if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
        raise ModelOutputError(f"{llm.model_id}: salient-claims answer {answer!r} is not a list")
    cleaned = [c.strip() for c in claims if c.strip()][:k]
    return Decomposition(tuple(cleaned), f"salient(k={k}, llm({llm.model_id}))")


def label_all_documents(
    claims: Sequence[str], documents: Sequence[Document], backends: Backends, *, ledger: Ledger
) -> Labelling:
    """Variant 3: one LLM call per claim labels every document at once (faster, and by the
    paper's account less accurate). The labels are generated text, so they carry no
    probability. An encoder cannot do this (one premise gives one label), hence an LLM only."""
    if backends.llm is None:
        raise CapabilityError(
            f"the all-documents variant needs an LLM (a GGUF model or a server): {LLM_HINT}"
        )
    llm = backends.llm
    share = max(ALL_DOCUMENTS_BUDGET_CHARS // max(len(documents), 1), 200)
    texts = [document_text(d)[:share] for d in documents]
    grid = tuple(tuple(_label_claim_at_once(c, texts, llm, ledger)) for c in claims)
    cut = any(len(document_text(d)) > share for d in documents)
    note = f"; documents cut to {share} characters each" if cut else ""
    return Labelling(grid, f"all-documents(llm({llm.model_id}){note})")


def _label_claim_at_once(
    claim: str, texts: Sequence[str], llm: Generator, ledger: Ledger
) -> list[Judgment]:
    key = Ledger.key(ALL_DOCUMENTS_STAGE, claim, list(texts))
    answer = ledger.get(ALL_DOCUMENTS_STAGE, llm.model_id, key)
    if answer is None:
        numbered = "\n".join(f"[{i}] {text}" for i, text in enumerate(texts, start=1))
        head = LABEL_TABLE7.split("Now evaluate the following:")[0]
        prompt = head + fill(ALL_DOCUMENTS_TAIL, claim=claim, documents=numbered)
        schema = {"type": "object", "required": ["answers"], "properties": {"answers": {
            "type": "array", "items": {"enum": list(LLM_LABELS)},
            "minItems": len(texts), "maxItems": len(texts)}}}  # fmt: skip
        start = time.perf_counter()
        answer = llm.generate_json([{"role": "user", "content": prompt}], schema, max_tokens=256)
        ledger.put(
            ALL_DOCUMENTS_STAGE, llm.model_id, key, answer, (time.perf_counter() - start) * 1000
        )
    labels = answer.get("answers") if isinstance(answer, dict) else None
    if (
        not isinstance(labels, list)
        or len(labels) != len(texts)
        or not set(labels) <= set(LLM_LABELS)
    ):
        raise ModelOutputError(f"{llm.model_id}: expected {len(texts)} labels, got {answer!r}")
    return [Judgment(Relation(label), None, None, "llm-all-documents") for label in labels]
