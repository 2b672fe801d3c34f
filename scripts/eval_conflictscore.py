"""Evaluate ConflictScore's conflict detection and claim × document labelling (Table 2 style).

Cases, ConflictBench-style:
- RAMDocs (../shared/data/ramdocs/dev.jsonl): the claim "The answer to the question Q is A."
  for the most frequent answer A of the question's `correct` documents (the first gold answer
  when it has none); `correct` documents giving A SUPPORT, `misinfo` documents CONTRADICT,
  `noise` documents are IRRELEVANT, and `correct` documents giving another answer are left out
  of the case (neither input nor scored). Reported on the EVAL half of the question-hash split
  (`conflictdesk.training.claims.ramdocs_half`; the NLI model trains on the other half only)
  and, labelled as such, on all questions.
- QACC (../shared/data/qacc/dev.jsonl; the model trains on train.jsonl only): the claim for
  the first answer; contexts listed for it SUPPORT, contexts listed only for another answer
  CONTRADICT, contexts listed for no answer are IRRELEVANT.
A case is a conflict when it has at least one SUPPORTS and one CONTRADICTS document.

Baselines (answer-string match), two of them:
- "baseline" (claim only: the inputs `detect` itself gets): SUPPORTS when the document
  contains the claim's answer, else CONTRADICTS. It gives the figures the issue quotes for
  RAMDocs (macro-F1 about 0.50).
- "oracle baseline" (knows the question's other candidate answers, which `detect` never sees:
  gold, wrong and document answers; forms that contain or are contained in A count as A):
  SUPPORTS when the document contains A, CONTRADICTS when it contains another candidate,
  else IRRELEVANT. An upper reference, not a competitor: RAMDocs misinformation documents
  carry their wrong answer verbatim, so it scores 0.98 there.

examples:
  .venv/bin/python scripts/eval_conflictscore.py --threads 2
  .venv/bin/python scripts/eval_conflictscore.py --dataset qacc --limit 50 --json
  .venv/bin/python scripts/eval_conflictscore.py --calibrate   # two-stage threshold, train data
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from conflictdesk.evaluation.conflictscore import DetectionEval, calibrate, print_report, run_eval
from conflictdesk.scoring.label import DEFAULT_LABELLER, LABELLERS


def print_calibration(result: dict) -> None:
    print(f"{result['model']}: target settled accuracy {result['target']}; "
          f"chosen threshold {result['threshold']}")  # fmt: skip
    for name in ("train cases", "snli/dev"):
        part = result[name]
        print(f"{name}: {part['pairs']} pairs, threshold {part['threshold']}")
        for point in part["curve"]:
            print("  t={threshold:.2f} settled={settled:.3f} settled_acc={settled_accuracy:.4f}"
                  " routed_acc={routed_accuracy:.4f}".format(**point))  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dataset", choices=("ramdocs", "qacc", "all"), default="all")
    parser.add_argument("--limit", type=int, default=None, help="first N cases per dataset")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--labeller", choices=LABELLERS, default=DEFAULT_LABELLER,
                        help=f"default: {DEFAULT_LABELLER}, as `detect`")  # fmt: skip
    parser.add_argument("--llm", type=Path, default=None, help="GGUF model for llm/two-stage")
    parser.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    parser.add_argument("--no-gate", dest="gate", action="store_false",
                        help="no relevance gate: the model labels every pair")  # fmt: skip
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="cpu")
    parser.add_argument("--verdict", choices=("rule", "model"), default="rule",
                        help="question-level conflict decision: the paper's rule (D+ and D- "
                        "both non-empty) or the verdict model (models/verdict)")  # fmt: skip
    parser.add_argument("--calibrate", action="store_true",
                        help="measure the two-stage threshold on training data instead")  # fmt: skip
    args = parser.parse_args(argv)
    options = DetectionEval(args.dataset, args.limit, args.labeller, args.llm, args.threads,
                            args.gate, args.device, args.verdict)  # fmt: skip
    result = calibrate(options) if args.calibrate else run_eval(options)
    if args.json:
        print(json.dumps(result, indent=1))
    elif args.calibrate:
        print_calibration(result)
    else:
        print_report(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
