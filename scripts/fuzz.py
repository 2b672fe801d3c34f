"""Fuzz every file reader and every batch command in-process; report any traceback.

Readers get generated and mutated files (bit flips, truncation, splices of escape sequences,
BOMs, NULs, deep nesting, other encodings, random bytes) through `read_data`; the only
allowed outcomes are documents or one InputError. Batch commands (`detect`, `score`, `ask`)
get generated and mutated JSON Lines (invalid UTF-8, wrong types, lone surrogates, deep
nesting, huge numbers) through `conflictdesk.cli.main` on the real shipped models, in chunks;
each non-blank line must give exactly one JSON record and the exit status must be 0 or 1.
A chunk that raises is bisected down to the line that did it. The code is
conflictdesk/evaluation/fuzz.py.

    .venv/bin/python scripts/fuzz.py --inputs 10000 --seed 1
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from conflictdesk.evaluation.fuzz import SEEDS, run_campaign


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=10_000, help="inputs per target")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--readers", nargs="*", default=sorted(SEEDS), help="suffixes to fuzz")
    parser.add_argument("--commands", nargs="*", default=["detect", "score", "ask"])
    parser.add_argument("--chunk", type=int, default=500, help="batch lines per CLI call")
    parser.add_argument("--limit-s", type=float, default=10.0, help="time limit per file")
    parser.add_argument("--report", type=Path, help="write the full report (JSON) here")
    args = parser.parse_args(argv)
    report = run_campaign(inputs=args.inputs, seed=args.seed, readers=args.readers,
                          commands=args.commands, chunk=args.chunk, limit_s=args.limit_s,
                          on_target=print_target)  # fmt: skip
    if args.report:
        args.report.write_text(json.dumps(report, indent=1))
    crashes = sum(len(s["crashes"]) for s in report.values())
    for name, stats in report.items():
        for crash in stats["crashes"][:3]:
            print(f"  {name}: {crash['error']}", file=sys.stderr)
    print(f"total: {sum(s['inputs'] for s in report.values())} inputs, {crashes} tracebacks")
    return 1 if crashes else 0


def print_target(name: str, stats: dict) -> None:
    print(f"{name:<14} {stats['inputs']:>6} inputs  {len(stats['crashes']):>3} tracebacks  "
          f"{stats['seconds']:>7.1f} s", flush=True)  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
