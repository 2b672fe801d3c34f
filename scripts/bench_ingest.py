"""Ingest throughput and peak memory (conflictdesk.benchmarks.ingest): passages/s on
~150-word passages, peak MB on a folder of many files and on one big file, each in its own
child process.

examples:
  .venv/bin/python scripts/bench_ingest.py --threads 2
  .venv/bin/python scripts/bench_ingest.py --quick
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path

from conflictdesk.benchmarks.ingest import ingest_benchmark


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--threads", type=int, default=2, help="embedder threads")
    parser.add_argument("--quick", action="store_true", help="20/30 files and a 2 MB file")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        result = ingest_benchmark(Path(tmp), quick=args.quick, threads=args.threads)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
