"""`conflictdesk score`: ConflictScore (CS-C, CS-R) of responses against their documents, in
JSON Lines; also the batch plumbing shared by `detect` and `regenerate`."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from typing import Any

from conflictdesk.app import (
    DEFAULT_LABELLER,
    LABELLERS,
    SALIENT_K,
    TWO_STAGE_THRESHOLD,
    VARIANTS,
    Desk,
    ScoringOptions,
    StoredResult,
    ray_batch,
)
from conflictdesk.cli import common
from conflictdesk.errors import InputError, ModelOutputError
from conflictdesk.types import Document

EXAMPLES = """examples:
  conflictdesk score responses.jsonl > scores.jsonl
  echo '{"id": "q1", "response": "Broken Bow had 3,559 people in 2010. It lies in Nebraska.",
         "documents": ["In 2010 Broken Bow had 3,559 residents.",
                       {"text": "Broken Bow had 10,000 people in 2010.", "source": "blog"}]}' \\
    | conflictdesk score -
  conflictdesk score responses.jsonl --variant whole-response
  conflictdesk score responses.jsonl --llm model.gguf --labeller two-stage

input, one JSON object per line:
  {"id", "response", "documents": [string | {"text", "title"?, "date"?, "source"?, "url"?}]}
output, one line per input line (the id echoed):
  {"id", "claims": [{"text", "relations", "confidences", "uncertain", "conflict", "verdict", "ratio"}], "cs_c", "cs_r",
   "method", "cached": {"hits", "total"}}
  a bad line gives {"id", "error"} and a message on stderr; the batch goes on; exit status 1.

