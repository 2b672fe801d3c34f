"""Fit the question-level verdict models (models/verdict) for `detect` and `ask` and report
them beside the paper's rule, today's `ask` call and the trivial baselines.

Fitted on QACC train and the RAMDocs TRAIN half only (L2 and threshold by 5-fold
cross-validation grouped by question); reported on the RAMDocs EVAL half and QACC dev as well.
`detect` rows come from the fusion labeller's cached NLI scores (--fusion-work); `ask` rows
from one `analyze` per question, appended to --ask-rows (resumable; --collect fills it).

examples:
  nice -n 10 .venv/bin/python scripts/train_verdict.py --collect --no-write
  .venv/bin/python scripts/train_verdict.py          # fit, report, write models/verdict
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

from conflictdesk.training.verdict_report import (
    ask_rivals,
    ask_rows,
    choose_ask_variant,
    collect_ask_rows,
    detect_rivals,
    detect_rows,
    fit_use,
    render,
    report,
    write_models,
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--fusion-work", type=Path, default=Path(".train/fusion"))
    parser.add_argument("--ask-rows", type=Path, default=Path(".train/verdict/ask_rows.jsonl"))
    parser.add_argument("--collect", action="store_true", help="run `ask` for missing rows")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--models", type=Path, default=None, help="models folder to write")
    parser.add_argument("--no-write", dest="write", action="store_false")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*truncated to.*")
    if args.collect:
        collect(args)
    (source, answers), variants = choose_ask_variant(args.ask_rows)
    print(f"ask evidence by out-of-fold score on the training sets: {variants}")
    parts, models = [], {}
    for use, rows, rivals in (
        ("detect", detect_rows(args.fusion_work, args.threads), detect_rivals()),
        ("ask", ask_rows(args.ask_rows, answers, source), ask_rivals(args.ask_rows)),
    ):
        models[use], choices = fit_use(rows, use, source if use == "ask" else "claim")
        parts.append(report(use, rows, models[use], choices, rivals))
    if args.write:
        from conflictdesk.backends.manifest import models_dir

        defaults = {part["use"]: part["wins"] for part in parts}
        print("wrote", write_models(models, args.models or models_dir(), defaults))
    print(json.dumps(parts, indent=1, default=float) if args.json else render(parts))
    return 0


def collect(args: argparse.Namespace) -> None:
    from conflictdesk.app import load_settings
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config

    backends = load_backends(load_config(threads=args.threads))
    collect_ask_rows(args.ask_rows, load_settings().data_dir, backends)


if __name__ == "__main__":
    raise SystemExit(main())
