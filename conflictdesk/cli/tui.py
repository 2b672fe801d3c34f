"""`conflictdesk tui [--db PATH]`: the terminal app (also what `conflictdesk` alone opens)."""

from __future__ import annotations

import argparse

from conflictdesk.cli import common

EXAMPLES = """examples:
  conflictdesk                      (the app on the default database)
  conflictdesk tui --db work.db
  conflictdesk tui --llm ~/models/qwen2.5-1.5b-instruct-q4_k_m.gguf

Keys: F1 Collections, F2 Ask, F3 Score, F4 History, F5 Models, Ctrl+P command palette,
Ctrl+T light/dark theme, Ctrl+Q quit. Each screen lists its own keys in the footer."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tui",
        help="open the terminal app (the default when no command is given)",
        description="Review conflicting evidence interactively: collections, ask, score, "
        "history and models.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-k", type=int, default=20, help="passages to retrieve per question")
    common.add_model_arguments(parser)
    common.add_db_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from conflictdesk.tui.app import ConflictDeskApp
    from conflictdesk.tui.engine import DeskEngine

    engine = DeskEngine(common.open_desk(args), k=args.k)
    try:
        ConflictDeskApp(engine=engine).run()
    finally:
        engine.close()
    return common.EXIT_OK
