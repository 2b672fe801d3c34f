"""Time `detect` per claim with each labeller: answer-form claims of the RAMDocs EVAL half
against their own documents (conflictdesk.benchmarks.scoring.detect_benchmark), cold (no
judgment cached), medians over --repeats; the fusion labeller reads every pair twice (the
document against the claim as written and as its question and answer), the encoder once.

examples:
  .venv/bin/python scripts/bench_detect.py --threads 2
  .venv/bin/python scripts/bench_detect.py --claims 10 --repeats 1 --json
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

from conflictdesk.backends.registry import load_backends
from conflictdesk.benchmarks.scoring import detect_benchmark
from conflictdesk.config import load_config
from conflictdesk.cpu import machine
from conflictdesk.scoring.label import DEFAULT_LABELLER
from conflictdesk.training.nli_data import data_root


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--data", type=Path, default=None, help="data folder (CONFLICTDESK_DATA)")
    parser.add_argument("--claims", type=int, default=30, help="RAMDocs EVAL-half claims")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args(argv)
    if args.claims < 1 or args.repeats < 1:
        parser.error("--claims and --repeats must be at least 1")
    warnings.filterwarnings("ignore", message=".*truncated to.*")
    backends = load_backends(load_config(threads=args.threads), roles=("nli",))
    labellers = tuple(dict.fromkeys(("nli", DEFAULT_LABELLER)))
    data = args.data or data_root()
    result = detect_benchmark(data, backends, labellers, args.claims, args.repeats)
    result |= {"nli": backends.nli.model_id, "threads": args.threads, "machine": machine()}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"detect, {result['claims']} answer-form claims ({result['pairs']} pairs), "
          f"{args.threads} threads, median of {args.repeats}; nli: {result['nli']}")  # fmt: skip
    for labeller, row in result["labellers"].items():
        print(f"  {labeller:<8} {row['ms_per_claim']:>8.1f} ms/claim  "
              f"(CPU {row['cpu_ms_per_claim']:.1f} ms)  x{row['vs_first']:.2f}")  # fmt: skip
    print(f"machine: {result['machine']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
