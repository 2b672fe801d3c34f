"""`conflictdesk demo`: ingest the example collection and answer its questions."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from conflictdesk.cli import ask as ask_cli
from conflictdesk.cli import common
from conflictdesk.errors import ConflictDeskError, UsageError
from conflictdesk.terminal import safe
from conflictdesk.types import ConflictType

COLLECTION = "examples"
EXAMPLES = """examples:
  conflictdesk demo
  conflictdesk demo --db /tmp/demo.db --json
  conflictdesk demo --llm model.gguf --strategy taxonomy-aware

Ingests examples/docs into the collection "examples" (documents already there are skipped),
then runs `ask` on every question of examples/questions.jsonl, prints each report and ends
with a table of the expected against the detected conflict type. Exit status 0 when every
question ran (a type mismatch is a finding, not a failure), 1 when a question failed."""


def default_examples_dir() -> Path:
    """The example collection shipped with the package (`conflictdesk.examples`)."""
    from conflictdesk.app import shipped_examples

    return shipped_examples()


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="ingest examples/ and answer its questions, one per conflict type",
        description="The main job on the shipped examples: ingest, ask, compare the types.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--examples",
        type=Path,
        default=None,
        metavar="DIR",
        help="folder with docs/ and questions.jsonl (default: examples/)",
    )
    parser.add_argument("-k", type=int, default=20, help="passages to retrieve (default 20)")
    parser.add_argument(
        "--strategy",
        choices=("extractive", "vanilla", "pipeline", "taxonomy-aware", "oracle"),
        help="answer strategy (default: pipeline with --llm, else extractive); oracle uses "
        "each question's expected type",
    )
    common.add_model_arguments(parser)
    common.add_db_argument(parser)
    common.add_json_argument(parser)
    parser.set_defaults(func=run, no_parametric=False, collection=COLLECTION, gold_type=None)


def load_questions(path: Path) -> list[dict[str, Any]]:
    """The demo questions: {"id", "query", "expected_type"} per line."""
    if not path.is_file():
        raise UsageError(f"no questions file at {path}")
    questions = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}:{lineno}: invalid JSON: {exc.msg}") from None
        if not isinstance(item, dict) or not isinstance(item.get("query"), str):
            raise UsageError(f'{path}:{lineno}: each line needs a "query" string')
        questions.append(item)
    return questions


def run(args: argparse.Namespace) -> int:
    folder = args.examples or default_examples_dir()
    docs = folder / "docs"
    if not docs.is_dir():
        raise UsageError(f"no example documents at {docs}")
    questions = load_questions(folder / "questions.jsonl")
    rows, failures = [], 0
    with common.open_desk(args) as desk:
        report = desk.ingest([docs], COLLECTION)
        if not args.json:
            print(
                f"collection {COLLECTION!r}: {report.documents_added} documents added, "
                f"{report.documents_skipped} already there\n"
            )
        for item in questions:
            expected = item.get("expected_type")
            gold = ConflictType(expected) if expected else None
            request = ask_cli.request_for(args, item["query"], gold, request_id=item.get("id"))
            try:
                record, text = ask_cli.answer_request(desk, request)
            except ConflictDeskError as exc:
                failures += 1
                common.warn(f"question {item.get('id')!r}: {exc}")
                rows.append((item.get("id"), expected, "error"))
                continue
            rows.append((item.get("id"), expected, record["conflict_type"]))
            if args.json:
                common.write_json({**record, "expected_type": expected})
            else:
                print(safe(text), end="\n\n" + "=" * 100 + "\n\n")
    if not args.json:
        print(safe(type_table(rows)))
    return common.EXIT_PARTIAL if failures else common.EXIT_OK


def type_table(rows: list[tuple[Any, str | None, str]]) -> str:
    """Expected against detected conflict type, one line per question, and the match count."""
    width = max([len(str(r[0])) for r in rows] + [8])
    lines = [f"{'question':<{width}}  {'expected':<22}{'detected':<22}match"]
    for qid, expected, detected in rows:
        mark = "yes" if expected == detected else "no"
        lines.append(f"{qid!s:<{width}}  {expected!s:<22}{detected:<22}{mark}")
    matched = sum(1 for _, e, d in rows if e == d)
    lines.append(f"{matched}/{len(rows)} conflict types as expected")
    return "\n".join(lines)
