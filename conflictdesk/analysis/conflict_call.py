"""`ask`'s question-level conflict call. "type": the type classifier's own call. "pairs":
ConflictRAG's definition added to it — a passage pair the two-stage detector flags as
conflicting is a conflict, so a "no conflict" type becomes the classifier's likeliest
conflict type (`call_by_pairs`); it corrects the trained type model and the rules, which
do not read the pairs, not an LLM's answer to the paper's Figure 2 prompt. "model" (opt-in): the verdict model
(`conflictdesk.scoring.verdict`) says whether there is a conflict at all; its decision,
probability and `uncertain` flag go into the verdict's signals and method. The type
classifier names the type in every case."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from conflictdesk.analysis.types import ConflictPair, ConflictVerdict, PassageTag
from conflictdesk.backends.base import NLI
from conflictdesk.errors import UsageError
from conflictdesk.scoring.cache import Ledger
from conflictdesk.scoring.label import label_with_nli, shares_content
from conflictdesk.scoring.verdict import VerdictModel, default_verdict_models
from conflictdesk.training.claims import claim_text
from conflictdesk.types import ConflictType, Passage

CALLS = ("type", "pairs", "model")
CONFLICT_TYPES = tuple(t for t in ConflictType if t is not ConflictType.NO_CONFLICT)


def verdict_model_for(call: str) -> VerdictModel | None:
    """The verdict model an `AnalysisOptions.verdict` value asks for; None for "type"."""
    if call not in CALLS:
        raise UsageError(f"verdict must be one of {', '.join(CALLS)}, not {call!r}")
    return default_verdict_models()["ask"] if call == "model" else None


def likeliest_conflict_type(verdict: ConflictVerdict) -> ConflictType:
    """The type classifier's most probable conflict type (its `probabilities` signal), or
    misinformation, the rule classifier's type for a factual conflict, when it gave none."""
    probabilities = verdict.signals.get("probabilities") or {}
    ranked = [t for t in CONFLICT_TYPES if t.value in probabilities]
    if not ranked:
        return ConflictType.MISINFORMATION
    return max(ranked, key=lambda t: probabilities[t.value])


def call_by_pairs(verdict: ConflictVerdict, pairs: Sequence[ConflictPair]) -> ConflictVerdict:
    """`verdict`, or its likeliest conflict type when it says no conflict but the detector
    flagged a pair of passages as conflicting (the most probable such pair named)."""
    flagged = [p for p in pairs if p.conflict]
    by_llm = verdict.method.startswith("llm:")
    if verdict.type is not ConflictType.NO_CONFLICT or not flagged or by_llm:
        return verdict
    top = max(flagged, key=lambda p: p.conflict_prob)
    kind = likeliest_conflict_type(verdict)
    why = (f"passages {top.i} and {top.j} conflict ({top.stage}, P {top.conflict_prob:.2f}"
           f"{'' if len(flagged) == 1 else f'; {len(flagged)} pairs flagged'}); the type "
           f"classifier had found none ({verdict.rationale})")  # fmt: skip
    probabilities = verdict.signals.get("probabilities") or {}
    confidence = probabilities.get(kind.value)
    uncertain = below_threshold(verdict, confidence)
    if uncertain:
        why = f"uncertain (a reviewer should look): {why}"
    # the method stays the classifier's (what `models list` reports); the rationale and the
    # signals say that a flagged pair made the call
    return dataclasses.replace(
        verdict,
        type=kind,
        rationale=why,
        signals={
            **verdict.signals,
            "conflict_call": {"by": "a conflicting pair", "pairs": len(flagged)},
        },
        confidence=confidence,
        uncertain=uncertain,
    )


def below_threshold(verdict: ConflictVerdict, confidence: float | None) -> bool:
    """Whether a type the conflict call chose has a probability below the type model's
    abstention threshold (its `threshold` signal): the same test as the model's own type,
    so a type shown with a low confidence is always marked uncertain."""
    threshold = verdict.signals.get("threshold")
    return threshold is not None and confidence is not None and confidence < threshold


def claim_evidence(
    query: str, leading: str | None, passages: Sequence[Passage], nli: NLI, cache=None
) -> list[tuple[float, float, float]] | None:
    """P(SUPPORTS, CONTRADICTS, IRRELEVANT) of each passage that shares a content word with
    the claim "The answer to the question Q is A." for the leading answer A (the claim form
    `detect` labels), by the NLI labeller; None without a leading answer."""
    if not leading or not leading.strip():
        return None
    claim = claim_text(query, leading)
    texts = [p.text for p in passages]
    cells = [(0, j) for j, text in enumerate(texts) if shares_content(claim, text)]
    judged = label_with_nli([claim], texts, cells, nli, Ledger(cache))
    return [judged[cell].probabilities for cell in cells]  # type: ignore[misc]


def call_conflict(
    verdict: ConflictVerdict,
    tags: Sequence[PassageTag],
    passages: int,
    model: VerdictModel,
    evidence: Sequence[tuple[float, float, float]] | None = None,
) -> ConflictVerdict:
    """`verdict` with the verdict model's conflict call: unchanged when both agree, else
    no_conflict or the likeliest conflict type, saying so in the rationale and method. The
    model reads `evidence` (`claim_evidence`) when given, else the on-topic tags."""
    on_topic = [t for t in tags if t.on_topic]
    read = "the leading answer's claim labelling"
    if evidence is None:
        read = "the on-topic passage tags"
        evidence = [(t.entailment, t.contradiction, t.neutral) for t in on_topic]
    decision = model.decide(evidence, passages, [t.answer for t in on_topic])
    had_conflict = verdict.type is not ConflictType.NO_CONFLICT
    kind, why = verdict.type, verdict.rationale
    if decision.conflict and not had_conflict:
        kind = likeliest_conflict_type(verdict)
        why = (f"the verdict model finds a conflict (P {decision.probability:.2f}); the type "
               f"classifier had found none ({verdict.rationale})")  # fmt: skip
    elif had_conflict and not decision.conflict:
        kind = ConflictType.NO_CONFLICT
        why = (f"the verdict model finds no conflict (P {decision.probability:.2f}); the type "
               f"classifier had said {verdict.type.value} ({verdict.rationale})")  # fmt: skip
    if decision.uncertain:
        why = f"uncertain conflict call (a reviewer should look): {why}"
    probabilities = verdict.signals.get("probabilities") or {}
    confidence = probabilities.get(kind.value, verdict.confidence if kind is verdict.type else None)
    return dataclasses.replace(
        verdict,
        type=kind,
        rationale=why,
        method=f"{verdict.method}; conflict call: {decision.method} over {read}",
        signals={**verdict.signals, "conflict_call": decision.to_json()},
        confidence=confidence,
        uncertain=verdict.uncertain
        or decision.uncertain
        or (kind is not verdict.type and below_threshold(verdict, confidence)),
    )
