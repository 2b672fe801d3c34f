"""Run every performance benchmark and print one JSON summary (conflictdesk.benchmarks).

examples:
  nice -n 10 .venv/bin/python scripts/bench.py --data ../shared/data --out bench.json
  .venv/bin/python scripts/bench.py --quick --parts search cli
  nice -n 10 .venv/bin/python scripts/bench.py --parts search --search-also 1000000
  .venv/bin/python scripts/bench.py --table-from bench.json --readme README.md
  .venv/bin/python scripts/bench.py --parts models --torch-checkpoint .train/nli_cont2/best.pt
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

from conflictdesk.benchmarks.suite import PARTS, SuiteOptions, run_suite
from conflictdesk.benchmarks.table import figures_table, replace_table


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="small sizes (the smoke test's)")
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", type=Path, default=None, help="data folder (CONFLICTDESK_DATA)")
    parser.add_argument("--ask-real", type=int, default=2_000, help="real passages for ask")
    parser.add_argument(
        "--search-also",
        type=int,
        nargs="*",
        default=[],
        metavar="N",
        help="more search sizes, e.g. 1000000 (100k took 41 s to build on 2 cores)",
    )
    parser.add_argument("--torch-checkpoint", type=Path, default=None,
                        help="the NLI's fp32 scripts/train_nli.py best.pt (PyTorch ratio)")  # fmt: skip
    parser.add_argument("--out", type=Path, help="also write the JSON summary here")
    parser.add_argument("--table-from", type=Path, help="write the table from this JSON, no run")
    parser.add_argument("--readme", type=Path, help="replace the figures table in this file")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*truncated to.*")
    if args.table_from:
        summary = json.loads(args.table_from.read_text("utf-8"))
    else:
        options = SuiteOptions(quick=args.quick, threads=args.threads, repeats=args.repeats,
                               parts=tuple(args.parts), data_dir=args.data,
                               ask_real=args.ask_real,
                               search_also=tuple(args.search_also),
                               torch_checkpoint=args.torch_checkpoint)  # fmt: skip
        summary = run_suite(options)
        text = json.dumps(summary, indent=1)
        print(text)
        if args.out:
            args.out.write_text(text + "\n", "utf-8")
    if args.readme:
        args.readme.write_text(replace_table(args.readme.read_text("utf-8"),
                                             figures_table(summary)), "utf-8")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
