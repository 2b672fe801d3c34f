"""Train the answer ranker (models/reader/answer_ranker.json) on QACC train and the RAMDocs
TRAIN half, and report its grouped cross-validation beside today's rule.

The candidate rows are cached in --work (rows.npz), so a second run only refits.

examples:
  .venv/bin/python scripts/train_answer_ranker.py            # build rows, CV, fit, write
  .venv/bin/python scripts/train_answer_ranker.py --no-write  # CV only
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from conflictdesk.training.answer_ranker import (
    L2,
    MARGIN,
    Rows,
    build_rows,
    fit,
    grouped_cv,
    training_cases,
    write_ranker,
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--work", type=Path, default=Path(".train/answer_ranker"))
    parser.add_argument("--data", type=Path, default=None, help="data folder (CONFLICTDESK_DATA)")
    parser.add_argument("--models", type=Path, default=None, help="models folder to write")
    parser.add_argument("--l2", type=float, default=L2)
    parser.add_argument("--margin", type=float, default=MARGIN, help="rule-lead margin")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-write", dest="write", action="store_false")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*truncated to.*")
    from conflictdesk.app import load_settings
    from conflictdesk.backends.manifest import models_dir
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config

    rows_path = args.work / "rows.npz"
    if rows_path.exists():
        rows = Rows.load(rows_path)
    else:
        data = args.data or load_settings().data_dir
        if data is None:
            parser.error("no data folder: pass --data or set CONFLICTDESK_DATA")
        backends = load_backends(load_config(threads=args.threads))
        rows = build_rows(
            training_cases(data), backends, lambda n, t: sys.stderr.write(f"\r{n}/{t}")
        )
        args.work.mkdir(parents=True, exist_ok=True)
        rows.save(rows_path)
    cv = grouped_cv(rows, l2=args.l2, margin=args.margin)
    print(json.dumps(cv, indent=1))
    if args.write:
        model_id = write_ranker(fit(rows, args.l2, args.margin), args.models or models_dir(), cv)
        print(f"wrote {model_id}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
