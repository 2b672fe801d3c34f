"""Measure pair pruning: choose PRUNE_BELOW on the training cases, report what it prunes and
what it costs on the held-out development sets (encoder alone, cached scores).

examples:
  .venv/bin/python scripts/train_fusion.py --no-write   # fills the NLI score cache first
  .venv/bin/python scripts/eval_pruning.py
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from conflictdesk.evaluation.pruning import choose_threshold, effect, evidence_rows, similarities
from conflictdesk.training.fusion import TRAINING_SETS, load_sets


def cached_similarities(work: Path, name: str, case_set, embedder) -> np.ndarray:
    """similarities() of one set, kept in `work` per embedder (a re-run skips embedding)."""
    path = work / f"similarities-{embedder.model_id}-{name.replace(' ', '_')}.npy"
    if path.exists():
        return np.load(path, allow_pickle=False)
    values = similarities(case_set, embedder)
    np.save(path, values, allow_pickle=False)
    return values


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--work", type=Path, default=Path(".train/fusion"), help="cache folder")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*truncated to.*")
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config

    embedder = load_backends(load_config(threads=args.threads), roles=("embedder",)).embedder
    sets = load_sets(args.work, args.threads)
    sims = {name: cached_similarities(args.work, name, s, embedder) for name, s in sets.items()}
    threshold = choose_threshold([(sims[n], evidence_rows(sets[n])) for n in TRAINING_SETS])
    report = {"threshold": threshold, "embedder": embedder.model_id,
              "sets": {n: effect(s, sims[n], threshold) for n, s in sets.items()}}  # fmt: skip
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"PRUNE_BELOW chosen on {', '.join(TRAINING_SETS)}: {threshold} ({embedder.model_id})")
    for name, r in report["sets"].items():
        mark = " (threshold chosen here)" if name in TRAINING_SETS else ""
        print(f"{name}{mark}: pruned {r['pruned']} of {r['model_pairs']} model pairs; evidence "
              f"recall {r['evidence_recall']:.4f}; conflict F1 {r['conflict_f1'][0]:.3f} -> "
              f"{r['conflict_f1'][1]:.3f}; macro-F1 {r['macro_f1'][0]:.3f} -> "
              f"{r['macro_f1'][1]:.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
