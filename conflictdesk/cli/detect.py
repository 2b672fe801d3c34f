"""`conflictdesk detect`: ConflictBench's conflict detection for claims, in JSON Lines."""

from __future__ import annotations

import argparse
from typing import Any

from conflictdesk.app import Desk, StoredResult, answer_claim_of
from conflictdesk.cli import common
from conflictdesk.cli.score import (
    add_batch_arguments,
    options_from_args,
    require_documents,
    require_text,
    run_batch,
)
from conflictdesk.errors import InputError

EXAMPLES = """examples:
  conflictdesk detect claims.jsonl > relations.jsonl
  echo '{"id": 1, "claim": "Broken Bow had 3,559 people in 2010.",
         "documents": ["In 2010 Broken Bow had 3,559 residents.",
                       "Broken Bow had 10,000 people in 2010.", "Nebraska is a state."]}' \\
    | conflictdesk detect -
  conflictdesk detect claims.jsonl --llm model.gguf --labeller two-stage

input, one JSON object per line:
  {"id", "claim", "documents": [string | {"text", "title"?, "date"?, "source"?, "url"?}]}
  or, for a question's answer, {"id", "question", "answer", "documents"}: the claim is then
  "The answer to the question Q? is A.", the form the default labeller (fusion) reads with
  its answer-aware features; other claims are labelled by the NLI encoder alone
output, one line per input line (the id echoed):
  {"id", "relations": ["SUPPORTS" | "CONTRADICTS" | "IRRELEVANT", ...one per document],
   "confidences": [...], "uncertain": [true | false, ...], "conflict": true | false,
   "verdict": "conflict" | "no_conflict" | "uncertain", "method", "cached": {"hits", "total"}}
  (a judgment is uncertain below confidence 0.72; the verdict is uncertain when the confident
  judgments do not settle it: a reviewer should look)
  a bad line gives {"id", "error"} and a message on stderr; the batch goes on; exit status 1.

A claim is in conflict when at least one document supports it and at least one contradicts it.
A document that supports any part of a multi-part claim counts as supporting (the paper's
partial-support rule). A document that shares no content word with the claim is IRRELEVANT
without a model call (--no-gate turns this off; "method" says how many). Judgments are cached in the database: a repeated run says so in
"cached"."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "detect",
        help="is a claim both supported and contradicted by its documents?",
        description="Label a claim against each document (SUPPORTS / CONTRADICTS / IRRELEVANT) "
        "and report whether its evidence conflicts (ConflictBench's task).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_batch_arguments(parser)
    parser.add_argument(
        "--verdict",
        choices=("rule", "model"),
        default="rule",
        help="the question-level decision: the paper's rule (default; a document supports and "
        "another contradicts) or the verdict model over the judgments' probabilities (opt-in; "
        'docs/verdict_report.md), reported in a "decision" object',
    )
    common.add_ray_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    options = options_from_args(args)

    def handle(desk: Desk, value: dict[str, Any], run_id: Any) -> StoredResult:
        return desk.detect(claim_of(value), require_documents(value), options,
                           run_input=value, run_id=run_id)  # fmt: skip

    return run_batch(args, handle)


def claim_of(value: dict[str, Any]) -> str:
    """The line's "claim", or the answer-form claim of its "question" and "answer"."""
    if "claim" in value or not ("question" in value and "answer" in value):
        try:
            return require_text(value, "claim")
        except InputError as error:
            raise InputError(f'{error} (or give "question" and "answer")') from None
    return answer_claim_of(require_text(value, "question"), require_text(value, "answer"))
