"""The labelling cascade: the fast MiniLM model settles the pairs it is confident about, the
accurate MPNet model labels the rest (ConflictRAG's two-stage idea applied to NLI labelling).

A pair is settled by the first tier when its top probability is at least the band; the band
is chosen on development rows at export (`choose_band`) and stored with the MPNet model; the
`nli_band` setting overrides it. The rule says what an unsettled pair gets: `replace`, the
MPNet's probabilities; `geometric`, the normalised geometric mean of both tiers'
(p_k ∝ sqrt(fast_k · accurate_k), a product of the two calibrated experts: a label either tier
finds unlikely stays unlikely). The rule in force is stored with the MPNet model's manifest
entry (`cascade_rule`, `replace` when absent); the `nli_rule` setting overrides it."""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence

import numpy as np

from conflictdesk.backends.base import NLI
from conflictdesk.config import NLI_RULES
from conflictdesk.types import NLIScores

BANDS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98, 1.01)
# The band chosen is the lowest whose development accuracy is within this of the best band's:
# the cheapest cascade that keeps (nearly) all of the accurate model's gain.
BAND_TOLERANCE = 0.005
RULES = NLI_RULES  # what an unsettled pair gets (module docstring); the settings check it too


def cascade_model_id(fast_id: str, accurate_id: str, band: float, rule: str = "replace") -> str:
    """The cascade's id (its judgment-cache key and `method`): both tiers, the band and the
    rule."""
    second = accurate_id if rule == "replace" else f"geomean({fast_id}, {accurate_id})"
    return f"cascade({fast_id} if top-p>={band:g}, else {second})"


def model_family(model_id: str) -> str:
    """A model id without its versions ("name@abc123" -> "name"), inside a cascade's id too:
    what a model trained on another model's outputs records, so a rebuilt tier of the same
    name still matches."""
    return re.sub(r"@[0-9a-f]+", "", model_id)


class CascadeNLI:
    """Two NLI back-ends behind the NLI protocol; `routed` counts the pairs each tier settled."""

    def __init__(self, fast: NLI, accurate: NLI, band: float, rule: str = "replace") -> None:
        if not 0.0 < band <= 1.01:
            raise ValueError(f"cascade band must be in (0, 1.01], not {band}")
        if rule not in RULES:
            raise ValueError(f"cascade rule must be one of {', '.join(RULES)}, not {rule!r}")
        self.fast, self.accurate, self.band, self.rule = fast, accurate, band, rule
        self.model_id = cascade_model_id(fast.model_id, accurate.model_id, band, rule)
        self.routed = {"fast": 0, "accurate": 0}
        self._lock = threading.Lock()

    @property
    def windows_run(self) -> int:
        """Windows both tiers have encoded so far (for tests and benchmarks)."""
        return sum(getattr(tier, "windows_run", 0) for tier in (self.fast, self.accurate))

    def classify(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        scores = list(self.fast.classify(pairs))
        unsure = [i for i, s in enumerate(scores) if top_probability(s) < self.band]
        if unsure:
            second = self.accurate.classify([pairs[i] for i in unsure])
            combined = second_tier(_matrix([scores[i] for i in unsure]), _matrix(second), self.rule)
            for i, row in zip(unsure, combined, strict=True):
                scores[i] = NLIScores(*(float(x) for x in row))
        with self._lock:
            self.routed["fast"] += len(scores) - len(unsure)
            self.routed["accurate"] += len(unsure)
        return scores


def second_tier(fast: np.ndarray, accurate: np.ndarray, rule: str) -> np.ndarray:
    """What the unsettled pairs get under `rule`, from both tiers' probabilities [N, 3]:
    the accurate tier's (`replace`) or the normalised geometric mean (`geometric`; a row whose
    tiers rule out every label between them gets their arithmetic mean)."""
    if rule == "replace":
        return accurate
    both = np.sqrt(fast * accurate)
    total = both.sum(1, keepdims=True)
    return np.where(total > 0, both / np.where(total > 0, total, 1.0), (fast + accurate) / 2)


def _matrix(scores: Sequence[NLIScores]) -> np.ndarray:
    return np.array(
        [[s.entailment, s.neutral, s.contradiction] for s in scores], dtype=np.float64
    ).reshape(-1, 3)


def top_probability(scores: NLIScores) -> float:
    return max(scores.entailment, scores.neutral, scores.contradiction)


def band_table(
    fast: np.ndarray, accurate: np.ndarray, labels: np.ndarray, rule: str = "replace"
) -> list[dict]:
    """Per candidate band: the share of pairs the accurate tier labels and the cascade's
    accuracy under `rule` (probabilities [N, 3] in the same label order as `labels`)."""
    fast_pred, accurate_pred = fast.argmax(1), second_tier(fast, accurate, rule).argmax(1)
    rows = []
    for band in BANDS:
        escalated = fast.max(1) < band
        pred = np.where(escalated, accurate_pred, fast_pred)
        rows.append({"band": band, "escalated": round(float(escalated.mean()), 4),
                     "accuracy": round(float((pred == labels).mean()), 4)})  # fmt: skip
    return rows


def choose_band(table: list[dict]) -> float:
    """The lowest band whose accuracy is within BAND_TOLERANCE of the table's best."""
    best = max(row["accuracy"] for row in table)
    return min(row["band"] for row in table if row["accuracy"] >= best - BAND_TOLERANCE)
