"""What the tagger's relevance gates (topicality, subject) set aside, against gold relations.

Reads every passage of the RAMDocs questions and of QACC train (as `ask`'s tagger reads them,
with the embedded encoder's similarity to the question) and counts, for each topicality ratio
and for the subject gate, the share of passages that answer the question (gold SUPPORTS or
CONTRADICTS) and of IRRELEVANT ones that the gate sets aside (conflictdesk.evaluation.gates).

examples:
  .venv/bin/python scripts/eval_gates.py
  .venv/bin/python scripts/eval_gates.py --sets ramdocs --json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

SETS = {"ramdocs": ("ramdocs", ""), "qacc_train": ("qacc", "train"), "qacc_dev": ("qacc", "dev")}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument(
        "--sets", nargs="+", choices=sorted(SETS), default=["ramdocs", "qacc_train"]
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config
    from conflictdesk.evaluation.cases import load_cases
    from conflictdesk.evaluation.gates import gate_figures, read_case, render_gates
    from conflictdesk.training.nli_data import data_root

    embedder = load_backends(load_config(threads=args.threads), roles=("embedder",)).embedder
    report = {}
    for name in args.sets:
        dataset, split = SETS[name]
        cases = load_cases(dataset, split, data_root())
        print(f"reading {name} ({len(cases)} questions) ...", file=sys.stderr, flush=True)
        report[name] = gate_figures([row for case in cases for row in read_case(case, embedder)])
    print(json.dumps(report, indent=1) if args.json else render_gates(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
