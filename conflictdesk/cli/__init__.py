"""The `conflictdesk` command: one argparse parser, one module per subcommand.

Each module in COMMANDS exposes `register(subparsers)`, which adds its parser and sets
`func(args) -> int` as the handler. The CLI is the composition root: it is the one place
that wires the store and the TUI to the engine."""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from conflictdesk import __version__
from conflictdesk.errors import ConflictDeskError, UsageError
from conflictdesk.terminal import safe_line

COMMANDS: tuple[str, ...] = (
    "ingest",
    "search",
    "collections",
    "models",
    "detect",
    "score",
    "regenerate",
    "ask",
    "demo",
    "doctor",
    "tui",
)

EPILOG = """examples:
  conflictdesk ingest examples/docs --collection examples
  conflictdesk search "vitamin D dose" --collection examples -k 5
  conflictdesk ask "What is the recommended dose?" --collection examples
  conflictdesk models verify
  conflictdesk              (no arguments) opens the terminal app
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # usage errors exit 2 with one line
        self.print_usage(sys.stderr)
        sys.stderr.write(f"conflictdesk: error: {safe_line(message)}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="conflictdesk",
        description="Find, explain and resolve conflicts between documents, fully offline.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"conflictdesk {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"conflictdesk.cli.{name}").register(subparsers)
    return parser


@contextmanager
def prefixed_warnings() -> Iterator[None]:
    """Python warnings (e.g. an NLI input truncated) as one `conflictdesk: warning:` line each,
    never a raw `file.py:31: UserWarning` with a source line."""

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        sys.stderr.write(f"conflictdesk: warning: {safe_line(message)}\n")

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv and "tui" in COMMANDS:
        argv = ["tui"]
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        with prefixed_warnings():
            return int(args.func(args) or 0)
    except UsageError as exc:
        sys.stderr.write(f"conflictdesk: error: {safe_line(exc)}\n")
        return 2
    except ConflictDeskError as exc:
        sys.stderr.write(f"conflictdesk: error: {safe_line(exc)}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("conflictdesk: interrupted\n")
        return 130
