"""ConflictScore's aggregation (§3): D⁺, D⁻, conflict, CS-C and CS-R.

A claim with neither supporting nor contradicting documents has no defined ratio
(|D⁻| / (|D⁺| + |D⁻|) is 0/0): §3 averages "this ratio across all claims" and the ratio exists
only for claims with evidence, so such a claim is left out of CS-R's mean (counting it as 0
would reward unverifiable claims, since lower is better). It still counts in CS-C's denominator
as a claim without conflict. When no claim has evidence, CS-R is None; with no claims at all,
both are None."""

from __future__ import annotations

from collections.abc import Sequence

from conflictdesk.scoring.results import ClaimScore, Judgment
from conflictdesk.types import Relation


def evidence_sets(relations: Sequence[Relation]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(D⁺, D⁻): indices of the documents that support and that contradict a claim."""
    supporting = tuple(i for i, r in enumerate(relations) if r is Relation.SUPPORTS)
    contradicting = tuple(i for i, r in enumerate(relations) if r is Relation.CONTRADICTS)
    return supporting, contradicting


def has_conflict(relations: Sequence[Relation]) -> bool:
    """A claim has conflicting evidence when both D⁺ and D⁻ are non-empty."""
    supporting, contradicting = evidence_sets(relations)
    return bool(supporting) and bool(contradicting)


def contradiction_ratio(relations: Sequence[Relation]) -> float | None:
    """|D⁻| / (|D⁺| + |D⁻|) of one claim; None when it has neither (see module docstring)."""
    supporting, contradicting = evidence_sets(relations)
    evidence = len(supporting) + len(contradicting)
    return len(contradicting) / evidence if evidence else None


def conflictscore_count(claims: Sequence[Sequence[Relation]]) -> float | None:
    """ConflictScore-Count (CS-C): the fraction of claims with conflicting evidence."""
    if not claims:
        return None
    return sum(has_conflict(relations) for relations in claims) / len(claims)


def conflictscore_ratio(claims: Sequence[Sequence[Relation]]) -> float | None:
    """ConflictScore-Ratio (CS-R): the mean of |D⁻| / (|D⁺| + |D⁻|) over the claims that have
    evidence (claims with neither are left out; see module docstring)."""
    ratios = [r for r in (contradiction_ratio(rel) for rel in claims) if r is not None]
    return sum(ratios) / len(ratios) if ratios else None


def score_claim(text: str, judgments: Sequence[Judgment]) -> ClaimScore:
    """Assemble one claim's D⁺, D⁻, conflict flag and ratio from its judgments."""
    relations = [j.relation for j in judgments]
    supporting, contradicting = evidence_sets(relations)
    return ClaimScore(
        text=text,
        judgments=tuple(judgments),
        supporting=supporting,
        contradicting=contradicting,
        conflict=has_conflict(relations),
        ratio=contradiction_ratio(relations),
    )
