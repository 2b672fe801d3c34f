"""`conflictdesk regenerate`: conflict feedback (ConflictScore §6) on a GGUF model."""

from __future__ import annotations

import argparse
from typing import Any

from conflictdesk.app import Desk, StoredResult
from conflictdesk.cli.score import (
    add_batch_arguments,
    add_decomposer_argument,
    options_from_args,
    require_documents,
    require_text,
    run_batch,
)

EXAMPLES = """examples:
  conflictdesk regenerate answers.jsonl --llm model.gguf > revised.jsonl
  echo '{"id": "q1", "question": "What is the population of Broken Bow?",
         "response": "Broken Bow has 10,000 people.",
         "documents": ["In 2010 Broken Bow had 3,559 residents.",
                       "Broken Bow had 10,000 people in 2010."]}' \\
    | conflictdesk regenerate - --llm model.gguf

input, one JSON object per line:
  {"id", "question", "response", "documents": [string | {"text", "title"?, ...}]}
output, one line per input line (the id echoed):
  {"id", "regenerated": true | false, "selected_claim", "supporting", "contradicting",
   "revised_response", "before": {"cs_c", "cs_r", "claims"}, "after": {...} | null, "method",
   "cached": {"hits", "total"}}
  a bad line gives {"id", "error"} and a message on stderr; the batch goes on; exit status 1.

The response is scored; the claim with the most conflict (highest |D-|/(|D+|+|D-|) among
claims both supported and contradicted) and its supporting and contradicting documents are
fed back with the paper's Table 13 prompt, and the revised answer is scored again. A response
without such a claim is not regenerated ("regenerated": false). Needs an LLM: --llm PATH.gguf
or --llm-url URL (or CONFLICTDESK_LLM_PATH / CONFLICTDESK_LLM_URL); "supporting" and
"contradicting" are 0-based document indices."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "regenerate",
        help="revise answers with ConflictScore's conflict feedback (needs an LLM)",
        description="Feed the most conflicted claim of each answer and its evidence back to "
        "the LLM (Table 13 prompt); report the revised answer with before/after scores.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_batch_arguments(parser)
    add_decomposer_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    options = options_from_args(args)

    def handle(desk: Desk, value: dict[str, Any], run_id: Any) -> StoredResult:
        return desk.regenerate(
            require_text(value, "question"), require_text(value, "response"),
            require_documents(value), options, run_input=value, run_id=run_id,
        )  # fmt: skip

    # refuse before reading any input: regenerate needs a GGUF
    return run_batch(args, handle, check=lambda desk: desk.scoring_backends("regenerate", options))
