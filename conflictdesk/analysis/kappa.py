"""ConRAG's conflict score κ and its δ stance rule.

κ = 1 − |U_sup − U_ref| / (U_sup + U_ref + ε), with U_sup = Σ u_i over passages tagged
Support and U_ref likewise for Refute (passage level). At cluster level the sums run over
clusters instead: U_sup^C = Σ confidence_c over clusters whose dominant tag is Support.

Stance (ConRAG G-stage step 2, δ = 0.1): the U sums are normalised before the comparison,
margin = (U_sup − U_ref) / (U_sup + U_ref + ε). ConRAG states the rule on raw sums but gives
δ as a "confidence gap" for confidences u_i ∈ [0, 1]; on raw sums a 0.1 gap would mean
nothing for k = 20 passages and the rule would depend on k. Normalised, the rule is scale
free and agrees with κ: |margin| = 1 − κ (up to ε), so a categorical stance needs κ < 1 − δ.
Support when margin > δ, Refute when margin < −δ; otherwise Disputed when any passage is
tagged Support or Refute, and NotEnoughInfo when none is."""

from __future__ import annotations

from collections.abc import Sequence

from conflictdesk.analysis.types import Cluster, ConflictScore, PassageTag, Stance
from conflictdesk.types import Tag

EPSILON = 1e-6
DELTA = 0.1


def kappa(u_support: float, u_refute: float, eps: float = EPSILON) -> float:
    """κ = 1 − |U_sup − U_ref| / (U_sup + U_ref + ε)."""
    return 1.0 - abs(u_support - u_refute) / (u_support + u_refute + eps)


def stance(u_support: float, u_refute: float, delta: float = DELTA, eps: float = EPSILON) -> Stance:
    """The δ rule on normalised sums (module docstring)."""
    if u_support + u_refute <= 0:
        return Stance.NOT_ENOUGH_INFO
    margin = (u_support - u_refute) / (u_support + u_refute + eps)
    if margin > delta:
        return Stance.SUPPORT
    if margin < -delta:
        return Stance.REFUTE
    return Stance.DISPUTED


def _mass(tags: Sequence[PassageTag], tag: Tag) -> float:
    return sum(t.confidence for t in tags if t.tag is tag)


def conflict_score(
    tags: Sequence[PassageTag],
    clusters: Sequence[Cluster] = (),
    *,
    delta: float = DELTA,
    eps: float = EPSILON,
) -> ConflictScore:
    """κ at passage and cluster level, the U sums and the stance."""
    u_sup, u_ref = _mass(tags, Tag.SUPPORT), _mass(tags, Tag.REFUTE)
    c_sup = sum(c.confidence for c in clusters if c.dominant_tag is Tag.SUPPORT)
    c_ref = sum(c.confidence for c in clusters if c.dominant_tag is Tag.REFUTE)
    return ConflictScore(
        kappa=kappa(u_sup, u_ref, eps),
        cluster_kappa=kappa(c_sup, c_ref, eps),
        u_support=u_sup,
        u_refute=u_ref,
        u_irrelevant=_mass(tags, Tag.IRRELEVANT),
        cluster_u_support=c_sup,
        cluster_u_refute=c_ref,
        margin=(u_sup - u_ref) / (u_sup + u_ref + eps),
        stance=stance(u_sup, u_ref, delta, eps),
        delta=delta,
    )
