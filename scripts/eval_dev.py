"""Every development set with its trivial baselines, in one report (docs/dev_report.md).

Runs, in order, the evaluations that each print a set beside its baselines:
- claim × document conflict detection on RAMDocs (held-out half) and QACC dev, the shipped
  labeller beside claim-only string match, the oracle string match and always-conflict
  (scripts/eval_conflictscore.py);
- the fusion labeller beside the encoder alone and the string matches (scripts/train_fusion.py);
- accuracy against coverage and uncertain verdicts (scripts/eval_abstention.py);
- the CONFLICTS type on typed_dev, cross-validated by case, beside the majority class and the
  rule classifier (scripts/train_type_classifier.py --eval-only);
- whether the analysis changes with the wording of a question, on the written cases under
  three wordings each (scripts/eval_wording.py);
- the stage-1 pair detector on held-out ConflictQA, PERSPECTRUM, RAMDocs and QACC pairs beside
  always-conflict and NLI alone (scripts/train_pair_detector.py --report-only);
- what the tagger's relevance gates set aside, against gold relations (scripts/eval_gates.py);
- with --nli-sets, the NLI dev sets (scripts/eval_models.py; slow).
Each step's output goes into the report as printed; a failing step is reported, the rest run.
With --only, the named scripts' sections are run again and replace theirs in the report that
--out names; the other sections stay as they were.

examples:
  .venv/bin/python scripts/eval_dev.py
  .venv/bin/python scripts/eval_dev.py --nli-sets --out docs/dev_report.md
  .venv/bin/python scripts/eval_dev.py --only eval_ask.py   # one section, the rest kept
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from conflictdesk.evaluation.dev_report import NLI_STEP, STEPS, dev_report, refresh_sections


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=Path("docs/dev_report.md"))
    parser.add_argument("--nli-sets", action="store_true", help="also the NLI dev sets (slow)")
    parser.add_argument("--scripts", type=Path, default=Path("scripts"),
                        help="folder of the evaluation scripts (default: ./scripts)")  # fmt: skip
    parser.add_argument("--only", nargs="+", metavar="SCRIPT",
                        help="run only these steps' scripts (e.g. eval_ask.py) and replace "
                        "their sections in --out, keeping the others")  # fmt: skip
    args = parser.parse_args(argv)
    steps = [*STEPS, NLI_STEP] if args.nli_sets else list(STEPS)
    announce = lambda name: print(f"running {name} ...", file=sys.stderr, flush=True)
    if args.only:
        known = {argv[0] for _, argv in [*STEPS, NLI_STEP]}
        unknown = sorted(set(args.only) - known)
        if unknown:
            parser.error(f"no step runs {', '.join(unknown)}; steps: {', '.join(sorted(known))}")
        if not args.out.is_file():
            parser.error(f"--only replaces sections of an existing report; {args.out} is none")
        steps = [step for step in [*STEPS, NLI_STEP] if step[1][0] in args.only]
        old = args.out.read_text(encoding="utf-8")
        text, failed = refresh_sections(old, args.scripts, steps, announce)
    else:
        text, failed = dev_report(args.scripts, steps, announce)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({len(steps)} sections, {failed} failed)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
