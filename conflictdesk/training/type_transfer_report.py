"""Choose the type model's recipe by the cross-source check and print the figures (the parts
of `scripts/train_type_classifier.py` worth testing)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from conflictdesk.training.type_selection import FEATURE_SETS, PREVIOUS
from conflictdesk.training.type_transfer import (
    Recipe,
    cross_source,
    cv_scores,
    dev_cv,
    prior_shift,
)
from conflictdesk.training.types import TYPE_ORDER, CaseRows, choose_threshold, coverage_curve

L2_GRID = (1.0, 3.0, 10.0, 30.0)
ALPHAS = (0.0, 0.5, 1.0)


def transfer_score(figures: Mapping[str, Any]) -> float:
    """The selection criterion: mean balanced accuracy of the two cross-source directions."""
    return float(
        np.mean([figures[d]["balanced"] for d in ("public->typed_dev", "typed_dev->public")])
    )


def choose_recipe(dev: CaseRows, pub: CaseRows, l2s: Sequence[float] = L2_GRID):
    """Every feature set × L2 by the cross-source criterion; the best trains on both sources.
    Ties: the larger L2, then the smaller feature set."""
    order = list(FEATURE_SETS)
    grid = {
        Recipe(f, l2, True): cross_source(dev, pub, Recipe(f, l2, True))
        for f in order
        for l2 in l2s
    }
    best = max(
        grid, key=lambda r: (round(transfer_score(grid[r]), 4), r.l2, -order.index(r.features))
    )
    return best, grid


def evaluate_transfer(dev: CaseRows, pub: CaseRows, seeds: Sequence[int] = (0, 1, 2)):
    """The chosen recipe beside the previous one: cross-source figures, typed_dev CV grouped
    by case (and the prior-corrected variants), the abstention threshold on that CV."""
    best, grid = choose_recipe(dev, pub)
    previous = Recipe(PREVIOUS[0], PREVIOUS[1], False)
    report: dict[str, Any] = {
        "public_cases": len(pub.y),
        "public_types": {t.value: int((pub.y == i).sum()) for i, t in enumerate(TYPE_ORDER)},
        "grid": {r.label(): round(transfer_score(v), 4) for r, v in grid.items()},
        "chosen": {"features": best.features, "l2": best.l2, "public": best.public},
    }
    for name, recipe in (("previous", previous), ("chosen", best)):
        cv = {}
        for alpha in ALPHAS:
            probs = dev_cv(dev, pub, recipe, alpha=alpha, seeds=seeds)
            cv[f"alpha={alpha:g}"] = cv_scores(dev.y, probs)
            if alpha == 0.0:
                base = probs
        report[name] = {
            "recipe": recipe.label(),
            "cross_source": cross_source(dev, pub, recipe),
            "cross_source_prior": cross_source(dev, pub, recipe, alpha=1.0),
            "typed_dev_cv": cv,
        }
    curve = coverage_curve(np.tile(dev.y, len(seeds)), base.reshape(-1, base.shape[-1]),
                           [round(t, 2) for t in np.arange(0.2, 0.85, 0.05)])  # fmt: skip
    report["coverage"] = curve
    report["threshold"] = choose_threshold(curve)
    return report


def _row(label: str, figures: Mapping[str, Any]) -> str:
    per = "".join(f"{v:7.2f}" for v in figures["per_type"].values())
    return (f"  {label:34s}{per}{figures['accuracy']:7.3f}{figures['balanced']:7.3f}"
            f"{figures['paper_weighted']:7.3f}")  # fmt: skip


def print_transfer(report: Mapping[str, Any]) -> None:
    heads = "".join(f"{t.value[:6]:>7s}" for t in TYPE_ORDER)
    print(f"public-provenance cases: {report['public_cases']} {report['public_types']}")
    print(f"  {'(per-type accuracy)':34s}{heads}{'acc':>7s}{'bal':>7s}{'paperw':>7s}")
    for name in ("previous", "chosen"):
        part = report[name]
        print(f"{name}: {part['recipe']}")
        for direction, figures in part["cross_source"].items():
            print(_row(f"cross {direction}", figures))
            majority = figures["majority"]
            print(
                f"    majority class ({majority['type']}) on the same cases: {majority['accuracy']:.3f}"
            )
        for direction, figures in part["cross_source_prior"].items():
            print(_row(f"cross {direction} α=1", figures))
        for alpha, figures in part["typed_dev_cv"].items():
            print(_row(f"typed_dev CV {alpha}", figures))
    print("threshold  coverage  accuracy (chosen, typed_dev CV)")
    for row in report["coverage"]:
        print(f"{row['threshold']:9.2f}{row['coverage']:10.3f}{row['accuracy']:10.3f}")
    print(f"abstention threshold: {report['threshold']:.2f}; chosen: {report['chosen']}")


__all__ = ["choose_recipe", "evaluate_transfer", "print_transfer", "prior_shift"]
