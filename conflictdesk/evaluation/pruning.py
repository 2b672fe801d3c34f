"""How much pair pruning (conflictdesk.scoring.prune) saves and what it costs: the share of
pairs pruned, the recall of the pairs the encoder would label SUPPORTS or CONTRADICTS, and
conflict F1 / relation macro-F1 with and without pruning (after the gate), and with every
pair labelled (no gate either), on cached encoder scores."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.backends.base import Embedder
from conflictdesk.evaluation.cases import RELATIONS, evaluate
from conflictdesk.scoring.prune import best_similarity
from conflictdesk.training.fusion import TRAINING_SETS, CaseSet, nli_alone, predict_relations

IRRELEVANT = RELATIONS.index("IRRELEVANT")
RECALL_TARGET = 0.995


def similarities(case_set: CaseSet, embedder: Embedder) -> np.ndarray:
    """The best claim-sentence cosine of every pair of `case_set`, in row order."""
    claims = [c.claim for c in case_set.cases]
    texts: list[str] = []
    cells = []
    seen: dict[int, int] = {}
    for row, group in enumerate(case_set.groups.tolist()):
        offset = seen.get(group, 0)
        seen[group] = offset + 1
        texts.append(case_set.cases[group].documents[offset])
        cells.append((group, row))
    found = best_similarity(claims, texts, cells, embedder)
    return np.asarray([found[cell] for cell in cells])


def evidence_rows(case_set: CaseSet) -> np.ndarray:
    """Ungated pairs the encoder labels SUPPORTS or CONTRADICTS (what pruning must keep)."""
    return ~case_set.gate & (nli_alone(case_set.x).argmax(axis=1) != IRRELEVANT)


def choose_threshold(pairs: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """The largest cosine (0.01 steps) keeping RECALL_TARGET of the evidence pairs of every
    set (each set on its own, so a large set cannot outvote a small one)."""
    best = 0.0
    for t in np.arange(0.0, 0.61, 0.01):
        if all((sims[evidence] >= t).mean() >= RECALL_TARGET for sims, evidence in pairs):
            best = float(round(t, 2))
    return best


def effect(case_set: CaseSet, sims: np.ndarray, threshold: float) -> dict[str, Any]:
    """Pruned share, evidence recall and detection with / without pruning at `threshold`."""
    evidence = evidence_rows(case_set)
    pruned = ~case_set.gate & (sims < threshold)
    n = len(case_set.cases)
    probabilities = nli_alone(case_set.x)
    full = evaluate(case_set.cases, predict_relations(probabilities, case_set.gate,
                                                      case_set.groups, n))  # fmt: skip
    cut = evaluate(case_set.cases, predict_relations(probabilities, case_set.gate | pruned,
                                                     case_set.groups, n))  # fmt: skip
    every = evaluate(case_set.cases, predict_relations(probabilities, np.zeros_like(case_set.gate),
                                                       case_set.groups, n))  # fmt: skip
    return {
        "pairs": len(sims), "model_pairs": int((~case_set.gate).sum()),
        # every claim x document pair through the encoder (no gate, no pruning): the
        # exhaustive labelling that gate + pruning is measured against
        "every_pair_conflict_f1": every["detection"]["f1"],
        "every_pair_macro_f1": every["relations"]["macro_f1"],
        "pruned": int(pruned.sum()),
        "evidence_recall": float((sims[evidence] >= threshold).mean()) if evidence.any() else 1.0,
        "conflict_f1": [full["detection"]["f1"], cut["detection"]["f1"]],
        "macro_f1": [full["relations"]["macro_f1"], cut["relations"]["macro_f1"]],
    }  # fmt: skip


def cached_similarities(work: Path, name: str, case_set: CaseSet, embedder: Embedder) -> np.ndarray:
    """similarities() of one set, kept in `work` per embedder (a re-run skips embedding)."""
    path = work / f"similarities-{embedder.model_id}-{name.replace(' ', '_')}.npy"
    if path.exists():
        return np.load(path, allow_pickle=False)
    values = similarities(case_set, embedder)
    np.save(path, values, allow_pickle=False)
    return values


def pruning_report(work: Path, sets: dict[str, CaseSet], embedder: Embedder) -> dict[str, Any]:
    """PRUNE_BELOW chosen on the training sets, and its effect on every set."""
    sims = {name: cached_similarities(work, name, s, embedder) for name, s in sets.items()}
    threshold = choose_threshold([(sims[n], evidence_rows(sets[n])) for n in TRAINING_SETS])
    return {"threshold": threshold, "embedder": embedder.model_id,
            "sets": {n: effect(s, sims[n], threshold) for n, s in sets.items()}}  # fmt: skip


def render_pruning(report: dict[str, Any]) -> str:
    lines = [(f"PRUNE_BELOW chosen on {', '.join(TRAINING_SETS)}: {report['threshold']} "
             f"({report['embedder']})")]  # fmt: skip
    for name, r in report["sets"].items():
        mark = " (threshold chosen here)" if name in TRAINING_SETS else ""
        lines.append(
            f"{name}{mark}: pruned {r['pruned']} of {r['model_pairs']} model pairs; evidence "
            f"recall {r['evidence_recall']:.4f}; conflict F1 {r['conflict_f1'][0]:.3f} -> "
            f"{r['conflict_f1'][1]:.3f}; macro-F1 {r['macro_f1'][0]:.3f} -> "
            f"{r['macro_f1'][1]:.3f}"
        )
    return "\n".join(lines)
