"""Train and cross-validate the CONFLICTS type model on typed development cases.

Each case (a question and its documents) runs through the analysis pipeline once; its
`typing_features` are one row. Validation is k-fold over cases (grouped by case: a case's
row is never in the fold it is scored on), stratified by type and repeated over seeds.
The model is an L2-regularised multinomial logistic regression fitted by full-batch gradient
descent in numpy; the abstention threshold is the top probability below which the
cross-validated predictions are left `uncertain`."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.analysis.evidence_signals import SubjectivityProbe
from conflictdesk.analysis.type_model import CLIP, TypeModel, softmax
from conflictdesk.analysis.typing_features import FEATURE_NAMES, type_features
from conflictdesk.training.type_cache import CaseEvidence
from conflictdesk.types import ConflictType, Passage

TYPE_ORDER = (
    ConflictType.NO_CONFLICT,
    ConflictType.COMPLEMENTARY,
    ConflictType.CONFLICTING_OPINIONS,
    ConflictType.OUTDATED,
    ConflictType.MISINFORMATION,
)


@dataclass(frozen=True)
class TypedCase:
    """One development case: the question, its documents as passages and the gold type."""

    id: str
    query: str
    passages: tuple[Passage, ...]
    gold: ConflictType


def load_typed_cases(path: Path) -> list[TypedCase]:
    """typed_dev `cases.jsonl` rows as cases; passage ids are document positions."""
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        passages = tuple(
            Passage(
                id=i,
                text=d["text"],
                document_id=i,
                title=d.get("title"),
                date=d.get("date"),
                source=d.get("source"),
            )
            for i, d in enumerate(row["documents"])
        )
        cases.append(
            TypedCase(row["id"], row["query"], passages, ConflictType(row["conflict_type"]))
        )
    return cases


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and scales (1 where a column is constant)."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    return mean, np.where(scale > 1e-9, scale, 1.0)


def scaled(x: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Standardised and clipped as `TypeModel.standardise` does at run time."""
    return np.clip((x - mean) / scale, -CLIP, CLIP)


def fit_softmax(
    x: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    *,
    l2: float = 1.0,
    steps: int = 3000,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Weights (features, classes) and bias minimising the (row-weighted) mean cross-entropy
    + l2/2n·|W|²; `x` is already standardised, `y` holds class indices, `weights` (mean 1)
    defaults to equal rows."""
    n, d = x.shape
    w, b = np.zeros((d, n_classes)), np.zeros(n_classes)
    onehot = np.eye(n_classes)[y]
    row_weights = np.ones(n) if weights is None else weights * (n / weights.sum())
    lr = 0.5
    for _ in range(steps):
        probs = softmax(x @ w + b)
        grad = (probs - onehot) * row_weights[:, None] / n
        w -= lr * (x.T @ grad + l2 * w / n)
        b -= lr * grad.sum(axis=0)
    return w, b


def train_model(
    x: np.ndarray,
    y: np.ndarray,
    feature_names: Sequence[str],
    *,
    l2: float,
    threshold: float,
    model_id: str,
    probe: SubjectivityProbe | None = None,
) -> TypeModel:
    """Fit on every row; the shipped model."""
    mean, scale = standardise(x)
    w, b = fit_softmax(scaled(x, mean, scale), y, len(TYPE_ORDER), l2=l2)
    names = tuple(feature_names)
    return TypeModel(model_id, names, TYPE_ORDER, mean, scale, w, b, threshold, probe)


def stratified_folds(y: np.ndarray, k: int, seed: int) -> Iterator[np.ndarray]:
    """Index arrays of the k test folds, each class spread evenly over them."""
    rng = np.random.default_rng(seed)
    fold_of = np.empty(len(y), dtype=int)
    for label in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == label))
        fold_of[members] = (np.arange(len(members)) + rng.integers(k)) % k
    for fold in range(k):
        yield np.flatnonzero(fold_of == fold)


def fit_predict(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, l2: float):
    """Standardise on the training rows, fit, and give the test rows' class probabilities."""
    mean, scale = standardise(x_train)
    w, b = fit_softmax(scaled(x_train, mean, scale), y_train, len(TYPE_ORDER), l2=l2)
    return softmax(scaled(x_test, mean, scale) @ w + b)


def cross_validated_probs(
    x: np.ndarray, y: np.ndarray, *, l2: float, k: int = 5, seeds: Sequence[int] = (0, 1, 2)
) -> np.ndarray:
    """Out-of-fold class probabilities, (seeds, rows, classes): each case scored by a model
    that never saw it."""
    out = np.zeros((len(seeds), len(y), len(TYPE_ORDER)))
    for s, seed in enumerate(seeds):
        for test in stratified_folds(y, k, seed):
            train = np.setdiff1d(np.arange(len(y)), test)
            out[s, test] = fit_predict(x[train], y[train], x[test], l2)
    return out


def per_type_accuracy(gold: np.ndarray, pred: np.ndarray) -> dict[str, float]:
    """Recall of each type (accuracy on the cases of that type)."""
    return {
        kind.value: float((pred[gold == i] == i).mean()) if (gold == i).any() else 0.0
        for i, kind in enumerate(TYPE_ORDER)
    }


def coverage_curve(
    gold: np.ndarray, probs: np.ndarray, thresholds: Sequence[float]
) -> list[dict[str, float]]:
    """Accuracy on the cases whose top probability reaches each threshold, and their share."""
    top, pred = probs.max(axis=-1), probs.argmax(axis=-1)
    rows = []
    for t in thresholds:
        kept = top >= t
        acc = float((pred[kept] == gold[kept]).mean()) if kept.any() else 0.0
        rows.append({"threshold": float(t), "coverage": float(kept.mean()), "accuracy": acc})
    return rows


def choose_threshold(rows: Sequence[dict[str, float]], min_coverage: float = 0.8) -> float:
    """The threshold of highest accuracy among those keeping at least `min_coverage`."""
    eligible = [r for r in rows if r["coverage"] >= min_coverage]
    return max(eligible, key=lambda r: (r["accuracy"], -r["threshold"]))["threshold"]


def summary(gold: np.ndarray, probs: np.ndarray) -> dict[str, Any]:
    """Accuracy and per-type accuracy of out-of-fold probabilities, averaged over seeds."""
    accs = [float((p.argmax(-1) == gold).mean()) for p in probs]
    per = [per_type_accuracy(gold, p.argmax(-1)) for p in probs]
    return {
        "accuracy": float(np.mean(accs)),
        "accuracy_per_seed": accs,
        "per_type": {k: float(np.mean([d[k] for d in per])) for k in per[0]},
    }


@dataclass(frozen=True)
class CaseRows:
    """Feature rows, gold indices and the rule classifier's predictions for the cases."""

    ids: tuple[str, ...]
    x: np.ndarray
    y: np.ndarray
    rules: np.ndarray


def case_rows(cases: Sequence[CaseEvidence], probe: Any = None) -> CaseRows:
    """One feature row per case (from its cached evidence), gold and rule-classifier types."""
    rows = [
        [f[name] for name in FEATURE_NAMES]
        for f in (type_features(c.evidence, probe) for c in cases)
    ]
    return CaseRows(
        tuple(c.id for c in cases),
        np.array(rows),
        np.array([TYPE_ORDER.index(c.gold) for c in cases]),
        np.array([TYPE_ORDER.index(c.rule_type) for c in cases]),
    )
