"""Whether `ask`'s reading of a question changes with its wording: the written training cases
(conflictdesk/training/data/typed_written) as written and under two other wordings each
(paraphrases.jsonl), documents inline; question form, CONFLICTS type and answer agreement across
a case's wordings, and accuracy as written against reworded (conflictdesk.evaluation.wording_eval).

examples:
  .venv/bin/python scripts/eval_wording.py
  .venv/bin/python scripts/eval_wording.py --limit 40 --json > wording.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from conflictdesk.backends.registry import load_backends
from conflictdesk.config import load_config
from conflictdesk.evaluation.wording_eval import read_wordings, render, wording_figures
from conflictdesk.training.type_authors import gold_answers, rewordings, written_cases


def progress(done: int, total: int) -> None:
    if done % 10 == 0 or done == total:
        sys.stderr.write(f"\rcases: {done}/{total}" + ("\n" if done == total else ""))
        sys.stderr.flush()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--limit", type=int, default=None, help="first N written cases")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args(argv)
    cases = written_cases()[: args.limit]
    backends = load_backends(load_config(), roles=("embedder", "nli", "pair"))
    readings = read_wordings(cases, rewordings(), gold_answers(), backends, progress=progress)
    figures = wording_figures(readings)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(render(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
