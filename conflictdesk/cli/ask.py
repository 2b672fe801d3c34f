"""`conflictdesk ask`: a question answered with its conflicts found, typed, resolved and cited."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from conflictdesk.app import AskRequest, Desk, ray_batch
from conflictdesk.app.wire import ASK_TIERS
from conflictdesk.cli import common
from conflictdesk.errors import ConflictDeskError, InputError, UsageError
from conflictdesk.terminal import safe
from conflictdesk.types import ConflictType, Document, Passage

EXAMPLES = """examples:
  conflictdesk ask "What is the recommended daily dose of lumivex?" --collection examples
  conflictdesk ask "When did the harbour ferry start?" -c examples --json
  conflictdesk ask questions.jsonl --collection examples > answers.jsonl
  echo '{"id": "q1", "query": "Who won?", "documents": ["A won.", "B won."]}' | conflictdesk ask -
  conflictdesk ask "Is fasting good for diabetics?" -c examples --llm model.gguf --strategy pipeline

Batch input (`-` or a .jsonl file): one JSON object per line, {"id", "query", "documents"?,
"conflict_type"?}. With "documents" (strings or {"text", "title", "date", "source", "url"})
the passages are those documents and their ids are indices into the list; without, the
passages are retrieved from --collection and their ids are stored passage ids.
"conflict_type" is the gold type, used by --strategy oracle. Output: one JSON object per line
{"id", "stance", "conflict_type", "type_confidence", "type_uncertain", "kappa", "leading",
"evidence", "clusters", "pairs", "answer", "conflict", "method"} (type_uncertain: the type
model's probability is below its threshold, a reviewer should look; leading: a wh-question's
short answer {"text", "kind", "passages", "by"}, by "recency" when the newest source's answer leads
because older ones are outdated, else "votes", or null); a bad line gives {"id", "error"} and a message on stderr, the batch
goes on and the exit status is 1. Every answer is stored as a run (kind "ask").

