"""Time claim × document labelling with and without pair pruning: 10 claims against 10, 50
and 200 RAMDocs documents (file order), cold (no judgment cache), models loaded first.

A response of 10 claims, "The answer to the question Q is A." for the first 10 RAMDocs
questions (their first gold answer), is scored through `Desk.score` (the call behind
`conflictdesk score`), so each claim has its own documents among many others', as in a review
of one long answer against a large retrieved set. Reported as medians over --repeats runs, with
the share of pairs pruned and the speed-up ratio (exhaustive / pruned).

examples:
  .venv/bin/python scripts/bench_pruning.py --threads 2
  .venv/bin/python scripts/bench_pruning.py --sizes 10 50 --repeats 3 --json
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import time
import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from conflictdesk.app import Desk, ScoringOptions, load_settings, verified_backends
from conflictdesk.training.claims import claim_text, load_ramdocs
from conflictdesk.types import Document


def inputs(data: Path, n_documents: int) -> tuple[str, list[Document]]:
    """A response of 10 claims (one per line) and the first `n_documents` RAMDocs documents."""
    records = load_ramdocs(None, data)
    claims = [claim_text(r["question"], r["gold_answers"][0]) for r in records[:10]]
    docs = [Document(d["text"]) for r in records for d in r["documents"]][:n_documents]
    return "\n\n".join(claims), docs


def timed(desk: Any, response: str, docs: list[Document], prune: bool) -> tuple[float, int, int]:
    """Seconds for one cold `Desk.score`, the pairs pruned and the claims made."""
    options = ScoringOptions(prune=prune, use_cache=False, decomposer="splitter")
    start = time.perf_counter()
    output = desk.score(response, docs, options).output
    seconds = time.perf_counter() - start
    match = re.search(r"pruned: (\d+) of", output["method"])
    return seconds, int(match.group(1)) if match else 0, len(output["claims"])


def row(full: list, cut: list, documents: int) -> dict[str, Any]:
    exhaustive = statistics.median(t for t, _, _ in full)
    pruned = statistics.median(t for t, _, _ in cut)
    claims = full[0][2]
    return {"claims": claims, "documents": documents, "pairs": claims * documents,
            "exhaustive_s": round(exhaustive, 3), "pruned_s": round(pruned, 3),
            "pruned_pairs": cut[0][1], "speedup": round(exhaustive / max(pruned, 1e-9), 2)}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 200])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--data", type=Path, default=None, help="data folder (CONFLICTDESK_DATA)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*truncated to.*")
    settings = load_settings(threads=args.threads, data_dir=args.data)
    if settings.data_dir is None:
        raise SystemExit("no data folder: pass --data DIR or set CONFLICTDESK_DATA")
    backends = verified_backends(settings, ("nli", "llm", "embedder"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        fresh = replace(settings, db_path=Path(tmp) / "bench.db")
        with Desk(fresh, load_backends=lambda roles: backends) as desk:
            timed(desk, *inputs(settings.data_dir, 2), True)  # load both models
            for size in args.sizes:
                response, docs = inputs(settings.data_dir, size)
                full = [timed(desk, response, docs, False) for _ in range(args.repeats)]
                cut = [timed(desk, response, docs, True) for _ in range(args.repeats)]
                rows.append(row(full, cut, len(docs)))
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        print(f"{r['claims']} claims x {r['documents']} documents: exhaustive "
              f"{r['exhaustive_s']:.2f} s, pruned {r['pruned_s']:.2f} s "
              f"({r['pruned_pairs']} of {r['pairs']} pairs pruned), x{r['speedup']:.1f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
