"""Fitting the question-level verdict model (`conflictdesk.scoring.verdict`) on the TRAINING
cases only (RAMDocs train half, QACC train), and its figures beside the paper's rule and the
trivial baselines on every set.

HONEST SPLIT. The L2 penalty and the decision threshold are chosen on out-of-fold
probabilities of a 5-fold cross-validation grouped by question over the training sets
(objective: the mean over the training sets of conflict F1); RAMDocs eval half and QACC dev
take no part. The NLI encoder saw the training claims, so its probabilities there are
over-confident; the held-out tables show what that costs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from conflictdesk.evaluation.cases import detection_metrics
from conflictdesk.scoring.verdict import (
    ANSWER_FEATURES,
    FEATURES,
    VerdictModel,
    evidence_features,
)

L2_GRID = (0.01, 0.1, 1.0)
THRESHOLDS = tuple(round(t, 3) for t in np.arange(0.05, 0.951, 0.025))
BAND = 0.1  # |P(conflict) - threshold| below this: uncertain
FOLDS = 5


@dataclass(frozen=True)
class Rows:
    """One set's claims: feature rows, gold conflict flags and the paper rule's calls."""

    name: str
    x: np.ndarray
    gold: np.ndarray
    rule: np.ndarray

    @classmethod
    def build(cls, name: str, claims: Sequence[tuple], answers: Sequence | None = None) -> Rows:
        """From (judged probability triples, number of documents, gold conflict) per claim,
        and with `answers` (per claim, the judged documents' answers) the answer features."""
        x = np.stack([
            evidence_features(c[0], c[1], None if answers is None else answers[i])
            for i, c in enumerate(claims)
        ])  # fmt: skip
        gold = np.asarray([c[2] for c in claims], dtype=bool)
        return cls(name, x, gold, x[:, FEATURES.index("rule")] > 0)


def fit_binary_logistic(
    x: np.ndarray, y: np.ndarray, l2: float, steps: int = 3000, lr: float = 0.1
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Logistic regression by full-batch gradient descent on standardised features:
    (mean, scale, weights, bias)."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    z = (x - mean) / scale
    w, b = np.zeros(z.shape[1]), 0.0
    target = y.astype(np.float64)
    for _ in range(steps):
        grad = 1.0 / (1.0 + np.exp(-(z @ w + b))) - target
        w -= lr * (z.T @ grad / len(target) + l2 * w)
        b -= lr * float(grad.mean())
    return mean, scale, w, b


def fold_of(n: int) -> np.ndarray:
    return (np.arange(n, dtype=np.int64) * 2654435761) % FOLDS


def out_of_fold(sets: Sequence[Rows], l2: float) -> list[np.ndarray]:
    """P(conflict) of every training claim from a model fitted without its fold."""
    folds = [fold_of(len(s.gold)) for s in sets]
    out = [np.zeros(len(s.gold)) for s in sets]
    for f in range(FOLDS):
        x = np.concatenate([s.x[k != f] for s, k in zip(sets, folds, strict=True)])
        y = np.concatenate([s.gold[k != f] for s, k in zip(sets, folds, strict=True)])
        mean, scale, w, b = fit_binary_logistic(x, y, l2)
        for s, k, o in zip(sets, folds, out, strict=True):
            o[k == f] = 1.0 / (1.0 + np.exp(-(((s.x[k == f] - mean) / scale) @ w + b)))
    return out


def f1(gold: np.ndarray, predicted: np.ndarray) -> float:
    return detection_metrics(list(gold), list(predicted))["f1"]


@dataclass(frozen=True)
class Choice:
    l2: float
    threshold: float
    score: float  # mean out-of-fold conflict F1 over the training sets


def choose(sets: Sequence[Rows]) -> list[Choice]:
    """Every (L2, threshold) candidate scored on out-of-fold probabilities, best first (ties:
    the stronger penalty, then the threshold nearer 0.5)."""
    choices = []
    for l2 in L2_GRID:
        oof = out_of_fold(sets, l2)
        for t in map(float, THRESHOLDS):
            score = float(np.mean([f1(s.gold, p >= t) for s, p in zip(sets, oof, strict=True)]))
            choices.append(Choice(l2, t, score))
    return sorted(choices, key=lambda c: (-round(c.score, 6), -c.l2, abs(c.threshold - 0.5)))


def fit_verdict(
    sets: Sequence[Rows], model_id: str, evidence: str = "claim"
) -> tuple[VerdictModel, list[Choice]]:
    """The chosen (L2, threshold), refitted on every training claim."""
    choices = choose(sets)
    best = choices[0]
    x = np.concatenate([s.x for s in sets])
    y = np.concatenate([s.gold for s in sets])
    mean, scale, w, b = fit_binary_logistic(x, y, best.l2)
    names = FEATURES if x.shape[1] == len(FEATURES) else FEATURES + ANSWER_FEATURES
    model = VerdictModel(model_id, mean, scale, w, b, float(best.threshold), BAND, names, evidence)
    return model, choices


def compare(rows: Rows, model: VerdictModel) -> dict[str, dict]:
    """The verdict model, the paper's rule and always-conflict on one set's claims."""
    p = model.probability(rows.x)
    calls = {"verdict_model": p >= model.threshold, "paper_rule": rows.rule,
             "always_conflict": np.ones_like(rows.gold)}  # fmt: skip
    out = {name: detection_metrics(list(rows.gold), list(c)) for name, c in calls.items()}
    settled = np.abs(p - model.threshold) >= model.band
    out["verdict_model"]["uncertain_share"] = float(1 - settled.mean())
    out["verdict_model"]["settled_accuracy"] = float(
        ((p >= model.threshold) == rows.gold)[settled].mean() if settled.any() else 0.0
    )
    return out
