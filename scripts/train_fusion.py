"""Train the fusion labeller (models/fusion) and report it beside the encoder alone and the
answer-string baselines.

Training pairs: RAMDocs TRAIN half + QACC train (conflictdesk.training.fusion). Reported:
RAMDocs EVAL half and QACC dev, never trained on. NLI scores are cached in --work, so a killed
run resumes where it stopped.

examples:
  .venv/bin/python scripts/train_fusion.py                 # extract, fit, report, write models/fusion
  .venv/bin/python scripts/train_fusion.py --no-write --json
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from conflictdesk.training.fusion import fusion_report, train_fusion


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--work", type=Path, default=Path(".train/fusion"), help="cache folder")
    parser.add_argument("--models", type=Path, default=None, help="models folder to write")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--l2", type=float, default=1e-4, help="L2 penalty of the regression")
    parser.add_argument("--no-write", dest="write", action="store_false",
                        help="report only; leave models/ unchanged")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--markdown",
        type=Path,
        default=None,
        help="also write the report as a Markdown page (docs/fusion_report.md)",
    )
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*truncated to.*")
    model, sets = train_fusion(args.work, threads=args.threads, l2=args.l2,
                               models_dir=args.models, write=args.write)  # fmt: skip
    report = fusion_report(model, sets)
    if args.json:
        print(json.dumps(report, indent=1, default=float))
    else:
        print_report(report)
    if args.markdown:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            print_report(report)
        args.markdown.write_text(MARKDOWN.format(table=buffer.getvalue().rstrip()), "utf-8")
    return 0


MARKDOWN = """# Fusion labeller: development report

Written by `.venv/bin/python scripts/train_fusion.py --markdown docs/fusion_report.md`.
Trained on the RAMDocs TRAIN half and QACC train; RAMDocs EVAL half and QACC dev are held out.
`nli_alone` is the encoder's argmax on the whole document (windowed); the two string matches
are the trivial baselines (the oracle one also knows the question's other answers: a ceiling).
Decision: fusion is NOT the default labeller (it loses conflict F1 on both held-out sets);
`--labeller fusion` selects it.

```
{table}
```
"""


def print_report(report: dict) -> None:
    print(f"fusion model: {report['model']} (temperature {report['temperature']:.2f})")
    for name, rows in report["sets"].items():
        print(f"\n{name}: {rows['cases']} cases, {rows['conflicts']} conflicts, "
              f"{rows['pairs']} pairs")  # fmt: skip
        print(f"  {'labeller':<26}{'conflict F1':>12}{'P':>8}{'R':>8}{'rel macro-F1':>14}"
              f"{'pair acc':>10}")  # fmt: skip
        for label, m in rows["labellers"].items():
            d, r = m["detection"], m["relations"]
            print(f"  {label:<26}{d['f1']:>12.3f}{d['precision']:>8.3f}{d['recall']:>8.3f}"
                  f"{r['macro_f1']:>14.3f}{r['pair_accuracy']:>10.3f}")  # fmt: skip
    coverage = report.get("coverage")
    if coverage:
        print("\naccuracy against coverage (pairs with calibrated confidence >= t):")
        for point in coverage:
            print("  t={threshold:.2f} coverage={coverage:.3f} accuracy={accuracy:.3f}".format(
                **point))  # fmt: skip


if __name__ == "__main__":
    np.seterr(over="ignore")
    raise SystemExit(main())
