"""Measure the local model runtimes: cross-encoder pairs/s beside an LLM-per-pair labeller,
embedder sentences/s, and llama.cpp figures (tokens/s, label scoring vs JSON, prefix reuse).

examples:
  .venv/bin/python scripts/bench_models.py --threads 2 --repeats 3
  .venv/bin/python scripts/bench_models.py --gguf ~/models/qwen2.5-1.5b-q4_k_m.gguf --json
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from conflictdesk.app import load_settings, verified_backends
from conflictdesk.benchmarks.llm import llama_rates
from conflictdesk.benchmarks.models import embedder_rate, models_benchmark
from conflictdesk.cpu import machine
from conflictdesk.training.artefacts import smollm2_gguf


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--gguf", type=Path, default=None, help="default: the SmolLM2 fixture")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    settings = load_settings(threads=args.threads, device="cpu")
    backends = verified_backends(settings, ("nli", "embedder"))
    results = {"machine": machine(), **models_benchmark(backends, args.threads, args.repeats),
               "embedder": embedder_rate(backends, args.repeats)}  # fmt: skip
    gguf = args.gguf or smollm2_gguf()
    if gguf is not None:
        results["llama"] = llama_rates(Path(gguf), args.threads, args.repeats)
    print(json.dumps(results, indent=None if args.json else 1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
