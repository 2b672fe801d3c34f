"""Latency of `ask` through Desk.ask on collections of 10k and 100k passages: real text
(QACC, RAMDocs, TruthfulQA) embedded by the shipped embedder, padded with synthetic passages
(conflictdesk.benchmarks.ask).

examples:
  CONFLICTDESK_DATA=../shared/data .venv/bin/python scripts/bench_ask.py --queries 20
  .venv/bin/python scripts/bench_ask.py --data ../shared/data --real 300 --sizes 2000
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from conflictdesk.app import Desk, load_settings, verified_backends
from conflictdesk.app.wire import ASK_TIERS
from conflictdesk.benchmarks.ask import ask_benchmark


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--real", type=int, default=2_000, help="real passages in each size")
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2, help="CPU threads per model")
    parser.add_argument("--data", type=Path, default=None, help="data folder (CONFLICTDESK_DATA)")
    parser.add_argument("--tiers", choices=ASK_TIERS, default="fast",
                        help="NLI tiers of ask's analysis (as `ask --tiers`)")  # fmt: skip
    args = parser.parse_args(argv)
    settings = load_settings(threads=args.threads, device="cpu", data_dir=args.data)
    if settings.data_dir is None:
        parser.error("no data folder: pass --data DIR or set CONFLICTDESK_DATA")

    def embedded_models(roles: Sequence[str]):  # the embedded models alone, no GGUF
        return verified_backends(settings, [role for role in roles if role != "llm"])

    with tempfile.TemporaryDirectory() as tmp:
        fresh = replace(settings, db_path=Path(tmp) / "ask.db")
        with Desk(fresh, load_backends=embedded_models) as desk:
            rows = ask_benchmark(desk, settings.data_dir, real=args.real, sizes=args.sizes,
                                 queries=args.queries, tiers=args.tiers)  # fmt: skip
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
