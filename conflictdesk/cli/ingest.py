"""`conflictdesk ingest PATH... --collection NAME`: files and folders into a collection."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conflictdesk.app import DEFAULT_MAX_BYTES, count_files, ingest_on_ray
from conflictdesk.cli import common
from conflictdesk.errors import UsageError
from conflictdesk.terminal import safe_line

EXAMPLES = """examples:
  conflictdesk ingest examples/ --collection examples
  conflictdesk ingest notes.md report.pdf feed.jsonl --collection work --json
  conflictdesk ingest big_folder/ --collection archive --no-embed   (embed later, at search)

Formats: .txt .md (front matter: title, date) .html/.htm .json/.jsonl (records with text,
title, date, source, url) .csv (a text column) .pdf. Folders are read recursively; files of
other types inside folders are skipped. A document already in the collection (same text) is
skipped, so re-running after an interruption adds only what is missing.
Exit status: 0 all read, 1 some inputs failed (each named on stderr), 2 usage error."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "ingest",
        help="add files and folders to a collection",
        description="Read documents, split them into passages, embed and store them.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")
    parser.add_argument("--collection", "-c", required=True, help="collection name")
    parser.add_argument(
        "--no-embed",
        action="store_true",
        help="store no vectors now; `search` embeds missing ones on first use",
    )
    parser.add_argument(
        "--max-bytes", type=int, default=None, help="refuse files larger than this (default 20 MiB)"
    )
    parser.add_argument("--words", type=int, default=200, help="passage budget in words")
    parser.add_argument("--overlap", type=int, default=40, help="overlap between passages, words")
    parser.add_argument("--threads", type=int, default=None, help="embedder CPU threads (0: auto)")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default=None)
    common.add_db_argument(parser)
    common.add_json_argument(parser)
    common.add_ray_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.words < 2 or not 0 <= args.overlap < args.words:
        raise UsageError("--words must be at least 2 and --overlap between 0 and words - 1")
    if args.max_bytes is not None and args.max_bytes < 1:
        raise UsageError("--max-bytes must be positive")
    progress = common.Progress(count_files(args.paths), "ingest")

    def on_event(kind: str, path: str, detail: str) -> None:
        if kind == "error":
            if progress.enabled:
                sys.stderr.write("\n")
            common.warn(f"{path}: {detail}")
        elif kind == "file":
            progress.advance(1, safe_line(Path(path).name))

    options = {"max_bytes": args.max_bytes or DEFAULT_MAX_BYTES, "max_words": args.words,
               "overlap": args.overlap, "on_event": on_event}  # fmt: skip
    ray = common.ray_options_from_args(args)
    if ray is not None and args.no_embed:
        raise UsageError("--ray runs the embedding step: it cannot go with --no-embed")
    with common.open_desk(args) as desk:
        if ray is not None:
            report = ingest_on_ray(desk, args.paths, args.collection, ray, **options)
        else:
            report = desk.ingest(args.paths, args.collection, embed=not args.no_embed, **options)
    progress.close()
    if args.json:
        common.write_json(report.to_json())
    else:
        vectors = (
            f", embedded with {report.embedded_with}" if report.embedded_with else ", not embedded"
        )
        print(
            f"{safe_line(report.collection)}: {report.files} file(s), {report.documents_added} document(s) "
            f"added, {report.documents_skipped} already present, {report.passages_added} "
            f"passage(s){vectors}; {len(report.failures)} failed"
        )
    return common.EXIT_OK if report.ok else common.EXIT_PARTIAL
