"""Time claim × document labelling with and without pair pruning: 10 claims against 10, 50
and 200 RAMDocs documents (file order), cold (no judgment cache), models loaded first.

The claims are "The answer to the question Q is A." for the first 10 RAMDocs questions (their
first gold answer), so each claim has its own documents among many others', as in a review of
one long answer against a large retrieved set. Reported as medians over --repeats runs, with
the share of pairs pruned and the speed-up ratio (exhaustive / pruned).

examples:
  .venv/bin/python scripts/bench_pruning.py --threads 2
  .venv/bin/python scripts/bench_pruning.py --sizes 10 50 --repeats 3 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings
from collections.abc import Sequence

from conflictdesk.scoring.label import label_claims
from conflictdesk.training.claims import claim_text, load_ramdocs
from conflictdesk.types import Document


def inputs(n_documents: int) -> tuple[list[str], list[Document]]:
    records = load_ramdocs(None)
    claims = [claim_text(r["question"], r["gold_answers"][0]) for r in records[:10]]
    docs = [Document(d["text"]) for r in records for d in r["documents"]][:n_documents]
    return claims, docs


def timed(claims: list[str], docs: list[Document], backends, prune: bool) -> tuple[float, int]:
    start = time.perf_counter()
    labelling = label_claims(claims, docs, backends, prune=prune)
    pruned = sum(j.labeller == "pruned" for row in labelling.judgments for j in row)
    return time.perf_counter() - start, pruned


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 200])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*truncated to.*")
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config

    backends = load_backends(load_config(threads=args.threads), roles=("nli", "embedder"))
    label_claims(*inputs(2), backends, prune=True)  # load both models
    rows = []
    for size in args.sizes:
        claims, docs = inputs(size)
        full = [timed(claims, docs, backends, False)[0] for _ in range(args.repeats)]
        cut = [timed(claims, docs, backends, True) for _ in range(args.repeats)]
        rows.append({
            "claims": len(claims), "documents": len(docs), "pairs": len(claims) * len(docs),
            "exhaustive_s": statistics.median(full),
            "pruned_s": statistics.median(t for t, _ in cut), "pruned_pairs": cut[0][1],
        })  # fmt: skip
        rows[-1]["speedup"] = rows[-1]["exhaustive_s"] / max(rows[-1]["pruned_s"], 1e-9)
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
