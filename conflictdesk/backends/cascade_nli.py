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

import threading
from collections.abc import Sequence

import numpy as np

from conflictdesk.backends.base import NLI
from conflictdesk.types import NLIScores

BANDS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98, 1.01)
# The band chosen is the lowest whose development accuracy is within this of the best band's:
# the cheapest cascade that keeps (nearly) all of the accurate model's gain.
BAND_TOLERANCE = 0.005
RULES = ("replace", "geometric")


def cascade_model_id(fast_id: str, accurate_id: str, band: float, rule: str = "replace") -> str:
    """The cascade's id (its judgment-cache key and `method`): both tiers, the band and the
    rule."""
    second = accurate_id if rule == "replace" else f"geomean({fast_id}, {accurate_id})"
    return f"cascade({fast_id} if top-p>={band:g}, else {second})"


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
            for i, accurate in zip(unsure, self.accurate.classify([pairs[i] for i in unsure])):
                scores[i] = accurate if self.rule == "replace" else geometric(scores[i], accurate)
        with self._lock:
            self.routed["fast"] += len(scores) - len(unsure)
            self.routed["accurate"] += len(unsure)
        return scores


def geometric(fast: NLIScores, accurate: NLIScores) -> NLIScores:
    """The normalised geometric mean of two tiers' probabilities."""
    both = np.sqrt(np.asarray(_triple(fast)) * np.asarray(_triple(accurate)))
    total = float(both.sum())
    if total <= 0.0:  # the tiers rule out every label between them: fall back to their mean
        both, total = (np.asarray(_triple(fast)) + np.asarray(_triple(accurate))) / 2, 1.0
    return NLIScores(*(float(x) / total for x in both))


def _triple(scores: NLIScores) -> tuple[float, float, float]:
    return scores.entailment, scores.neutral, scores.contradiction


def top_probability(scores: NLIScores) -> float:
    return max(scores.entailment, scores.neutral, scores.contradiction)


def band_table(
    fast: np.ndarray, accurate: np.ndarray, labels: np.ndarray, rule: str = "replace"
) -> list[dict]:
    """Per candidate band: the share of pairs the accurate tier labels and the cascade's
    accuracy under `rule` (probabilities [N, 3] in the same label order as `labels`)."""
    if rule == "geometric":
        accurate = np.sqrt(fast * accurate)
    fast_pred, accurate_pred = fast.argmax(1), accurate.argmax(1)
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