Strategies: extractive (no LLM: the most query-relevant sentence of each evidence cluster,
ordered by the conflict type's resolution rule); with --llm: vanilla, pipeline (default),
taxonomy-aware, oracle (needs the gold type: --gold-type or "conflict_type")."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "ask",
        help="answer a question with conflicts explained and every sentence cited",
        description=(
            "Retrieve, tag, cluster, score, detect and type conflicts, resolve them by type and "
            "answer with sentence-level citations (ConRAG, ConflictRAG, CONFLICTS)."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "question",
        help='the question (a question, a claim, keywords such as "Orla Arena seating '
        'capacity" or a request such as "Tell me who ...": the output says how it was read), '
        'or "-" / FILE.jsonl for a batch',
    )
    parser.add_argument("--collection", "-c", help="collection to retrieve from")
    parser.add_argument("-k", type=int, default=20, help="passages to retrieve (default 20)")
    parser.add_argument(
        "--strategy",
        choices=("extractive", "vanilla", "pipeline", "taxonomy-aware", "oracle"),
        help="answer strategy (default: pipeline with --llm, else extractive)",
    )
    parser.add_argument(
        "--gold-type",
        choices=[t.value for t in ConflictType],
        help="the gold conflict type, for --strategy oracle",
    )
    parser.add_argument(
        "--ranker",
        choices=("rules", "model"),
        default="rules",
        help="who picks the leading answer: the support-vote rules (default) or the trained "
        "answer ranker (models/reader; opt-in: higher lead-answer recall on the development "
        "sets, see docs/dev_report.md)",
    )
    parser.add_argument(
        "--reader",
        choices=("rules", "model"),
        default="rules",
        help="who reads each passage's answer span: the span nearest the question's words "
        "(default) or the trained span reader (models/reader; opt-in: higher lead-answer "
        "recall on QACC dev and the RAMDocs EVAL half, lower conflict F1 on RAMDocs)",
    )
    parser.add_argument(
        "--verdict",
        choices=("pairs", "type", "model"),
        default="pairs",
        help="who calls conflict / no conflict: the type classifier or a passage pair the "
        "detector flags as conflicting (default, ConflictRAG's definition: higher conflict F1 "
        "than the type alone on every development set), the type classifier alone, or the "
        "verdict model (opt-in: docs/verdict_report.md)",
    )
    parser.add_argument(
        "--tiers",
        choices=ASK_TIERS,
        default="fast",
        help="NLI tiers that tag passages and judge pairs: the MiniLM (default; a yes/no or "
        "declarative question's statement is still read by the labelling cascade) or the "
        "labelling cascade with the MPNet tier everywhere (opt-in: no better on ask's "
        "development sets and about 2.5x slower; docs/model_report.md)",
    )
    parser.add_argument(
        "--no-parametric",
        action="store_true",
        help="skip the closed-book vs open-book comparison (LLM only)",
    )
    common.add_model_arguments(parser)
    common.add_db_argument(parser)
    common.add_json_argument(parser)
    common.add_ray_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.k < 1:
        raise UsageError("-k must be at least 1")
    if is_batch(args.question):
        return run_batch(args)
    if getattr(args, "ray", None) is not None:
        raise UsageError("--ray runs batches: pass - or a .jsonl file of questions")
    if not args.question.strip():
        raise UsageError("the question is empty")
    if not args.collection:
        raise UsageError("--collection is required for a single question (or pass a .jsonl batch)")
    gold = ConflictType(args.gold_type) if args.gold_type else None
    request = request_for(args, args.question, gold, echo_id=False)  # the record gets the run id
    with common.open_desk(args) as desk:
        record, text = answer_request(desk, request)
    if args.json:
        common.write_json(record)
    else:
        print(safe(text))
    return common.EXIT_OK


def request_for(
    args: argparse.Namespace,
    query: str,
    gold: ConflictType | None,
    *,
    documents: tuple[Passage, ...] | None = None,
    request_id: Any = None,
    echo_id: bool = True,
) -> AskRequest:
    """The flags' retrieval and answer options around one question."""
    return AskRequest(
        query=query,
        collection=None if documents is not None else args.collection,
        documents=documents,
        k=args.k,
        strategy=args.strategy,
        gold_type=gold,
        check_parametric=not getattr(args, "no_parametric", False),
        ranker=getattr(args, "ranker", "rules"),
        reader=getattr(args, "reader", "rules"),
        verdict=getattr(args, "verdict", "pairs"),
        tiers=getattr(args, "tiers", "fast"),
        id=request_id,
        echo_id=echo_id,
    )


def is_batch(question: str) -> bool:
    """`-` or an existing .jsonl file is a batch; a missing .jsonl path is a usage error."""
    if question == "-":
        return True
    if question.endswith(".jsonl"):
        if not Path(question).is_file():
            raise UsageError(f"no such file: {question}")
        return True
    return False


def run_batch(args: argparse.Namespace) -> int:
    failures = 0
    with common.open_desk(args) as desk:
        ray = common.ray_options_from_args(args)
        for line, outcome in _on_ray(args, desk, ray) if ray else _plain(args, desk):
            if isinstance(outcome, ConflictDeskError):
                failures += 1
                common.warn(f"line {line.lineno} (id {line.id!r}): {outcome}")
                common.write_json({"id": line.id, "error": str(outcome)})
                continue
            common.write_json(outcome)
    return common.EXIT_PARTIAL if failures else common.EXIT_OK


def _plain(args: argparse.Namespace, desk: Desk) -> Iterator[tuple[common.JsonLine, Any]]:
    """Each line's record, or the error that stopped it."""
    for line in common.read_jsonl(args.question):
        try:
            yield line, answer_request(desk, parse_request(line, args))[0]
        except ConflictDeskError as exc:
            yield line, exc


def _on_ray(args: argparse.Namespace, desk: Desk, options: Any) -> Iterator[tuple[Any, Any]]:
    """Lines are validated (and retrieved) here, answered by Ray actors, in input order."""
    batch = ray_batch(desk, options)
    queued: list[tuple[common.JsonLine, ConflictDeskError | None]] = []
    for line in common.read_jsonl(args.question):
        try:
            batch.ask(parse_request(line, args))
            queued.append((line, None))
        except ConflictDeskError as exc:
            queued.append((line, exc))
    results = batch.results()
    try:
        for line, refused in queued:
            outcome = refused if refused is not None else next(results)
            yield line, outcome if isinstance(outcome, ConflictDeskError) else outcome.record
    finally:
        results.close()


def parse_request(line: common.JsonLine, args: argparse.Namespace) -> AskRequest:
    """Validate one batch line into an AskRequest; InputError says what is wrong."""
    if line.error or line.value is None:
        raise InputError(line.error or "unreadable line")
    value = line.value
    query = value.get("query")
    if not isinstance(query, str) or not query.strip():
        raise InputError('"query" must be a non-empty string')
    gold = _gold_type(value.get("conflict_type"), args)
    documents = value.get("documents")
    if documents is None:
        if not args.collection:
            raise InputError('no "documents" and no --collection to retrieve from')
        return request_for(args, query, gold, request_id=line.id)
    if not isinstance(documents, list) or not documents:
        raise InputError('"documents" must be a non-empty list')
    return request_for(args, query, gold, documents=inline_passages(documents), request_id=line.id)


def _gold_type(value: Any, args: argparse.Namespace) -> ConflictType | None:
    if value is None:
        return ConflictType(args.gold_type) if args.gold_type else None
    try:
        return ConflictType(value)
    except ValueError:
        known = ", ".join(t.value for t in ConflictType)
        raise InputError(f'"conflict_type" {value!r} is not one of: {known}') from None


def inline_passages(documents: Sequence[Any]) -> tuple[Passage, ...]:
    """Inline documents as passages whose ids are their indices in the list."""
    passages = []
    for index, raw in enumerate(documents):
        try:
            doc = Document.from_json(raw)
        except InputError as exc:
            raise InputError(f"document {index}: {exc}") from None
        passages.append(
            Passage(
                id=index,
                text=doc.text,
                document_id=index,
                title=doc.title,
                date=doc.date,
                source=doc.source,
                url=doc.url,
            )
        )
    return tuple(passages)


def answer_request(desk: Desk, request: AskRequest) -> tuple[dict[str, Any], str]:
    """Ask through the Desk; returns the batch record and the readable report."""
    outcome = desk.ask(request)
    return outcome.record, outcome.render()
