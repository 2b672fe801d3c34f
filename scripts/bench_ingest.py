"""Ingest throughput including embedding: passages/s of `Desk.ingest` (conflictdesk.app, the
call behind `conflictdesk ingest`) with the real int8 ONNX embedder on synthetic documents (English-like sentences, ~2 passages each).

examples:
  .venv/bin/python scripts/bench_ingest.py
  .venv/bin/python scripts/bench_ingest.py --documents 300 --threads 2 --json
  .venv/bin/python scripts/bench_ingest.py --no-embed      (reading, chunking, SQLite only)
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

SUBJECTS = ["The harbour council", "A regional clinic", "Researchers at Halden", "The ferry company",
            "Local farmers", "The museum board", "A consumer group", "The town library"]
VERBS = ["announced", "reported", "questioned", "measured", "rejected", "described", "funded"]
OBJECTS = ["a plan to widen the old bridge", "the results of the winter survey",
           "a daily dose of 40 micrograms", "new opening hours for the summer",
           "the price of bread in March", "a study of sleep and memory",
           "the timetable of the night trains", "a quieter market square"]
TAILS = ["", " after a long debate", " despite several objections", " in a report on Tuesday"]


def synthetic(rng: random.Random, sentences: int) -> str:
    paras, para = [], []
    for i in range(sentences):
        para.append(f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}"
                    f"{rng.choice(TAILS)}.")
        if len(para) >= rng.randint(3, 6):
            paras.append(" ".join(para))
            para = []
    paras.append(" ".join(para))
    return "\n\n".join(p for p in paras if p)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="examples:" + __doc__.split("examples:")[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--sentences", type=int, default=30, help="per document (~10 words each)")
    parser.add_argument("--threads", type=int, default=2, help="embedder threads")
    parser.add_argument("--no-embed", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from conflictdesk.app import Desk, load_settings

    rng = random.Random(3)
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(threads=args.threads, device="cpu", db_path=Path(tmp) / "i.db")
        desk = Desk(settings)
        if not args.no_embed:
            desk.backends(("embedder",)).embedder.embed(["warm-up"])  # model load is not ingest
        src = Path(tmp) / "docs"
        src.mkdir()
        for i in range(args.documents):
            body = synthetic(rng, args.sentences)
            (src / f"doc{i:05d}.md").write_text(f"---\ntitle: Doc {i}\ndate: 2020-01-{i % 28 + 1:02d}\n---\n{body}\n")
        with desk:
            t0 = time.perf_counter()
            report = desk.ingest([src], "bench", embed=not args.no_embed)
            seconds = time.perf_counter() - t0
            passages = desk.store.collection_passages("bench")
            words = sum(len(p.text.split()) for p in passages) / max(len(passages), 1)
    result = {
        "bench": "ingest", "documents": report.documents_added, "passages": report.passages_added,
        "seconds": round(seconds, 2), "passages_per_s": round(report.passages_added / seconds, 1),
        "documents_per_s": round(report.documents_added / seconds, 1),
        "avg_words_per_passage": round(float(words or 0), 1),
        "embedder": report.embedded_with, "threads": args.threads, "failed": len(report.failures),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['passages']} passages from {result['documents']} documents in "
              f"{result['seconds']} s: {result['passages_per_s']} passages/s "
              f"({result['avg_words_per_passage']} words/passage, embedder {result['embedder']}, "
              f"{args.threads} threads)")
    return 0 if report.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
