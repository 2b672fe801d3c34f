"""Features and figures for the stage-1 pair detector: one featurisation for every set,
held-out metrics beside the trivial baselines (always-conflict, majority) and the NLI-alone
stage 2, per-type precision and recall, calibration error and the τ_c routing table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from conflictdesk.analysis.pair_features import NLI_LAYOUT, nli_inputs, pair_features
from conflictdesk.training.features import EmbeddingCache, NLICache
from conflictdesk.training.metrics import accuracy, f1_for
from conflictdesk.training.pairs import TextPair
from conflictdesk.types import PAIR_TYPES

TAUS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.01)


def passage_of(side_text: str) -> str:
    """The passage of a "{query}\\n{passage}" side (the NLI feature reads passages only)."""
    return side_text.split("\n", 1)[-1]


def nli_both(nli: NLICache, data: Sequence[TextPair]) -> tuple[np.ndarray, np.ndarray]:
    """NLI probabilities i→j and j→i of each pair, [N, 3] each."""
    inputs = [x for p in data for x in nli_inputs(passage_of(p.text_i), passage_of(p.text_j))]
    scores = nli.scores(inputs)
    return scores[0::2], scores[1::2]


def featurise(
    embeddings: EmbeddingCache,
    nli: NLICache | None,
    data: Sequence[TextPair],
    layout: str,
    both_orders: bool = False,
) -> np.ndarray:
    """The shipped feature layout of each pair (and of its swapped order when asked)."""
    e_i = embeddings.embed([p.text_i for p in data])
    e_j = embeddings.embed([p.text_j for p in data])
    ij = ji = None
    if layout == NLI_LAYOUT:
        if nli is None:
            raise ValueError(f"layout {layout} needs NLI features")
        ij, ji = nli_both(nli, data)
    x = pair_features(e_i, e_j, ij, ji)
    return np.concatenate([x, pair_features(e_j, e_i, ji, ij)]) if both_orders else x


def nli_alone(ij: np.ndarray, ji: np.ndarray) -> np.ndarray:
    """Stage 2 without an LLM: conflict when contradiction is the top label either way."""
    return (ij.argmax(1) == 2) | (ji.argmax(1) == 2)


def expected_calibration_error(p: np.ndarray, gold: np.ndarray, bins: int = 10) -> float:
    """ECE of the binary confidence max(p, 1 − p) against correctness, equal-width bins."""
    confidence = np.maximum(p, 1 - p)
    correct = (p >= 0.5) == gold
    edges = np.linspace(0.5, 1.0, bins + 1)
    which = np.clip(np.digitize(confidence, edges) - 1, 0, bins - 1)
    return float(
        sum(
            abs(confidence[which == b].mean() - correct[which == b].mean()) * (which == b).mean()
            for b in range(bins)
            if (which == b).any()
        )
    )


def per_type(pred: np.ndarray, gold: np.ndarray) -> dict[str, dict]:
    """Precision, recall and support of each type (none included)."""
    out = {}
    for k, kind in enumerate(PAIR_TYPES):
        tp = int(((pred == k) & (gold == k)).sum())
        out[kind.value] = {
            "support": int((gold == k).sum()),
            "predicted": int((pred == k).sum()),
            "precision": round(tp / max(1, int((pred == k).sum())), 4),
            "recall": round(tp / max(1, int((gold == k).sum())), 4),
        }
    return out


def pair_types_predicted(conflict_p: np.ndarray, type_probs: np.ndarray) -> np.ndarray:
    """The product's typing: none below 0.5, else head 2's best non-"none" type."""
    return np.where(conflict_p >= 0.5, type_probs[:, 1:].argmax(1) + 1, 0)


def heldout_metrics(
    conflict_p: np.ndarray, type_probs: np.ndarray, data: Sequence[TextPair], stage2: np.ndarray
) -> dict:
    """Binary and type figures of one set beside always-conflict, majority and NLI alone."""
    gold = np.array([p.conflict == 1 for p in data])
    gold_t = np.array([p.kind for p in data])
    pred = conflict_p >= 0.5
    share = float(gold.mean())
    types = pair_types_predicted(conflict_p, type_probs)
    given = type_probs[:, 1:].argmax(1) + 1  # the type head alone, on gold conflicts
    return {
        "pairs": len(data),
        "conflicts": int(gold.sum()),
        "f1": round(f1_for(gold.tolist(), pred.tolist(), True), 4),
        "acc": round(accuracy(gold.tolist(), pred.tolist()), 4),
        "always_conflict_f1": round(2 * share / (1 + share), 4),
        "majority_acc": round(max(share, 1 - share), 4),
        "nli_alone_f1": round(f1_for(gold.tolist(), stage2.tolist(), True), 4),
        "nli_alone_acc": round(accuracy(gold.tolist(), stage2.tolist()), 4),
        "ece": round(expected_calibration_error(conflict_p, gold), 4),
        "type_acc": round(float((types == gold_t).mean()), 4),
        "per_type": per_type(types, gold_t),
        "type_acc_given_conflict": round(float((given == gold_t)[gold].mean()), 4)
        if gold.any()
        else None,
        "per_type_given_conflict": per_type(given[gold], gold_t[gold]),
    }


def routing_table(p: np.ndarray, stage2: np.ndarray, gold: np.ndarray) -> list[dict]:
    """Stage 1 settles max(p, 1 − p) ≥ τ_c, stage 2 (NLI alone) decides the rest."""
    rows = []
    for tau in TAUS:
        settled = np.maximum(p, 1 - p) >= tau
        combined = np.where(settled, p >= 0.5, stage2)
        rows.append(
            {
                "tau_c": tau,
                "settled": round(float(settled.mean()), 4),
                "stage1_acc_settled": round(float(((p >= 0.5) == gold)[settled].mean()), 4)
                if settled.any()
                else None,
                "combined_acc": round(float((combined == gold).mean()), 4),
                "combined_f1": round(f1_for(gold.tolist(), combined.tolist(), True), 4),
            }
        )
    return rows


def choose_tau(table: list[dict]) -> float:
    """The highest combined conflict F1; ties within 0.005 go to the larger settled share."""
    best = max(r["combined_f1"] for r in table)
    return max((r for r in table if r["combined_f1"] >= best - 0.005), key=lambda r: r["settled"])[
        "tau_c"
    ]
