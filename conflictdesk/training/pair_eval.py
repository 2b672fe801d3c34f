"""Features and figures for the stage-1 pair detector: one featurisation for every set,
held-out metrics beside the trivial baselines (always-conflict, majority) and the NLI-alone
stage 2, per-type precision and recall, calibration error and the τ_c routing table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from conflictdesk.analysis.pair_features import (
    EMBEDDING_LAYOUT,
    NLI_LAYOUT,
    STANCE_LAYOUT,
    STANCE_LAYOUTS,
    STANCE_ONLY_LAYOUT,
    StanceRequest,
    layout_features,
    nli_inputs,
    stance_block,
    stance_inputs,
    stance_request,
    stance_scores,
    swap_stance,
)
from conflictdesk.training.features import EmbeddingCache, NLICache
from conflictdesk.training.metrics import accuracy, f1_for
from conflictdesk.training.pairs import TextPair
from conflictdesk.types import PAIR_TYPES

LAYOUTS = (EMBEDDING_LAYOUT, NLI_LAYOUT, STANCE_LAYOUT, STANCE_ONLY_LAYOUT)
TAUS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.01)


def passage_of(side_text: str) -> str:
    """The passage of a "{query}\\n{passage}" side (the NLI feature reads passages only)."""
    return side_text.split("\n", 1)[-1]


def nli_inputs_of(pair: TextPair) -> list[tuple[str, str]]:
    """The two clipped-passage NLI inputs of a pair (i→j, j→i)."""
    return nli_inputs(passage_of(pair.text_i), passage_of(pair.text_j))


def nli_both(nli: NLICache, data: Sequence[TextPair]) -> tuple[np.ndarray, np.ndarray]:
    """NLI probabilities i→j and j→i of each pair, [N, 3] each."""
    scores = nli.scores([x for p in data for x in nli_inputs_of(p)])
    return scores[0::2], scores[1::2]


def query_of(side_text: str) -> str:
    """The query of a "{query}\\n{passage}" side ("" for a query-less side)."""
    return side_text.split("\n", 1)[0] if "\n" in side_text else ""


def stance_requests(data: Sequence[TextPair]) -> list[StanceRequest]:
    return [
        stance_request(query_of(p.text_i), passage_of(p.text_i), passage_of(p.text_j)) for p in data
    ]


def stance_inputs_of(data: Sequence[TextPair]) -> list[tuple[str, str]]:
    """The stance NLI inputs of the pairs (two a pair, in `stance_block`'s order)."""
    return stance_inputs(stance_requests(data))


def stance(
    nli: NLICache, data: Sequence[TextPair], statements: NLICache | None = None
) -> np.ndarray:
    """The [N, STANCE_DIM] stance block of each pair (pair_features.stance_request); with
    `statements`, the stances towards a statement are read by it (`stance_scores`)."""
    requests = stance_requests(data)
    read_statements = statements.scores if statements is not None else None
    return stance_block(requests, stance_scores(requests, nli.scores, read_statements))


def featurise(
    embeddings: EmbeddingCache | None,
    nli: NLICache | None,
    data: Sequence[TextPair],
    layout: str,
    both_orders: bool = False,
    statements: NLICache | None = None,
) -> np.ndarray:
    """The feature layout of each pair (and of its swapped order when asked); `statements`
    reads the stances towards a statement when the model's `statement_stance` is the
    cascade."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout}")
    needs_nli = layout == NLI_LAYOUT or layout in STANCE_LAYOUTS
    if needs_nli and nli is None:
        raise ValueError(f"layout {layout} needs NLI features")
    e_i = e_j = ij = ji = block = None
    if layout != STANCE_ONLY_LAYOUT:
        if embeddings is None:
            raise ValueError(f"layout {layout} needs embeddings")
        e_i = embeddings.embed([p.text_i for p in data])
        e_j = embeddings.embed([p.text_j for p in data])
    if layout == NLI_LAYOUT:
        ij, ji = nli_both(nli, data)
    if layout in STANCE_LAYOUTS:
        block = stance(nli, data, statements)
    x = layout_features(layout, e_i, e_j, ij, ji, block)
    if not both_orders:
        return x
    swapped = None if block is None else swap_stance(block)
    return np.concatenate([x, layout_features(layout, e_j, e_i, ji, ij, swapped)])


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


def pair_types_predicted(
    conflict_p: np.ndarray, type_probs: np.ndarray, threshold: float = 0.5
) -> np.ndarray:
    """The product's typing: none below the threshold, else head 2's best non-"none" type."""
    return np.where(conflict_p >= threshold, type_probs[:, 1:].argmax(1) + 1, 0)


def heldout_metrics(
    conflict_p: np.ndarray,
    type_probs: np.ndarray,
    data: Sequence[TextPair],
    stage2: np.ndarray,
    threshold: float = 0.5,
    tau: float | None = None,
) -> dict:
    """Binary and type figures of one set beside always-conflict, majority and NLI alone;
    a pair is a conflict when P(conflict) ≥ `threshold` (chosen on dev)."""
    gold = np.array([p.conflict == 1 for p in data])
    gold_t = np.array([p.kind for p in data])
    pred = conflict_p >= threshold
    share = float(gold.mean())
    types = pair_types_predicted(conflict_p, type_probs, threshold)
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
        **routed(conflict_p, stage2, gold, tau, threshold),
    }


def routed(
    p: np.ndarray, stage2: np.ndarray, gold: np.ndarray, tau: float | None, threshold: float
) -> dict:
    """The two-stage route's figures: stage 1 settles max(p, 1 − p) ≥ τ_c (conflict when
    p ≥ threshold), NLI alone decides the rest; empty without τ_c."""
    if tau is None:
        return {}
    settled = np.maximum(p, 1 - p) >= tau
    combined = np.where(settled, p >= threshold, stage2)
    return {
        "routed_settled": round(float(settled.mean()), 4),
        "routed_f1": round(f1_for(gold.tolist(), combined.tolist(), True), 4),
        "routed_acc": round(float((combined == gold).mean()), 4),
    }


def routing_table(
    p: np.ndarray, stage2: np.ndarray, gold: np.ndarray, threshold: float = 0.5
) -> list[dict]:
    """Stage 1 settles max(p, 1 − p) ≥ τ_c (conflict when p ≥ threshold), stage 2 (NLI
    alone) decides the rest."""
    rows = []
    for tau in TAUS:
        settled = np.maximum(p, 1 - p) >= tau
        combined = np.where(settled, p >= threshold, stage2)
        rows.append(
            {
                "tau_c": tau,
                "settled": round(float(settled.mean()), 4),
                "stage1_acc_settled": round(float(((p >= threshold) == gold)[settled].mean()), 4)
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


THRESHOLDS = tuple(round(0.05 * k, 2) for k in range(2, 19))


def choose_threshold(p: np.ndarray, gold: np.ndarray) -> float:
    """The decision threshold on P(conflict) (0.10 … 0.90) with the best F1 on the given
    (development) pairs; ties go to the one nearest 0.5."""
    scored = [
        (f1_for(gold.tolist(), (p >= t).tolist(), True), -abs(t - 0.5), t) for t in THRESHOLDS
    ]
    return max(scored)[2]