CS-C is the fraction of claims both supported and contradicted by some documents; CS-R the
mean of |D-|/(|D+|+|D-|) over claims with evidence (a claim with neither has "ratio": null and
is left out). Lower is better. Pairs whose claim and document share no content word are
IRRELEVANT without a model call (--no-gate turns this off; "method" says how many). Claims come from the GGUF model (the paper's Table 6 prompt)
when one is configured, else from the sentence/clause splitter; "method" says which."""


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    """The input file, labeller, cache, database and model flags of the scoring commands."""
    parser.add_argument(
        "input",
        nargs="?",
        default="-",
        help="JSON Lines file, or - for standard input (the default)",
    )
    parser.add_argument(
        "--labeller",
        choices=LABELLERS,
        default=DEFAULT_LABELLER,
        help="fusion (default): for claims in the answer form 'The answer to the question Q "
        "is A.', the encoder fused with answer-aware reading features, other claims as nli; "
        "nli: the embedded NLI cross-encoder alone; llm: the paper's "
        "Table 7 prompt on the GGUF model; two-stage: the encoder, and the "
        "LLM for pairs it is unsure of",
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=TWO_STAGE_THRESHOLD,
        help=f"two-stage: encoder confidence below which a pair goes to the LLM "
        f"(default {TWO_STAGE_THRESHOLD})",
    )
    parser.add_argument(
        "--no-gate",
        dest="gate",
        action="store_false",
        help="ask the model about every claim x document pair, even pairs that share no "
        "content word (by default those are IRRELEVANT without a model call)",
    )
    parser.add_argument(
        "--prune",
        action="store_true",
        help="experimental: skip the cross-encoder for pairs whose best sentence the embedder "
        "finds far from the claim (IRRELEVANT). At the threshold that loses no F1 it prunes few "
        "pairs and is slower than without (docs/model_report.md, 'Pair pruning')",
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="neither read nor write stored judgments"
    )
    common.add_db_argument(parser)
    common.add_model_arguments(parser)


def add_decomposer_argument(parser: argparse.ArgumentParser) -> None:
    """--decomposer, shared by `score` and `regenerate`."""
    parser.add_argument(
        "--decomposer",
        choices=("auto", "llm", "splitter"),
        default="auto",
        help="auto: the LLM when configured, else the splitter (default)",
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="ConflictScore (CS-C, CS-R) of responses against their documents",
        description="Decompose each response into claims, label every claim against every "
        "document (SUPPORTS / CONTRADICTS / IRRELEVANT) and report CS-C and CS-R.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_batch_arguments(parser)
    common.add_ray_arguments(parser)
    add_decomposer_argument(parser)
    parser.add_argument(
        "--variant",
        choices=VARIANTS,
        default="full",
        help="full (default); whole-response: no decomposition; salient: only "
        "the --salient-k most salient claims; all-documents: one LLM call "
        "per claim for all documents",
    )
    parser.add_argument(
        "--salient-k",
        type=int,
        default=SALIENT_K,
        help=f"claims kept by --variant salient (default {SALIENT_K})",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    options = options_from_args(args)

    def handle(desk: Desk, value: dict[str, Any], run_id: Any) -> StoredResult:
        return desk.score(require_text(value, "response"), require_documents(value), options,
                          run_input=value, run_id=run_id)  # fmt: skip

    return run_batch(args, handle)


def options_from_args(args: argparse.Namespace) -> ScoringOptions:
    """The scoring flags of `score`, `detect` and `regenerate` (absent ones keep defaults)."""
    defaults = ScoringOptions()
    return ScoringOptions(
        labeller=args.labeller, threshold=args.threshold, gate=args.gate,
        decomposer=getattr(args, "decomposer", defaults.decomposer),
        variant=getattr(args, "variant", defaults.variant),
        salient_k=getattr(args, "salient_k", defaults.salient_k),
        use_cache=not args.no_cache, prune=args.prune,
        verdict=getattr(args, "verdict", defaults.verdict),
    )  # fmt: skip


def require_text(value: dict[str, Any], field: str) -> str:
    text = value.get(field)
    if not isinstance(text, str) or not text.strip():
        raise InputError(f'missing or empty "{field}" (a non-empty string)')
    return text


def require_documents(value: dict[str, Any]) -> list[Document]:
    documents = value.get("documents")
    if not isinstance(documents, list) or not documents:
        raise InputError('missing or empty "documents" (a list of strings or objects)')
    return [Document.from_json(d) for d in documents]


Handler = Callable[[Desk, dict[str, Any], Any], StoredResult]


def run_batch(
    args: argparse.Namespace, handle: Handler, check: Callable[[Desk], Any] | None = None
) -> int:
    """Apply `handle` to each input line through the Desk, which stores each result as a run;
    `check(desk)` runs first (a command that cannot work refuses before reading input).
    With `--ray` the lines are queued on a RayBatch and run by Ray actors, with the same output.

    A bad line (invalid JSON, missing fields, a model answer that fails validation) gives an
    error object on stdout and a message on stderr; the batch goes on and the exit status is 1."""
    failures = 0
    with common.open_desk(args) as desk:
        if check is not None:
            check(desk)
        ray = common.ray_options_from_args(args)
        outcomes = _on_ray(args, desk, handle, ray) if ray else _plain(args, desk, handle)
        for line, outcome in outcomes:
            if isinstance(outcome, (InputError, ModelOutputError)):
                failures += 1
                common.write_json({"id": line.id, "error": str(outcome)})
                common.warn(f"{args.input}: line {line.lineno} (id {line.id}): {outcome}")
            elif isinstance(outcome, BaseException):
                raise outcome
            else:
                common.write_json(outcome.output)
    return common.EXIT_PARTIAL if failures else common.EXIT_OK


Outcome = Any  # a StoredResult, or the InputError / ModelOutputError of its line


def _attempt(line: common.JsonLine, handle: Handler, desk: Any) -> Outcome:
    try:
        if line.value is None:
            raise InputError(line.error or "unreadable line")
        return handle(desk, line.value, line.id)
    except (InputError, ModelOutputError) as exc:
        return exc


def _plain(args: argparse.Namespace, desk: Desk, handle: Handler) -> Iterator[tuple[Any, Outcome]]:
    for line in common.read_jsonl(args.input):
        yield line, _attempt(line, handle, desk)


def _on_ray(args: argparse.Namespace, desk: Desk, handle: Handler,
            options: Any) -> Iterator[tuple[Any, Outcome]]:  # fmt: skip
    """Lines are validated and queued here; the actors' results come back in input order."""
    batch = ray_batch(desk, options)
    queued = [(line, _attempt(line, handle, batch)) for line in common.read_jsonl(args.input)]
    results = batch.results()
    try:
        for line, refused in queued:
            yield line, refused if refused is not None else next(results)
    finally:
        results.close()  # stops a local cluster now, not whenever the generator is collected
