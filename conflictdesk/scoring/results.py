"""Frozen results of ConflictScore: one judgment per claim × document, per-claim evidence,
response-level scores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conflictdesk.types import Relation

RELATIONS: tuple[Relation, ...] = (Relation.SUPPORTS, Relation.CONTRADICTS, Relation.IRRELEVANT)


@dataclass(frozen=True)
class Judgment:
    """How one document relates to one claim, with the labeller that decided it.

    `probabilities` follows RELATIONS order (SUPPORTS, CONTRADICTS, IRRELEVANT); both it and
    `confidence` are None for a label generated as text (the all-documents variant), which
    carries no probability."""

    relation: Relation
    confidence: float | None
    probabilities: tuple[float, float, float] | None
    labeller: str  # "nli", "llm" or "llm-all-documents"

    def to_json(self) -> dict[str, Any]:
        probabilities = None
        if self.probabilities is not None:
            probabilities = {r.value: round(p, 4) for r, p in zip(RELATIONS, self.probabilities)}
        return {
            "relation": self.relation.value,
            "confidence": _round(self.confidence),
            "probabilities": probabilities,
            "labeller": self.labeller,
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
                    "conflict": claim.conflict,
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
    """ConflictBench's conflict detection for one claim: a relation per document."""

    claim: ClaimScore
    method: str
    cache: CacheUse

    @property
    def conflict(self) -> bool:
        return self.claim.conflict

    def to_json(self) -> dict[str, Any]:
        return {
            "relations": [r.value for r in self.claim.relations],
            "confidences": [_round(j.confidence) for j in self.claim.judgments],
            "conflict": self.conflict,
            "method": self.method,
            "cached": self.cache.to_json(),
        }
