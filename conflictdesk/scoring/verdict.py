"""The question-level conflict decision: is one claim (or one question's leading answer) both
supported and contradicted by its documents, read from all of their probabilities at once.

ConflictScore's own rule (D⁺ and D⁻ both non-empty, `scoring.metrics.has_conflict`) turns one
false CONTRADICTS among nine documents into a false conflict. The verdict model instead reads
order statistics and masses of the per-document P(SUPPORTS) and P(CONTRADICTS), the number of
documents and the paper's rule itself (`FEATURES`), and a logistic regression gives
P(conflict); the decision is P ≥ `threshold`, `uncertain` within `band` of it. The paper's D⁺,
D⁻, CS-C and CS-R are not changed by it: it is a separate decision, opt-in unless it wins
(`DEFAULT_DECISION`, docs/verdict_report.md)."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.errors import ModelIntegrityError
from conflictdesk.text import normalise_answer

MODEL_NAME = "conflictdesk-verdict-lr"
REBUILD = "nice -n 10 .venv/bin/python scripts/train_verdict.py --collect"
DECISIONS = ("rule", "model")
# The paper's rule stays the default until the model beats it and the trivial baselines on
# every held-out set (docs/verdict_report.md).
DEFAULT_DECISION = "rule"
FEATURES = (
    "log_documents", "log_judged",
    "top_contradicts", "second_contradicts", "top_supports", "second_supports",
    "mean_contradicts", "mean_supports", "support_x_contradict",
    "n_contradicts", "n_supports", "rule",
)  # fmt: skip

# Read when the documents' candidate answers are known (`ask`'s tags): how many distinct
# answers the judged documents hold and how the plurality answer's share compares.
ANSWER_FEATURES = ("log_answers", "answered_share", "top_answer_share", "log_other_answers")

Triple = tuple[float, float, float]  # P(SUPPORTS), P(CONTRADICTS), P(IRRELEVANT)


def _top(values: np.ndarray, rank: int) -> float:
    ordered = np.sort(values)[::-1]
    return float(ordered[rank]) if len(ordered) > rank else 0.0


def _cross(supports: np.ndarray, contradicts: np.ndarray) -> float:
    """max over two different documents i ≠ j of P_i(SUPPORTS) · P_j(CONTRADICTS)."""
    if len(supports) < 2:
        return 0.0
    grid = np.outer(supports, contradicts)
    np.fill_diagonal(grid, 0.0)
    return float(grid.max())


def answer_groups(answers: Sequence[str | None]) -> list[int]:
    """Sizes of the groups of equal answers (`conflictdesk.text.normalise_answer`; an answer
    contained in another joins it), largest first; documents without one left out."""
    groups: list[tuple[str, int]] = []
    for answer in answers:
        key = normalise_answer(answer or "")
        if not key:
            continue
        at = next((i for i, (g, _) in enumerate(groups) if key in g or g in key), None)
        if at is None:
            groups.append((key, 1))
        else:
            groups[at] = (groups[at][0], groups[at][1] + 1)
    return sorted((n for _, n in groups), reverse=True)


def answer_features(answers: Sequence[str | None]) -> np.ndarray:
    """`ANSWER_FEATURES` of the judged documents' candidate answers."""
    sizes = answer_groups(answers)
    answered = sum(sizes)
    return np.asarray([
        np.log1p(len(sizes)), answered / len(answers) if answers else 0.0,
        sizes[0] / answered if answered else 1.0, np.log1p(answered - (sizes[0] if sizes else 0)),
    ], dtype=np.float64)  # fmt: skip


def evidence_features(
    judged: Sequence[Triple], documents: int, answers: Sequence[str | None] | None = None
) -> np.ndarray:
    """`FEATURES` of one claim (then `ANSWER_FEATURES` when `answers` is given): `judged` holds
    the probability triples of the documents a model judged (gated or off-topic ones left
    out), `documents` counts all of them, `answers` gives the judged documents' answers."""
    base = _base_features(judged, documents)
    return base if answers is None else np.concatenate([base, answer_features(answers)])


def _base_features(judged: Sequence[Triple], documents: int) -> np.ndarray:
    p = np.asarray(judged, dtype=np.float64).reshape(-1, 3)
    supports, contradicts = p[:, 0], p[:, 1]
    labels = p.argmax(axis=1) if len(p) else np.zeros(0, dtype=int)
    n_supports, n_contradicts = float((labels == 0).sum()), float((labels == 1).sum())
    return np.asarray([
        np.log1p(documents), np.log1p(len(p)),
        _top(contradicts, 0), _top(contradicts, 1), _top(supports, 0), _top(supports, 1),
        float(contradicts.mean()) if len(p) else 0.0, float(supports.mean()) if len(p) else 0.0,
        _cross(supports, contradicts),
        n_contradicts, n_supports, float(n_supports > 0 and n_contradicts > 0),
    ], dtype=np.float64)  # fmt: skip


