"""Measure the MPNet tier (ONNX int8): pairs/s at 128 and 256 word pieces beside the MiniLM
model, and the cascade's effective rate on held-out NLI rows at several bands.

examples:
  .venv/bin/python scripts/bench_mpnet.py --model /work/ckpt/mpnet_untrained_onnx --threads 2
  .venv/bin/python scripts/bench_mpnet.py --model models/nli_mpnet --bands 0.8 0.9 --json
The un-fine-tuned export for speed figures: scripts/train_nli_mpnet.py --stage untrained.
Escalation shares depend only on the MiniLM's confidences, so they hold for any MPNet."""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path

from conflictdesk.app import load_settings, verified_backends
from conflictdesk.backends.onnx_nli import OnnxCrossEncoder
from conflictdesk.benchmarks.mpnet_tier import cascade_rates, length_rates, rate
from conflictdesk.training import nli_data


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--model", type=Path, default=Path("models/nli_mpnet"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--lengths", type=int, nargs="+", default=[128, 256])
    parser.add_argument("--count", type=int, default=16, help="pairs per length")
    parser.add_argument("--rows", type=int, default=200, help="held-out rows for the cascade")
    parser.add_argument("--bands", type=float, nargs="+", default=[0.8, 0.9, 0.95])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    settings = load_settings(threads=args.threads, device="cpu", nli_band=0.0)
    fast = verified_backends(settings, ("nli",)).nli  # the MiniLM alone (band 0)
    accurate = OnnxCrossEncoder(args.model, device="cpu", threads=args.threads)
    rows = nli_data.read_split(nli_data.HELDOUT_SPLITS[0])
    rows = random.Random(0).sample(rows, min(args.rows, len(rows)))
    pairs = [(r.premise, r.hypothesis) for r in rows]
    results = {
        "model": str(args.model), "threads": args.threads,
        "lengths": length_rates(fast, accurate, args.lengths, args.count, args.repeats),
        "minilm_alone_on_rows": rate(fast, pairs, 1),
        "cascade": cascade_rates(fast, accurate, pairs, args.bands),
    }  # fmt: skip
    print(json.dumps(results, indent=None if args.json else 1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
