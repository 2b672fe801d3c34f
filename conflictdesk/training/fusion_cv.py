"""Choosing the fusion labeller's class weights and decision offsets by cross-validation grouped
by question on the TRAINING cases, and the diagnostics that say whether a held-out difference
is real (case-level ranking AUC, a paired bootstrap over cases).

The objective of the choice is the mean, over the training sets, of case-level conflict F1
plus relation macro-F1 of the out-of-fold predictions: the two figures the default-labeller
rule compares. No held-out set takes part."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from conflictdesk.evaluation.cases import RELATIONS, evaluate

CLASS_WEIGHTS: tuple[tuple[float, float, float] | None, ...] = (None, (1, 1.5, 1), (1, 2, 1))
OFFSETS: tuple[tuple[float, float, float], ...] = tuple(
    (s, c, 0.0) for s in (-0.5, 0.0, 0.5) for c in (-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0)
)
FOLDS = 5


def fold_of(groups: np.ndarray, folds: int = FOLDS) -> np.ndarray:
    """A fixed fold per case (a hash of its index), so all of a question's pairs share one."""
    return (np.asarray(groups, dtype=np.int64) * 2654435761) % folds


def relation_rows(labels: np.ndarray, gate: np.ndarray, groups: np.ndarray, n: int) -> list:
    """Per case, the relation names of its pairs (gated pairs IRRELEVANT)."""
    labels = np.where(gate, RELATIONS.index("IRRELEVANT"), labels)
    rows: list[list[str]] = [[] for _ in range(n)]
    for group, label in zip(groups, labels, strict=True):
        rows[int(group)].append(RELATIONS[int(label)])
    return rows


def objective(case_sets: Sequence, labels: Sequence[np.ndarray]) -> tuple[float, list[tuple]]:
    """Mean over the sets of conflict F1 + relation macro-F1, and each set's (F1, macro-F1)."""
    parts = []
    for case_set, set_labels in zip(case_sets, labels, strict=True):
        rows = relation_rows(set_labels, case_set.gate, case_set.groups, len(case_set.cases))
        result = evaluate(case_set.cases, rows)
        parts.append((result["detection"]["f1"], result["relations"]["macro_f1"]))
    return float(np.mean([f1 + macro for f1, macro in parts])), parts


@dataclass(frozen=True)
class Choice:
    """One (class weight, offsets) candidate, or one "split" threshold, with its out-of-fold
    figures."""

    class_weight: tuple[float, float, float] | None
    offsets: tuple[float, float, float]
    score: float
    per_set: tuple[tuple[float, float], ...]
    threshold: float | None = None  # the "split" structure's


SPLIT_THRESHOLDS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


