"""Choose the type model's feature set and L2 strength by cross-validation grouped by case,
and measure that choice honestly by nested cross-validation: each outer fold picks its own
configuration on its training cases alone (inner folds), so no scored case helped pick it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from conflictdesk.analysis.evidence_signals import (
    SIDE_NAMES,
    SIGNAL_NAMES,
    SUPPORT_NAMES,
    SubjectivityProbe,
)
from conflictdesk.analysis.type_model import TypeModel
from conflictdesk.analysis.typing_features import ANSWER_STRUCTURE, FEATURE_NAMES
from conflictdesk.training.types import (
    TYPE_ORDER,
    CaseRows,
    choose_threshold,
    coverage_curve,
    fit_predict,
    per_type_accuracy,
    stratified_folds,
    summary,
    train_model,
)

MEASURED = tuple(
    name
    for name in FEATURE_NAMES
    if name not in SIGNAL_NAMES + ANSWER_STRUCTURE + SUPPORT_NAMES + SIDE_NAMES
)
AGREEMENT = SIGNAL_NAMES[:5]
EMBEDDING = SIGNAL_NAMES[5:]
FEATURE_SETS: dict[str, tuple[str, ...]] = {
    "measured": MEASURED,
    "measured+agreement": MEASURED + AGREEMENT,
    "measured+agreement+embedding": MEASURED + AGREEMENT + EMBEDDING,
}
L2_GRID = (1.0, 3.0, 10.0)
PREVIOUS = ("measured", 3.0)  # the configuration shipped before this selection


@dataclass(frozen=True)
class Config:
    """A feature set (a key of FEATURE_SETS) and an L2 strength."""

    features: str
    l2: float

    def columns(self) -> list[int]:
        return [FEATURE_NAMES.index(name) for name in FEATURE_SETS[self.features]]


def grid(sets: Sequence[str] = tuple(FEATURE_SETS), l2s: Sequence[float] = L2_GRID) -> list[Config]:
    return [Config(name, l2) for name in sets for l2 in l2s]


def cv_probs(
    x: np.ndarray, y: np.ndarray, config: Config, *, k: int = 5, seeds: Sequence[int] = (0,)
) -> np.ndarray:
    """Out-of-fold probabilities (seeds, rows, classes) of one configuration."""
    cols = config.columns()
    out = np.zeros((len(seeds), len(y), len(TYPE_ORDER)))
    for s, seed in enumerate(seeds):
        for test in stratified_folds(y, k, seed):
            train = np.setdiff1d(np.arange(len(y)), test)
            out[s, test] = fit_predict(x[train][:, cols], y[train], x[test][:, cols], config.l2)
    return out


def select_config(
    x: np.ndarray, y: np.ndarray, configs: Sequence[Config], *, seeds: Sequence[int] = (0,)
) -> tuple[Config, dict[Config, float]]:
    """The configuration of best CV accuracy (ties: the larger L2, then the smaller set)."""
    scores = {c: float((cv_probs(x, y, c, seeds=seeds).argmax(-1) == y).mean()) for c in configs}
    order = list(FEATURE_SETS)
    best = max(configs, key=lambda c: (round(scores[c], 6), c.l2, -order.index(c.features)))
    return best, scores


def nested_cv(
    x: np.ndarray,
    y: np.ndarray,
    configs: Sequence[Config],
    *,
    k: int = 5,
    seeds: Sequence[int] = (0, 1, 2),
) -> tuple[np.ndarray, list[Config]]:
    """Outer out-of-fold probabilities (seeds, rows, classes) and each outer fold's choice."""
    out = np.zeros((len(seeds), len(y), len(TYPE_ORDER)))
    chosen: list[Config] = []
    for s, seed in enumerate(seeds):
        for test in stratified_folds(y, k, seed):
            train = np.setdiff1d(np.arange(len(y)), test)
            config, _ = select_config(x[train], y[train], configs, seeds=(seed + 100,))
            chosen.append(config)
            cols = config.columns()
            out[s, test] = fit_predict(x[train][:, cols], y[train], x[test][:, cols], config.l2)
    return out, chosen


def confusion(gold: np.ndarray, probs: np.ndarray) -> list[list[int]]:
    """Counts (gold row, predicted column) summed over seeds."""
    matrix = np.zeros((len(TYPE_ORDER), len(TYPE_ORDER)), dtype=int)
    for p in probs:
        np.add.at(matrix, (gold, p.argmax(-1)), 1)
    return matrix.tolist()


def choice_counts(chosen: Sequence[Config]) -> Mapping[str, int]:
    counts: dict[str, int] = {}
    for c in chosen:
        key = f"{c.features}, l2={c.l2:g}"
        counts[key] = counts.get(key, 0) + 1
    return counts


def evaluate(rows: CaseRows, configs: Sequence[Config], seeds: Sequence[int] = (0, 1, 2)):
    """Nested-CV figures of the selection beside the previous configuration (plain CV, the
    same folds), the majority class and the rule classifier; the accuracy-coverage curve and
    the abstention threshold chosen on it; the configuration chosen on every case."""
    probs, chosen = nested_cv(rows.x, rows.y, configs, seeds=seeds)
    previous = cv_probs(rows.x, rows.y, Config(*PREVIOUS), seeds=seeds)
    final, scores = select_config(rows.x, rows.y, configs, seeds=seeds)
    majority = int(np.bincount(rows.y).argmax())
    curve = coverage_curve(
        np.tile(rows.y, len(seeds)),
        probs.reshape(-1, probs.shape[-1]),
        [round(t, 2) for t in np.arange(0.2, 0.85, 0.05)],
    )
    return {
        "cases": len(rows.y),
        "folds": 5,
        "seeds": list(seeds),
        "model": {**summary(rows.y, probs), "confusion": confusion(rows.y, probs)},
        "outer_choices": choice_counts(chosen),
        "previous": {"config": f"{PREVIOUS[0]}, l2={PREVIOUS[1]:g}", **summary(rows.y, previous)},
        "majority": {
            "type": TYPE_ORDER[majority].value,
            "accuracy": float((rows.y == majority).mean()),
        },
        "rules": {
            "accuracy": float((rows.rules == rows.y).mean()),
            "per_type": per_type_accuracy(rows.y, rows.rules),
        },
        "grid_cv": {f"{c.features}, l2={c.l2:g}": round(v, 4) for c, v in scores.items()},
        "chosen": {"features": final.features, "l2": final.l2},
        "coverage": curve,
        "threshold": choose_threshold(curve),
    }


def fit_chosen(
    rows: CaseRows, report: Mapping[str, Any], probe: SubjectivityProbe, model_id: str
) -> TypeModel:
    """The configuration chosen on every case, fitted on every case; it carries the probe
    only when it reads the probe's features."""
    config = Config(report["chosen"]["features"], float(report["chosen"]["l2"]))
    names = FEATURE_SETS[config.features]
    reads_probe = any(name in EMBEDDING for name in names)
    return train_model(
        rows.x[:, config.columns()],
        rows.y,
        names,
        l2=config.l2,
        threshold=float(report["threshold"]),
        model_id=model_id,
        probe=probe if reads_probe else None,
    )
