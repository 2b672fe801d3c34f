"""Latency of `ask` on a 10k-passage collection with the embedded models.

Usage:
  .venv/bin/python scripts/bench_ask.py                  (builds the collection once)
  .venv/bin/python scripts/bench_ask.py --queries 20 --threads 2 --json

The collection is built once into --workdir (default: a folder in the temp directory) from
real text: QACC contexts (train and dev), RAMDocs documents and TruthfulQA answers, cut at
--passages passages (10,000), embedded by the shipped embedder. The timed queries are QACC dev
and RAMDocs questions, taken at a fixed stride. One warm-up query loads the models and is
not timed; each timed query is one `Desk.ask` (conflictdesk.app), the call behind
`conflictdesk ask` and the TUI: retrieval (k = 20, hybrid BM25 + dense), every analysis stage
(the retrieved passages' stored vectors are reused), the answer and storing the run, with no
judgment cache, so no model judgment is skipped. Reported: the median and the 90th percentile of the end-to-end time, and each
stage's share of the summed time."""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

COLLECTION = "bench"


def corpus_records(data: Path) -> Iterator[dict[str, str]]:
    """Passage-sized records from the evaluation data, in a fixed order."""
    for split in ("dev", "train"):
        for line in (data / "qacc" / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for text, source in zip(row["contexts"], row["sources"]):
                yield {"text": text, "source": source, "title": row["question"]}
    for line in (data / "ramdocs" / "dev.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for doc in row["documents"]:
            yield {"text": doc["text"], "title": row["question"]}
    with open(data / "truthfulqa" / "TruthfulQA.csv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            for column in ("Correct Answers", "Incorrect Answers"):
                for answer in row.get(column, "").split(";"):
                    if answer.strip():
                        yield {
                            "text": f"{row['Question']} {answer.strip()}",
                            "source": row["Source"],
                        }


def build_collection(desk: Any, data: Path, passages: int) -> dict[str, Any]:
    """Ingest up to `passages` distinct records as one-passage documents (idempotent)."""
    existing = {c.name: c for c in desk.collections()}.get(COLLECTION)
    if existing and existing.passages >= passages:
        return {"built": False, **existing.to_json()}
    seen, records = set(), []
    for record in corpus_records(data):
        key = record["text"].strip().lower()
        if key in seen:
            continue
        seen.add(key)
        records.append(record)
        if len(records) == passages:
            break
    source = Path(desk.settings.db_path).parent / "bench_corpus.jsonl"
    source.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n")
    started = time.perf_counter()
    report = desk.ingest([source], COLLECTION, max_words=400)
    info = {c.name: c for c in desk.collections()}[COLLECTION].to_json()
    return {
        "built": True,
        "seconds": time.perf_counter() - started,
        "failures": len(report.failures),
        **info,
    }


def bench_queries(data: Path, count: int) -> list[str]:
    """`count` questions at a fixed stride over QACC dev and RAMDocs."""
    qacc = [
        json.loads(x)["question"] for x in (data / "qacc" / "dev.jsonl").read_text().splitlines()
    ]
    ram = [
        json.loads(x)["question"] for x in (data / "ramdocs" / "dev.jsonl").read_text().splitlines()
    ]
    half = count // 2
    return (
        qacc[:: max(len(qacc) // half, 1)][:half]
        + ram[:: max(len(ram) // (count - half), 1)][: count - half]
    )


def time_one(desk: Any, query: str, k: int) -> dict[str, float]:
    """Milliseconds per stage for one `Desk.ask`: retrieval, the analysis stages, the answer
    and storing the run."""
    from conflictdesk.app import AskRequest
    from conflictdesk.stages import ANSWER, RETRIEVE

    marks: dict[str, float] = {}

    def on_event(stage: str, value: Any) -> None:
        if stage in (RETRIEVE, ANSWER):
            marks[stage] = time.perf_counter()

    request = AskRequest(query, collection=COLLECTION, k=k, check_parametric=False, use_cache=False)
    started = time.perf_counter()
    outcome = desk.ask(request, on_event=on_event)
    done = time.perf_counter()
    timings = outcome.analysis.timings
    answer_ms = (marks[ANSWER] - marks[RETRIEVE]) * 1e3 - sum(timings.values())
    return {
        "retrieve": (marks[RETRIEVE] - started) * 1e3,
        **timings,
        "answer": answer_ms,
        "store": (done - marks[ANSWER]) * 1e3,
        "total": (done - started) * 1e3,
    }


def summarise(rows: Sequence[dict[str, float]]) -> dict[str, Any]:
    totals = [r["total"] for r in rows]
    stages = [name for name in rows[0] if name != "total"]
    summed = {name: sum(r.get(name, 0.0) for r in rows) for name in stages}
    grand = sum(summed.values())
    return {
        "queries": len(rows),
        "median_ms": statistics.median(totals),
        "p90_ms": sorted(totals)[max(int(0.9 * len(totals)) - 1, 0)],
        "min_ms": min(totals),
        "max_ms": max(totals),
        "stage_median_ms": {n: statistics.median(r.get(n, 0.0) for r in rows) for n in stages},
        "stage_share": {n: summed[n] / grand for n in stages},
    }


def main(argv: Sequence[str] | None = None) -> int:
    from conflictdesk.app import Desk, load_settings, verified_backends

    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--workdir", type=Path, default=Path(tempfile.gettempdir()) / "conflictdesk-bench"
    )
    parser.add_argument("--passages", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("-k", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2, help="CPU threads per model")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="cpu")
    parser.add_argument("--data", type=Path, default=None, help="default: data_dir setting")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    settings = load_settings(
        threads=args.threads, device=args.device, db_path=args.workdir / "bench.db",
        data_dir=args.data,
    )  # fmt: skip
    if settings.data_dir is None:
        parser.error("no data folder: pass --data DIR or set CONFLICTDESK_DATA")

    def without_llm(roles: Sequence[str]) -> Any:  # the embedded models alone
        return verified_backends(settings, [role for role in roles if role != "llm"])

    with Desk(settings, load_backends=without_llm) as desk:
        collection = build_collection(desk, settings.data_dir, args.passages)
        queries = bench_queries(settings.data_dir, args.queries)
        time_one(desk, "warm-up: which models load?", args.k)  # model load, untimed
        rows = [time_one(desk, query, args.k) for query in queries]
        models = desk.backends().methods()
    result = {
        "collection": collection,
        "threads": args.threads,
        "device": args.device,
        "k": args.k,
        "models": models,
        **summarise(rows),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(render(result))
    return 0


def render(result: dict[str, Any]) -> str:
    c = result["collection"]
    lines = [
        f"collection: {c['passages']} passages ({'built' if c['built'] else 'reused'})",
        f"models: {result['models']}  threads={result['threads']} device={result['device']}",
        (
            f"ask over {result['queries']} queries, k={result['k']}: median "
            f"{result['median_ms']:.0f} ms, p90 {result['p90_ms']:.0f} ms "
            f"(min {result['min_ms']:.0f}, max {result['max_ms']:.0f})"
        ),
        f"  {'stage':<10}{'median ms':>10}{'share':>8}",
    ]
    for name, share in result["stage_share"].items():
        lines.append(f"  {name:<10}{result['stage_median_ms'][name]:>10.1f}{share:>8.1%}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
