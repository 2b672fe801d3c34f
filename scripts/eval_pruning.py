"""Measure pair pruning: choose PRUNE_BELOW on the training cases, report what it prunes and
what it costs on the held-out development sets (encoder alone, cached scores).

examples:
  .venv/bin/python scripts/train_fusion.py --no-write   # fills the NLI score cache first
  .venv/bin/python scripts/eval_pruning.py
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence

from conflictdesk.evaluation.pruning import pruning_report, render_pruning
from conflictdesk.evaluation.script_args import cached_sets_parser
from conflictdesk.training.fusion import load_sets


def main(argv: Sequence[str] | None = None) -> int:
    parser = cached_sets_parser(__doc__)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*truncated to.*")
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config

    embedder = load_backends(load_config(threads=args.threads), roles=("embedder",)).embedder
    report = pruning_report(args.work, load_sets(args.work, args.threads), embedder)
    print(json.dumps(report, indent=1) if args.json else render_pruning(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
