"""Accuracy of the labelling cascade's rules and bands on every NLI development set, beside the
MiniLM alone: the evidence for the rule stored with the MPNet tier (nli_mpnet_export.CASCADE_RULE).

Both tiers label every row once; their probabilities are kept in --cache, so a rerun prints the
table again without the models (delete the file after changing a model).

examples:
  .venv/bin/python scripts/eval_cascade_rules.py --limit 500
  .venv/bin/python scripts/eval_cascade_rules.py --limit 500 --json
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

from conflictdesk.training.cascade_rules import rule_table, tier_probabilities


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--fast", default="models/nli", help="the first tier's folder")
    parser.add_argument("--accurate", default="models/nli_mpnet", help="the second tier's folder")
    parser.add_argument("--limit", type=int, default=500, help="rows per set (0 = all)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=None,
                        help="tiers' probabilities (default .train/cascade_rules/limitN.json)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*truncated to.*")
    cache = args.cache or Path(".train/cascade_rules") / f"limit{args.limit}.json"
    store = tier_probabilities(cache, args.fast, args.accurate, args.limit, args.seed, args.threads)
    table = rule_table(store)
    if args.json:
        print(json.dumps(table, indent=1))
        return 0
    columns = list(table["mean"])
    print("set".ljust(32) + "".join(c.rjust(14) for c in columns))
    for split, row in table["rows"].items():
        print(split[:32].ljust(32) + "".join(f"{row[c]:14.3f}" for c in columns))
    for name in ("mean", "worst_vs_fast"):
        print(name.ljust(32) + "".join(f"{table[name][c]:14.3f}" for c in columns))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