def stacked(case_sets: Sequence) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The case sets' feature rows and gold relations stacked, each row's case index (made
    unique across the sets), and where to split the rows back into the sets."""
    offsets_of = np.cumsum([0] + [len(s.cases) for s in case_sets[:-1]])
    x = np.concatenate([s.x for s in case_sets])
    y = np.concatenate([s.y for s in case_sets])
    groups = np.concatenate([s.groups + o for s, o in zip(case_sets, offsets_of, strict=True)])
    sizes = np.cumsum([len(s.y) for s in case_sets])[:-1]
    return x, y, groups, sizes


def choose_split(case_sets: Sequence, fit_contra, relations) -> list[Choice]:
    """Every threshold of SPLIT_THRESHOLDS for the "split" structure, scored on out-of-fold
    P(CONTRADICTS | not SUPPORTS) of the training `case_sets` (folds by case), best first.
    `fit_contra(x, y)` is fitted on the other folds' gold CONTRADICTS (1) and IRRELEVANT (0)
    pairs and returns a function from feature rows to that probability;
    `relations(x, q, threshold)` gives relation ids."""
    x, y, groups, sizes = stacked(case_sets)
    fold = fold_of(groups)
    not_supports = y != RELATIONS.index("SUPPORTS")
    contra = (y == RELATIONS.index("CONTRADICTS")).astype(float)
    q = np.zeros(len(y))
    for f in range(FOLDS):
        test = fold == f
        train = ~test & not_supports
        q[test] = fit_contra(x[train], contra[train])(x[test])
    choices = []
    for threshold in SPLIT_THRESHOLDS:
        labels = np.split(relations(x, q, threshold), sizes)
        score, per_set = objective(case_sets, labels)
        choices.append(Choice(None, (0.0, 0.0, 0.0), score, tuple(per_set), threshold))
    return sorted(choices, key=lambda c: -c.score)


def choose_decision(case_sets: Sequence, fit, decide) -> list[Choice]:
    """Every candidate of CLASS_WEIGHTS x OFFSETS scored on out-of-fold probabilities of the
    training `case_sets` (folds by case), best first. `fit(x, y, class_weight)` returns a
    function from feature rows to probabilities; `decide(p, offsets)` gives relation ids."""
    x, y, groups, sizes = stacked(case_sets)
    fold = fold_of(groups)
    choices = []
    for weight in CLASS_WEIGHTS:
        oof = np.zeros((len(y), len(RELATIONS)))
        for f in range(FOLDS):
            test = fold == f
            oof[test] = fit(x[~test], y[~test], weight)(x[test])
        for offsets in OFFSETS:
            labels = np.split(decide(oof, offsets), sizes)
            score, per_set = objective(case_sets, labels)
            choices.append(Choice(weight, offsets, score, tuple(per_set)))
    return sorted(choices, key=lambda c: -c.score)


def rank_auc(scores: np.ndarray, positive: np.ndarray) -> float:
    """Probability that a random positive scores above a random negative (ties count half)."""
    scores, positive = np.asarray(scores, dtype=float), np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if not n_pos or not n_neg:
        return float("nan")
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    for value in np.unique(scores):  # average ranks of ties
        tied = scores == value
        ranks[tied] = ranks[tied].mean()
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def case_auc(probabilities: np.ndarray, case_set) -> float:
    """How well a case's largest ungated P(CONTRADICTS) ranks conflict cases above the rest."""
    p = np.where(case_set.gate, 0.0, probabilities[:, RELATIONS.index("CONTRADICTS")])
    top = np.zeros(len(case_set.cases))
    np.maximum.at(top, case_set.groups, p)
    return rank_auc(top, np.asarray([c.conflict for c in case_set.cases]))


def f1(gold: np.ndarray, predicted: np.ndarray) -> float:
    tp = int((gold & predicted).sum())
    wrong = int((gold ^ predicted).sum())
    return 2 * tp / (2 * tp + wrong) if tp else 0.0


def bootstrap_difference(
    gold: Sequence[bool], a: Sequence[bool], b: Sequence[bool], draws: int = 2000, seed: int = 0
) -> dict[str, float]:
    """Conflict F1 of verdicts `a` minus that of `b`, with a 95% interval and the share of
    draws where `a` wins, resampling cases with replacement (paired)."""
    gold_, a_, b_ = (np.asarray(v, dtype=bool) for v in (gold, a, b))
    rng = np.random.default_rng(seed)
    diffs = np.empty(draws)
    for i in range(draws):
        pick = rng.integers(0, len(gold_), len(gold_))
        diffs[i] = f1(gold_[pick], a_[pick]) - f1(gold_[pick], b_[pick])
    low, high = np.percentile(diffs, [2.5, 97.5])
    return {
        "difference": f1(gold_, a_) - f1(gold_, b_),
        "low": float(low),
        "high": float(high),
        "a_wins": float(np.mean(diffs > 0)),
    }


def threshold_ceiling(
    x: np.ndarray, q: np.ndarray, case_set, split: Callable[..., np.ndarray]
) -> tuple[float, float]:
    """(best conflict F1, its threshold) of the "split" decision `split(x, q, threshold)` over
    every threshold on the regression's output `q`, chosen on `case_set` itself: an upper
    bound on what choosing the threshold could reach there, never a figure to ship (the
    shipped threshold is chosen by cross-validation on the training cases). A case is a
    conflict when a pair is SUPPORTS and another reaches the threshold (gated pairs never)."""
    n = len(case_set.cases)
    gold = np.asarray([c.conflict for c in case_set.cases], dtype=bool)
    supports = (split(x, q, np.inf) == RELATIONS.index("SUPPORTS")) & ~case_set.gate
    open_rows = ~supports & ~case_set.gate
    has_support = np.zeros(n, dtype=bool)
    np.logical_or.at(has_support, case_set.groups[supports], True)
    top = np.full(n, -np.inf)
    np.maximum.at(top, case_set.groups[open_rows], q[open_rows])
    best = (f1(gold, np.zeros(n, dtype=bool)), float("inf"))
    for threshold in np.unique(top[np.isfinite(top)]):
        best = max(best, (f1(gold, has_support & (top >= threshold)), float(threshold)))
    return best
