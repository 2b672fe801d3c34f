"""ConflictScore: claims of a response judged against every document, CS-C and CS-R, conflict
detection for one claim, and conflict-feedback regeneration."""

from conflictdesk.scoring.decompose import Decomposition, decompose
from conflictdesk.scoring.label import LABELLERS, TWO_STAGE_THRESHOLD, Labelling, label_claims
from conflictdesk.scoring.metrics import (
    conflictscore_count,
    conflictscore_ratio,
    contradiction_ratio,
    evidence_sets,
    has_conflict,
)
from conflictdesk.scoring.pipeline import VARIANTS, detect, score_response
from conflictdesk.scoring.regenerate import Regeneration, regenerate, select_claim
from conflictdesk.scoring.results import CacheUse, ClaimScore, Detection, Judgment, ScoreResult

__all__ = [
    "LABELLERS",
    "TWO_STAGE_THRESHOLD",
    "VARIANTS",
    "CacheUse",
    "ClaimScore",
    "Decomposition",
    "Detection",
    "Judgment",
    "Labelling",
    "Regeneration",
    "ScoreResult",
    "conflictscore_count",
    "conflictscore_ratio",
    "contradiction_ratio",
    "decompose",
    "detect",
    "evidence_sets",
    "has_conflict",
    "label_claims",
    "regenerate",
    "score_response",
    "select_claim",
]
