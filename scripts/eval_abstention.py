"""Accuracy against coverage and uncertain verdicts on the held-out development sets (RAMDocs
EVAL half, QACC dev), for the encoder alone and the fusion labeller.

examples:
  .venv/bin/python scripts/train_fusion.py --no-write   # fills the NLI score cache first
  .venv/bin/python scripts/eval_abstention.py
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence

from conflictdesk.evaluation.abstention import abstention_report, render_abstention
from conflictdesk.evaluation.script_args import cached_sets_parser
from conflictdesk.training.fusion import TRAINING_SETS, load_sets


def main(argv: Sequence[str] | None = None) -> int:
    parser = cached_sets_parser(__doc__)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*truncated to.*")
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config

    fusion = load_backends(load_config(threads=args.threads), roles=("nli",)).fusion
    sets = load_sets(args.work, args.threads)
    report = abstention_report(sets, fusion, TRAINING_SETS)
    print(json.dumps(report, indent=1) if args.json else render_abstention(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
