"""Accuracy against coverage and uncertain verdicts on the held-out development sets (RAMDocs
EVAL half, QACC dev), for the encoder alone and the fusion labeller.

examples:
  .venv/bin/python scripts/train_fusion.py --no-write   # fills the NLI score cache first
  .venv/bin/python scripts/eval_abstention.py
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

from conflictdesk.evaluation.abstention import coverage, verdicts
from conflictdesk.training.fusion import TRAINING_SETS, load_sets, nli_alone


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

    fusion = load_backends(load_config(threads=args.threads), roles=("nli",)).fusion
    report = {}
    for name, case_set in load_sets(args.work, args.threads).items():
        if name in TRAINING_SETS:
            continue
        labellers = {"nli": nli_alone(case_set.x)}
        if fusion is not None:
            labellers["fusion"] = fusion.probabilities(case_set.x)
        report[name] = {label: {"coverage": coverage(p, case_set), **verdicts(p, case_set)}
                        for label, p in labellers.items()}  # fmt: skip
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    for name, labellers in report.items():
        for label, r in labellers.items():
            s = r["settled"]
            print(f"{name} / {label}: verdict uncertain on {r['uncertain_share']:.0%} of the "
                  f"cases; on the {s['cases']} settled ones conflict F1 {s['f1']:.3f}")  # fmt: skip
            for point in r["coverage"]:
                print("  t={threshold:.2f} coverage={coverage:.3f} accuracy={accuracy:.3f}".format(
                    **point))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