@dataclass(frozen=True)
class QuestionDecision:
    """The verdict model's call on one claim: conflict or not, P(conflict), and `uncertain`
    when P lies within the model's band around its threshold (a reviewer should look)."""

    conflict: bool
    probability: float
    uncertain: bool
    method: str

    def to_json(self) -> dict[str, Any]:
        return {"conflict": self.conflict, "probability": round(self.probability, 4),
                "uncertain": self.uncertain, "method": self.method}  # fmt: skip


@dataclass(frozen=True)
class VerdictModel:
    """Standardised `FEATURES` → sigmoid(w·x + b) = P(conflict); conflict when ≥ threshold."""

    model_id: str
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    threshold: float
    band: float
    features: tuple[str, ...] = FEATURES
    # What `ask` feeds it: "claim" (the detect claim's labelling, `analysis.conflict_call`)
    # or "tags" (the on-topic passage tags); `detect` always feeds its own judgments.
    evidence: str = "claim"

    @property
    def reads_answers(self) -> bool:
        return len(self.features) > len(FEATURES)

    def probability(self, features: np.ndarray) -> np.ndarray:
        z = (np.atleast_2d(features) - self.mean) / self.scale
        return 1.0 / (1.0 + np.exp(-(z @ self.weights + self.bias)))

    def decide(
        self, judged: Sequence[Triple], documents: int, answers: Sequence[str | None] = ()
    ) -> QuestionDecision:
        """The call on one claim; `answers` (one per judged document) for a model that reads
        them."""
        x = evidence_features(judged, documents, answers if self.reads_answers else None)
        p = float(self.probability(x)[0])
        return QuestionDecision(
            conflict=p >= self.threshold,
            probability=p,
            uncertain=abs(p - self.threshold) < self.band,
            method=f"verdict model {self.model_id}: P(conflict) >= {self.threshold:.3f}",
        )

    def to_json(self) -> dict[str, Any]:
        return {"features": list(self.features), "mean": self.mean.round(6).tolist(),
                "scale": self.scale.round(6).tolist(), "weights": self.weights.round(6).tolist(),
                "bias": round(self.bias, 6), "threshold": round(self.threshold, 4),
                "band": round(self.band, 4), "evidence": self.evidence}  # fmt: skip

    @classmethod
    def from_json(cls, blob: Mapping[str, Any], model_id: str) -> VerdictModel:
        features = tuple(blob.get("features", ()))
        if features not in (FEATURES, FEATURES + ANSWER_FEATURES):
            raise ModelIntegrityError(
                f"{model_id}: verdict weights were fitted for other features; rebuild: {REBUILD}"
            )
        return cls(model_id, np.asarray(blob["mean"], dtype=np.float64),
                   np.asarray(blob["scale"], dtype=np.float64),
                   np.asarray(blob["weights"], dtype=np.float64), float(blob["bias"]),
                   float(blob["threshold"]), float(blob["band"]), features,
                   str(blob.get("evidence", "claim")))  # fmt: skip


def load_verdict_models(models_dir: Path) -> dict[str, VerdictModel]:
    """The shipped verdict models by use ("detect", "ask"), verified against the manifest."""
    from conflictdesk.backends.manifest import Manifest

    entry = Manifest.load(Path(models_dir) / "manifest.json").get(MODEL_NAME)
    entry.verify(Path(models_dir))
    blob = json.loads(entry.resolve(Path(models_dir)).read_text(encoding="utf-8"))
    return {use: VerdictModel.from_json(part, f"{entry.model_id}/{use}")
            for use, part in blob["models"].items()}  # fmt: skip


@functools.cache
def default_verdict_models() -> dict[str, VerdictModel]:
    """The shipped verdict models, loaded and verified once per process."""
    from conflictdesk.backends.manifest import models_dir

    return load_verdict_models(models_dir())


def question_decision(judgments: Sequence[Any], model: VerdictModel) -> QuestionDecision:
    """The verdict model's call on one claim's judgments (`scoring.results.Judgment`); the
    ones without probabilities (gated, pruned, generated as text) count only as documents."""
    judged = [j.probabilities for j in judgments if j.probabilities is not None]
    return model.decide(judged, len(judgments))
