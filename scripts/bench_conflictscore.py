"""Time ConflictScore on the embedded models: a 3-paragraph response against 10 documents.

The documents are the first 10 RAMDocs documents (ramdocs/dev.jsonl in the data folder:
--data, or the data_dir setting / CONFLICTDESK_DATA) by file order (three questions: Broken Bow, Bobby Carpenter, "Lahu Ke Do Rang"); the response is a
fixed 3-paragraph answer about those three topics (RESPONSE, 11 sentences). Reported, as
medians over --repeats runs:
- load: building the back-ends and the first NLI call on one pair (model loading);
- cold: `Desk.score` (conflictdesk.app, the call behind `conflictdesk score`; it also stores
  the run) with an empty judgment cache (a fresh SQLite store), models loaded;
  its CPU time (all threads) is reported too: on a busy machine wall time grows, CPU time
  does not, and CPU time / threads is the wall time on otherwise idle cores;
- cached: the same call again on that store, every judgment served from the cache.

examples:
  .venv/bin/python scripts/bench_conflictscore.py --threads 2
  .venv/bin/python scripts/bench_conflictscore.py --repeats 5 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

TARGET_COLD_SECONDS = 2.0


RESPONSE = """Broken Bow is a city in Custer County, Nebraska. According to the 2010 census, \
it had 3,559 people living in 1,575 households. Some sources put its population at 10,000, \
and the geographic center of Nebraska lies about 10 miles northwest of the city.

Bobby Carpenter is a former American football linebacker who was born on August 1, 1983. He \
played college football at Ohio State, and the Dallas Cowboys drafted him in the first round of \
the 2006 NFL Draft. He later played for the St. Louis Rams and the Miami Dolphins.

Lahu Ke Do Rang is a 1979 Hindi film directed by Mahesh Bhatt. It stars Vinod Khanna, Helen \
and Danny Denzongpa. Helen won the Filmfare award for Best Supporting Actress for her role."""


def bench_inputs(data: Path, n_documents: int = 10) -> tuple[str, list[str]]:
    """(response, documents) as described in the module docstring."""
    documents: list[str] = []
    with open(data / "ramdocs" / "dev.jsonl", encoding="utf-8") as handle:
        for line in handle:
            documents += [d["text"] for d in json.loads(line)["documents"]]
            if len(documents) >= n_documents:
                break
    return RESPONSE, documents[:n_documents]


def run(args: argparse.Namespace) -> dict[str, Any]:
    from conflictdesk.app import Desk, ScoringOptions, load_settings, verified_backends
    from conflictdesk.types import Document

    settings = load_settings(threads=args.threads, device=args.device, data_dir=args.data)
    if settings.data_dir is None:
        raise SystemExit("no data folder: pass --data DIR or set CONFLICTDESK_DATA")
    response, texts = bench_inputs(settings.data_dir)
    documents = [Document(text) for text in texts]
    options = ScoringOptions(gate=args.gate)
    start = time.perf_counter()
    backends = verified_backends(settings, ("nli",))  # the encoder alone, no GGUF
    backends.nli.classify([(texts[0], "warm-up")])
    load = time.perf_counter() - start
    cold, cold_cpu, cached, claims, pairs = [], [], [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):
            fresh = replace(settings, db_path=Path(tmp) / f"bench{repeat}.db")
            with Desk(fresh, load_backends=lambda roles: backends) as desk:
                start, cpu = time.perf_counter(), time.process_time()
                result = desk.score(response, documents, options).output
                cold.append(time.perf_counter() - start)
                cold_cpu.append(time.process_time() - cpu)
                start = time.perf_counter()
                again = desk.score(response, documents, options).output
                cached.append(time.perf_counter() - start)
                if again["cached"]["hits"] != again["cached"]["total"]:
                    raise RuntimeError("the repeated run was not fully served from the cache")
                claims, pairs = len(result["claims"]), result["cached"]["total"]
    return {
        "model": backends.nli.model_id, "threads": args.threads, "device": args.device,
        "gate": args.gate, "method": result["method"],
        "claims": claims, "documents": len(documents), "nli_pairs": pairs,
        "response_chars": len(response), "document_chars": sum(len(d.text) for d in documents),
        "repeats": args.repeats, "load_s": round(load, 3),
        "cold_median_s": round(statistics.median(cold), 3),
        "cold_cpu_median_s": round(statistics.median(cold_cpu), 3),
        "cached_median_s": round(statistics.median(cached), 4),
        "cold_s": [round(x, 3) for x in cold], "target_cold_s": TARGET_COLD_SECONDS,
    }  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="cpu")
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats (default 3)")
    parser.add_argument("--data", type=Path, default=None, help="data folder (default: setting)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--no-gate", dest="gate", action="store_false",
                        help="no relevance gate: the encoder labels all 110 pairs")  # fmt: skip
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    result = run(args)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{result['model']} on {result['device']}, {result['threads']} threads: "
              f"{result['claims']} claims x {result['documents']} documents "
              f"({result['nli_pairs']} pairs to the encoder; gate {result['gate']})")  # fmt: skip
        print(f"  load {result['load_s']} s; cold median {result['cold_median_s']} s "
              f"(CPU {result['cold_cpu_median_s']} s; target < {TARGET_COLD_SECONDS} s); "
              f"cached median {result['cached_median_s']} s")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
