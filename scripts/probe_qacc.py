"""Can the embedded models tell QACC's contradicting contexts from its irrelevant ones?

A diagnostic, not a product path. On QACC a context CONTRADICTS the claim "The answer to the
question Q is A" when annotators listed it for another answer B, and is IRRELEVANT when they
listed it for none (`conflictdesk/evaluation/cases.py`). The code is
`conflictdesk/evaluation/qacc_probe.py`. Conflict detection needs the first kind
found among the second. This script measures, on QACC train (the NLI model trained on it, so
optimistic) and QACC dev (held out), and on the RAMDocs EVAL half for contrast:

1. Separability: the ROC AUC, gold CONTRADICTS against gold IRRELEVANT pairs (ungated), of
   each score the claim-level labeller has: P(contradiction), 1 − P(neutral), and the
   overlap of the context's most question-relevant sentence with the question.
2. Answer-aware rules that turn an IRRELEVANT judgment into CONTRADICTS, each a plain reading
   of "the context answers Q with something else" (the context never contains A):
   - own-answer: the context's own answer to Q (`analysis.claims.passage_answer`, the kind
     the question asks for) is some B ≠ A, and the model SUPPORTS "The answer to the
     question Q is B" against it;
   - corroborated(n, top): a span of A's kind (date, number, entity) in the context's `top`
     most question-relevant sentences, ≠ A, that at least n of the case's contexts hold in
     theirs (a second answer is repeated; noise is not).
   Conflict detection (P, R, F1) for each, beside the model's own labels, the claim-only
   string-match baseline and always-conflict.

examples:
  .venv/bin/python scripts/probe_qacc.py --threads 2
  .venv/bin/python scripts/probe_qacc.py --limit 100 --json
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from conflictdesk.config import load_settings
from conflictdesk.evaluation.qacc_probe import probe_report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--limit", type=int, default=None, help="first N cases per slice")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = probe_report(load_settings(threads=args.threads, device="cpu"), args.limit)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_report(report)
    return 0


def print_report(report: dict[str, Any]) -> None:
    print(f"model: {report['model']}")
    for part in report["slices"]:
        print(f"\n{part['slice']}: {part['cases']} cases, {part['conflicts']} with conflict")
        print(f"  AUC, CONTRADICTS vs IRRELEVANT pairs: {part['separability_auc']}")
        for label, m in part["detection"].items():
            print(f"  {label:<28} P={m['precision']:.3f} R={m['recall']:.3f} F1={m['f1']:.3f}")


if __name__ == "__main__":
    raise SystemExit(main())
