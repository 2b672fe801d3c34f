"""`conflictdesk collections`: what is stored (and `--delete NAME`)."""

from __future__ import annotations

import argparse

from conflictdesk.cli import common
from conflictdesk.terminal import safe_line

EXAMPLES = """examples:
  conflictdesk collections
  conflictdesk collections --json
  conflictdesk collections --delete scratch"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "collections",
        help="list stored collections",
        description="List collections with their document and passage counts.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--delete", metavar="NAME", help="delete a collection and its passages")
    common.add_db_argument(parser)
    common.add_json_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with common.open_desk(args) as desk:
        if args.delete:
            desk.delete_collection(args.delete)
            if not args.json:
                print(f"deleted {safe_line(args.delete)}")
        rows = desk.collections()
    if args.json:
        for row in rows:
            common.write_json(row.to_json())
        return common.EXIT_OK
    if not rows:
        print("no collections yet: conflictdesk ingest PATH --collection NAME")
        return common.EXIT_OK
    names = {r.name: safe_line(r.name) for r in rows}
    width = max(len("collection"), *(len(n) for n in names.values()))
    print(f"{'collection':<{width}}  {'documents':>9}  {'passages':>8}  created")
    for r in rows:
        print(f"{names[r.name]:<{width}}  {r.documents:>9}  {r.passages:>8}  {r.created}")
    return common.EXIT_OK
