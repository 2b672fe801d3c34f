"""Small evaluation metrics (pure Python) for the model report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def accuracy(gold: Sequence, pred: Sequence) -> float:
    if len(gold) != len(pred):
        raise ValueError("gold and pred differ in length")
    return sum(g == p for g, p in zip(gold, pred)) / len(gold) if gold else 0.0


def f1_for(gold: Sequence, pred: Sequence, label) -> float:
    tp = sum(g == label and p == label for g, p in zip(gold, pred))
    fp = sum(g != label and p == label for g, p in zip(gold, pred))
    fn = sum(g == label and p != label for g, p in zip(gold, pred))
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def macro_f1(gold: Sequence, pred: Sequence, labels: Sequence) -> float:
    """Unweighted mean of per-label F1 over `labels` (labels absent from gold still count)."""
    return sum(f1_for(gold, pred, label) for label in labels) / len(labels)


def confusion(gold: Sequence, pred: Sequence) -> dict[str, int]:
    """Counts keyed "gold->pred"."""
    return dict(sorted(Counter(f"{g}->{p}" for g, p in zip(gold, pred)).items()))


def majority(gold: Sequence):
    """The most frequent gold label (ties: the first in sorted order)."""
    counts = Counter(gold)
    return min(counts, key=lambda k: (-counts[k], str(k)))
