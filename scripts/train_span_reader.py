"""Train the span reader (models/reader/span_reader.json) on QACC train and the RAMDocs TRAIN
half, and compare it with the rule on the held-out questions (QACC dev, RAMDocs EVAL half,
typed_dev).

Prints the grouped cross-validation on the training choices and, per held-out set, the
per-passage accuracy, lead and candidate recall of the rule and of the reader. Writes the
weights and their manifest entry unless --no-write.

examples:
  .venv/bin/python scripts/train_span_reader.py             # fit, compare, write
  .venv/bin/python scripts/train_span_reader.py --no-write  # figures only
  .venv/bin/python scripts/train_span_reader.py --json      # the figures as JSON
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--data", type=Path, default=None, help="data folder (CONFLICTDESK_DATA)")
    parser.add_argument("--models", type=Path, default=None, help="models folder to write")
    parser.add_argument("--l2", type=float, default=None, help="L2 penalty (default: the module's)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-write", dest="write", action="store_false")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*truncated to.*")
    from conflictdesk.app import load_settings
    from conflictdesk.backends.manifest import models_dir
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config
    from conflictdesk.training import span_reader as sr

    data = args.data or load_settings().data_dir
    if data is None:
        parser.error("no data folder: pass --data or set CONFLICTDESK_DATA")
    embedder = load_backends(load_config(threads=args.threads), roles=("embedder",)).embedder
    l2 = sr.L2 if args.l2 is None else args.l2
    train = read_all(sr, sr.training_cases(data), embedder, "training")
    rows = sr.build_rows(train)
    figures = {"cv": sr.grouped_cv(rows, l2=l2)}
    reader = sr.fit(rows, l2)
    for name, cases in sr.held_out_cases(data).items():
        figures[name] = sr.compare(read_all(sr, cases, embedder, name), reader)
    print(json.dumps(figures, indent=1) if args.json else report(figures))
    if args.write:
        print(f"wrote {sr.write_reader(reader, args.models or models_dir(), summary(figures))}")
    return 0


def read_all(sr, cases, embedder, name: str) -> list:
    out = []
    for n, case in enumerate(cases, 1):
        out.append(sr.read_case(case, embedder))
        if n % 50 == 0 or n == len(cases):
            sys.stderr.write(f"\r  {name}: read {n}/{len(cases)}")
    sys.stderr.write("\n")
    return out


def report(figures: dict) -> str:
    cv = figures["cv"]
    lines = [
        (f"training CV ({cv['choices']} passage choices): reader {cv['reader_accuracy']:.3f}"
         f"  rule {cv['rule_accuracy']:.3f}"),
        (f"{'held-out set':20s} {'reader':8s} {'questions':>9s} {'passage acc':>11s} "
         f"{'lead':>6s} {'cands':>6s}"),
    ]  # fmt: skip
    for name, by_reader in figures.items():
        if name == "cv":
            continue
        for who, f in by_reader.items():
            accuracy = f["passage_accuracy"]  # NaN: the set has no per-passage gold
            shown = "–" if math.isnan(accuracy) else f"{accuracy:.3f}"
            lines.append(f"{name:20s} {who:8s} {f['questions']:9d} {shown:>11s} "
                         f"{f['lead']:6.3f} {f['candidates']:6.3f}")  # fmt: skip
    return "\n".join(lines)


def summary(figures: dict) -> dict:
    """The manifest's figures: CV and each held-out set's lead for reader and rule."""
    out = {k: round(v, 4) for k, v in figures["cv"].items()}
    for name, by_reader in figures.items():
        if name != "cv":
            for who, f in by_reader.items():
                out[f"{name} lead ({who})"] = round(f["lead"], 4)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
