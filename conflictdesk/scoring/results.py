"""Frozen results of ConflictScore: one judgment per claim × document, per-claim evidence,
response-level scores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conflictdesk.scoring.verdict import QuestionDecision
from conflictdesk.types import Relation

RELATIONS: tuple[Relation, ...] = (Relation.SUPPORTS, Relation.CONTRADICTS, Relation.IRRELEVANT)
# A judgment whose calibrated confidence is below this is `uncertain`: a reviewer should look.
# The same point as the two-stage route (scoring.label.TWO_STAGE_THRESHOLD), measured where
# the encoder's settled pairs are >= 90% correct on SNLI dev; on the held-out development sets
# it keeps 91% of RAMDocs eval-half pairs (85% correct, against 82% for all) and 78% of QACC
# dev pairs (84% against 76%): see docs/model_report.md, "Abstention".
UNCERTAIN_BELOW = 0.72
# An uncertain judgment "could be" every relation it gives at least this probability.
PLAUSIBLE = 0.2


@dataclass(frozen=True)
class Judgment:
    """How one document relates to one claim, with the labeller that decided it.

    `probabilities` follows RELATIONS order (SUPPORTS, CONTRADICTS, IRRELEVANT); both it and
    `confidence` are None for a label generated as text (the all-documents variant), which
    carries no probability."""

    relation: Relation
    confidence: float | None
    probabilities: tuple[float, float, float] | None
    labeller: str  # "nli", "fusion", "llm" or "llm-all-documents"

    @property
    def uncertain(self) -> bool:
        """A model judgment with calibrated confidence below UNCERTAIN_BELOW."""
        return self.confidence is not None and self.confidence < UNCERTAIN_BELOW

    def plausible(self) -> set[Relation]:
        """The relation, or for an uncertain judgment every relation it finds plausible."""
        if not self.uncertain or self.probabilities is None:
            return {self.relation}
        return {r for r, p in zip(RELATIONS, self.probabilities) if p >= PLAUSIBLE}

    def to_json(self) -> dict[str, Any]:
        probabilities = None
        if self.probabilities is not None:
            probabilities = {r.value: round(p, 4) for r, p in zip(RELATIONS, self.probabilities)}
        return {
            "relation": self.relation.value,
            "confidence": _round(self.confidence),
            "probabilities": probabilities,
            "labeller": self.labeller,
            "uncertain": self.uncertain,
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


@dataclass(frozen=True)
class ClaimScore:
    """One claim with its judgments against every document, D⁺, D⁻ and its ratio."""

    text: str
    judgments: tuple[Judgment, ...]
    supporting: tuple[int, ...]  # D⁺ as document indices
    contradicting: tuple[int, ...]  # D⁻ as document indices
    conflict: bool
    ratio: float | None  # |D⁻| / (|D⁺| + |D⁻|); None when the claim has neither

    @property
    def relations(self) -> tuple[Relation, ...]:
        return tuple(j.relation for j in self.judgments)

    @property
    def verdict(self) -> str:
        """'conflict' or 'no_conflict' when the confident judgments settle it, else
        'uncertain': the answer turns on judgments a reviewer should look at."""
        sure = [j.relation for j in self.judgments if not j.uncertain]
        if Relation.SUPPORTS in sure and Relation.CONTRADICTS in sure:
            return "conflict"
        options = [j.plausible() for j in self.judgments]
        supports = {i for i, o in enumerate(options) if Relation.SUPPORTS in o}
        contradicts = {i for i, o in enumerate(options) if Relation.CONTRADICTS in o}
        # Two different documents could give one SUPPORTS and the other CONTRADICTS.
        could = bool(supports and contradicts) and len(supports | contradicts) > 1
        return "uncertain" if could else "no_conflict"


@dataclass(frozen=True)
class CacheUse:
    """How many judgments a call needed and how many the judgment cache served."""

    hits: int = 0
    total: int = 0

    def __add__(self, other: CacheUse) -> CacheUse:
        return CacheUse(self.hits + other.hits, self.total + other.total)

    def to_json(self) -> dict[str, int]:
        return {"hits": self.hits, "total": self.total}


@dataclass(frozen=True)
class ScoreResult:
    """ConflictScore of a response: its claims, CS-C and CS-R, and how they were computed."""

    claims: tuple[ClaimScore, ...]
    cs_c: float | None
    cs_r: float | None
    method: str
    cache: CacheUse

    def to_json(self) -> dict[str, Any]:
        return {
            "claims": [
                {
                    "text": claim.text,
                    "relations": [r.value for r in claim.relations],
                    "confidences": [_round(j.confidence) for j in claim.judgments],
                    "uncertain": [j.uncertain for j in claim.judgments],
                    "conflict": claim.conflict,
                    "verdict": claim.verdict,
                    "ratio": _round(claim.ratio),
                }
                for claim in self.claims
            ],
            "cs_c": _round(self.cs_c),
            "cs_r": _round(self.cs_r),
            "method": self.method,
            "cached": self.cache.to_json(),
        }


@dataclass(frozen=True)
class Detection:
    """ConflictBench's conflict detection for one claim: a relation per document, and the
    question-level decision of the verdict model when one was asked for (else the paper's
    rule, D⁺ and D⁻ both non-empty, decides)."""

    claim: ClaimScore
    method: str
    cache: CacheUse
    decision: QuestionDecision | None = None

    @property
    def conflict(self) -> bool:
        return self.claim.conflict if self.decision is None else self.decision.conflict

    def to_json(self) -> dict[str, Any]:
        return {
            "relations": [r.value for r in self.claim.relations],
            "confidences": [_round(j.confidence) for j in self.claim.judgments],
            "uncertain": [j.uncertain for j in self.claim.judgments],
            "conflict": self.conflict,
            "verdict": self.claim.verdict,
            "decision": None if self.decision is None else self.decision.to_json(),
            "method": self.method,
            "cached": self.cache.to_json(),
        }
