"""`conflictdesk search "QUERY" --collection NAME`: hybrid BM25 + dense search."""

from __future__ import annotations

import argparse
import textwrap

from conflictdesk.cli import common
from conflictdesk.errors import UsageError
from conflictdesk.terminal import safe, safe_line

EXAMPLES = """examples:
  conflictdesk search "recommended daily dose of lumivex" --collection examples -k 5
  conflictdesk search "ferry timetable" -c examples --json | jq '.results[0].text'
  conflictdesk search "harbour" -c examples --lexical-only

Ranking: BM25 over an FTS5 index and cosine similarity of MiniLM embeddings, fused by
reciprocal rank fusion (k=60). Passages stored with `ingest --no-embed` are embedded (and
saved) on the first search that needs them."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "search",
        help="find passages in a collection",
        description="Hybrid search (BM25 + dense, reciprocal rank fusion) over one collection.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("query", help="what to look for")
    parser.add_argument("--collection", "-c", required=True, help="collection name")
    parser.add_argument("-k", type=int, default=20, help="number of passages (default 20)")
    parser.add_argument(
        "--lexical-only", action="store_true", help="BM25 only: no embedder is loaded"
    )
    parser.add_argument("--threads", type=int, default=None, help="embedder CPU threads (0: auto)")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default=None)
    common.add_db_argument(parser)
    common.add_json_argument(parser)
    parser.set_defaults(func=run)


def passage_json(p) -> dict:
    return {
        "id": p.id,
        "document_id": p.document_id,
        "title": p.title,
        "date": p.date,
        "source": p.source,
        "url": p.url,
        "relevance": round(p.relevance, 6),
        "text": p.text,
        **{
            k: p.metadata.get(k)
            for k in ("order", "char_start", "char_end", "bm25_rank", "dense_rank", "cosine")
        },
    }


def run(args: argparse.Namespace) -> int:
    if args.k < 1:
        raise UsageError("-k must be at least 1")
    if not args.query.strip():
        raise UsageError("the search query is empty")
    with common.open_desk(args) as desk:
        db = desk.settings.db_path
        if db is None or not db.exists():
            raise UsageError(f"no database at {db}; run `conflictdesk ingest` first")
        found = desk.search(args.query, args.collection, args.k, lexical_only=args.lexical_only)
    hits, method = found.passages, found.method
    if args.json:
        common.write_json(
            {
                "query": args.query,
                "collection": args.collection,
                "k": args.k,
                "method": method,
                "results": [passage_json(p) for p in hits],
            }
        )
        return common.EXIT_OK
    if not hits:
        print("no passages found")
        return common.EXIT_OK
    for rank, p in enumerate(hits, start=1):
        head = " · ".join(x for x in (p.title, p.date, p.source) if x)
        print(f"{rank:>3}. [{p.relevance:.4f}] #{p.id} {safe_line(head)}")
        snippet = " ".join(p.text.split())
        print(textwrap.indent(safe(textwrap.shorten(snippet, 300, placeholder=" …")), "     "))
    return common.EXIT_OK
