"""Does a candidate models folder pass the shipping rule against the shipped one?

Measures both folders the same way (conflictdesk.evaluation.ship_rule): the default run of
`eval_conflictscore.py` on RAMDocs and QACC dev with CONFLICTDESK_MODELS pointing at the
folder, and both labelling tiers on every NLI development set (`cascade_rules`, --nli-limit
rows per set), then prints one line per figure and the verdict. Figures are cached under
--work by the hash of the folder's manifest and of the package's code, so the shipped side is
measured once per code state, and a rerun after a crash resumes. Exit status 0 when the candidate ships, 1 when it does not.

A candidate folder is a copy of models/ with the new model exported into it, e.g.:

    cp -a models /work/cand && CONFLICTDESK_MODELS=/work/cand CONFLICTDESK_DATA=../shared/data \\
      .venv/bin/python scripts/train_nli_mpnet.py --stage export --weights best.pt \\
      --out /work/cand/nli_mpnet
    CONFLICTDESK_DATA=../shared/data .venv/bin/python scripts/ship_check.py --candidate /work/cand
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from conflictdesk.evaluation.ship_rule import checks, measure, table, verdict


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--candidate", type=Path, required=True, help="candidate models folder")
    parser.add_argument("--shipped", type=Path, default=Path("models"))
    parser.add_argument("--work", type=Path, default=Path(".train/ship_check"))
    parser.add_argument("--nli-limit", type=int, default=500, help="rows per NLI set")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")
    args = parser.parse_args(argv)
    if args.candidate.resolve() == args.shipped.resolve():
        parser.error("--candidate is the shipped folder")
    sides = [measure(folder, args.work, args.nli_limit, args.seed, args.threads)
             for folder in (args.shipped, args.candidate)]  # fmt: skip
    results = checks(*sides)
    if args.json:
        print(json.dumps({"checks": [c.to_json() for c in results], "verdict": verdict(results)}))
    else:
        print(table(results))
    return 0 if all(c.passes for c in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
