"""`ask` latency through `Desk.ask` (the call behind `conflictdesk ask` and the TUI) on a
collection of a given size.

The collection holds `real` passages of real text (QACC contexts, RAMDocs documents,
TruthfulQA answers, as one-passage documents embedded by the shipped embedder) padded to
`size` with synthetic passages (invented vocabulary, random unit vectors under the
embedder's model id; `conflictdesk.benchmarks.search`), so retrieval pays for the full size
while the analysis stages run on real text. Timed queries are QACC dev and RAMDocs questions
at a fixed stride, with no judgment cache; one warm-up query loads the models."""

from __future__ import annotations

import csv
import json
import statistics
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from conflictdesk.benchmarks.search import SyntheticText, add_synthetic

COLLECTION = "bench"


def corpus_records(data: Path) -> Iterator[dict[str, str]]:
    """Passage-sized records from the evaluation data, in a fixed order."""
    for split in ("dev", "train"):
        for line in (data / "qacc" / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for text, source in zip(row["contexts"], row["sources"], strict=False):
                yield {"text": text, "source": source, "title": row["question"]}
    for line in (data / "ramdocs" / "dev.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for doc in row["documents"]:
            yield {"text": doc["text"], "title": row["question"]}
    with open(data / "truthfulqa" / "TruthfulQA.csv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            for column in ("Correct Answers", "Incorrect Answers"):
                for answer in filter(str.strip, row.get(column, "").split(";")):
                    yield {"text": f"{row['Question']} {answer.strip()}", "source": row["Source"]}


def build_collection(desk: Any, data: Path, real: int, size: int) -> dict[str, Any]:
    """Ingest `real` distinct records, then pad with synthetic passages up to `size`."""
    seen: set[str] = set()
    records = []
    for record in corpus_records(data):
        key = record["text"].strip().lower()
        if key not in seen:
            seen.add(key)
            records.append(record)
        if len(records) == real:
            break
    source = Path(desk.settings.db_path).parent / "bench_corpus.jsonl"
    source.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n")
    started = time.perf_counter()
    desk.ingest([source], COLLECTION, max_words=400)
    model_id = desk.backends(("embedder",)).embedder.model_id
    have = {c.name: c for c in desk.collections()}[COLLECTION].passages
    add_synthetic(desk.store, COLLECTION, max(size - have, 0), SyntheticText(), model_id)
    total = {c.name: c for c in desk.collections()}[COLLECTION].passages
    real_passages = desk.store.conn.execute(
        "SELECT count(*) FROM passages p JOIN documents d ON d.id = p.document_id "
        "WHERE d.sha256 NOT LIKE 'syn-%'"
    ).fetchone()[0]
    return {"real": real_passages, "passages": total,
            "build_s": round(time.perf_counter() - started, 1)}  # fmt: skip


def bench_queries(data: Path, count: int) -> list[str]:
    """`count` questions at a fixed stride over QACC dev and RAMDocs."""

    def questions(path: Path) -> list[str]:
        return [json.loads(x)["question"] for x in path.read_text("utf-8").splitlines()]

    qacc, ram = questions(data / "qacc" / "dev.jsonl"), questions(data / "ramdocs" / "dev.jsonl")
    half = count // 2
    return (qacc[:: max(len(qacc) // max(half, 1), 1)][:half]
            + ram[:: max(len(ram) // (count - half), 1)][: count - half])  # fmt: skip


def time_ask(
    desk: Any, query: str, k: int, tiers: str = "fast"
) -> tuple[float, float, dict[str, float]]:
    """Milliseconds of one `Desk.ask` with no judgment cache: wall, this process's CPU (all its
    threads) and each analysis stage's wall time."""
    from conflictdesk.app import AskRequest

    request = AskRequest(query, collection=COLLECTION, k=k, check_parametric=False,
                         use_cache=False, tiers=tiers)  # fmt: skip
    started, cpu = time.perf_counter(), time.process_time()
    outcome = desk.ask(request)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    return wall * 1000, cpu * 1000, dict(outcome.analysis.timings)


def ask_benchmark(desk: Any, data: Path, *, real: int, sizes: Sequence[int], queries: int,
                  k: int = 20, tiers: str = "fast") -> list[dict[str, Any]]:  # fmt: skip
    """Median and p90 of `ask` at each size (one collection grown size by size), with the
    median CPU milliseconds and each stage's median, so a slow machine shows where time goes."""
    rows = []
    asked = bench_queries(data, queries)
    for size in sorted(sizes):
        collection = build_collection(desk, data, real, size)
        time_ask(desk, "warm-up: which models load?", k, tiers)
        runs = [time_ask(desk, q, k, tiers) for q in asked]
        times = sorted(wall for wall, _, _ in runs)
        stages = {name: round(statistics.median(r[2].get(name, 0.0) for r in runs), 1)
                  for name in runs[0][2]}  # fmt: skip
        rows.append({**collection, "queries": len(times), "k": k, "tiers": tiers,
                     "median_ms": round(statistics.median(times), 1),
                     "p90_ms": round(times[max(int(0.9 * len(times)) - 1, 0)], 1),
                     "median_cpu_ms": round(statistics.median(cpu for _, cpu, _ in runs), 1),
                     "stage_median_ms": stages})  # fmt: skip
    return rows
