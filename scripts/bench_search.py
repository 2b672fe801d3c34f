"""Search latency of the store's hybrid search at 10k and 100k synthetic passages
(conflictdesk.benchmarks.search: FTS5 BM25 + dense top-k + RRF + passage fetch, random
vectors, so not the embedder). The first query of a freshly opened store is reported apart.

examples:
  .venv/bin/python scripts/bench_search.py
  .venv/bin/python scripts/bench_search.py --sizes 100000 --keep /tmp/bench   # build once, reuse
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("-k", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep and reuse databases here")
    args = parser.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    from conflictdesk.benchmarks.search import time_search

    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        rows = [time_search(folder / f"bench-{n}.db", n, args.queries, args.k) for n in args.sizes]
    print(json.dumps({"bench": "search", "threads": args.threads, "results": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
