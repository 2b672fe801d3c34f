"""Time claim × document labelling: every pair, the lexical gate (the default), and gate +
bi-encoder pruning with and without stored sentence vectors, for 10 claims against 10, 50
and 200 RAMDocs documents (conflictdesk.benchmarks.scoring).

examples:
  .venv/bin/python scripts/bench_pruning.py --data ../shared/data --threads 2
  .venv/bin/python scripts/bench_pruning.py --sizes 10 50 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

from conflictdesk.app import load_settings, verified_backends
from conflictdesk.benchmarks.scoring import scoring_benchmark


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 200])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--data", type=Path, default=None, help="data folder (CONFLICTDESK_DATA)")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*truncated to.*")
    settings = load_settings(threads=args.threads, data_dir=args.data, device="cpu")
    if settings.data_dir is None:
        parser.error("no data folder: pass --data DIR or set CONFLICTDESK_DATA")
    backends = verified_backends(settings, ("nli", "embedder"))
    rows = scoring_benchmark(settings.data_dir, backends, args.sizes, args.repeats)
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
