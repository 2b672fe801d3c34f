"""Every development set with its trivial baselines, in one report (docs/dev_report.md).

Runs, in order, the evaluations that each print a set beside its baselines:
- claim × document conflict detection on RAMDocs (held-out half) and QACC dev, the shipped
  labeller beside claim-only string match, the oracle string match and always-conflict
  (scripts/eval_conflictscore.py);
- the fusion labeller beside the encoder alone and the string matches (scripts/train_fusion.py);
- accuracy against coverage and uncertain verdicts (scripts/eval_abstention.py);
- the CONFLICTS type on typed_dev, cross-validated by case, beside the majority class and the
  rule classifier (scripts/train_type_classifier.py --eval-only);
- the stage-1 pair detector on held-out ConflictQA, PERSPECTRUM, RAMDocs and QACC pairs beside
  always-conflict and NLI alone (scripts/train_pair_detector.py --report-only);
- with --nli-sets, the NLI dev sets (scripts/eval_models.py; slow).
Each step's output goes into the report as printed; a failing step is reported, the rest run.

examples:
  .venv/bin/python scripts/eval_dev.py
  .venv/bin/python scripts/eval_dev.py --nli-sets --out docs/dev_report.md
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
STEPS: tuple[tuple[str, list[str]], ...] = (
    ("Conflict detection (ConflictScore, shipped labeller)", ["eval_conflictscore.py"]),
    ("Fusion labeller", ["train_fusion.py", "--no-write"]),
    ("Abstention", ["eval_abstention.py"]),
    ("CONFLICTS type (typed_dev, CV by case)", ["train_type_classifier.py", "--eval-only"]),
    ("Stage-1 pair detector", ["train_pair_detector.py", "--report-only"]),
)
NLI_STEP = ("NLI dev sets and relations", ["eval_models.py"])


def run_step(title: str, argv: list[str]) -> str:
    """One evaluation as a Markdown section: its command, its output and how long it took."""
    command = [sys.executable, str(SCRIPTS / argv[0]), *argv[1:]]
    print(f"running {argv[0]} ...", file=sys.stderr, flush=True)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    status = "" if done.returncode == 0 else f" — FAILED (exit {done.returncode})"
    body = done.stdout.strip() or done.stderr.strip()[-3000:]
    shown = " ".join(["scripts/" + argv[0], *argv[1:]])
    return (
        f"## {title}{status}\n\n`.venv/bin/python {shown}` ({seconds:.0f} s)\n\n```\n{body}\n```\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=Path("docs/dev_report.md"))
    parser.add_argument("--nli-sets", action="store_true", help="also the NLI dev sets (slow)")
    args = parser.parse_args(argv)
    steps = [*STEPS, NLI_STEP] if args.nli_sets else list(STEPS)
    sections = [run_step(title, step) for title, step in steps]
    header = (
        "# Development report\n\nWritten by `.venv/bin/python scripts/eval_dev.py`. Development "
        "figures only: kept-back sets are measured independently.\n\n"
    )
    args.out.write_text(header + "\n".join(sections), encoding="utf-8")
    failed = sum("— FAILED" in s.splitlines()[0] for s in sections)
    print(f"wrote {args.out} ({len(sections)} sections, {failed} failed)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
