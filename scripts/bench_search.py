"""Search latency of the store's hybrid search at 10k and 100k synthetic passages.

Passages are synthetic text (Zipf-distributed words from an invented vocabulary) with
random unit vectors stored under a bench model id, so no real embedding is needed; the
query vector is random too, so the figures time FTS5 BM25 + dense top-k + RRF + passage
fetch, not the embedder. The first query after a change loads the collection's matrix
(reported as cold_ms); p50/p95 are over the following queries.

examples:
  .venv/bin/python scripts/bench_search.py
  .venv/bin/python scripts/bench_search.py --sizes 10000 100000 --queries 200 --threads 1 --json
  .venv/bin/python scripts/bench_search.py --sizes 100000 --keep /tmp/bench   # build once, reuse
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="examples:" + __doc__.split("examples:")[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("-k", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep each built database in DIR and reuse it on later runs",
    )
    args = parser.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    import json

    import numpy as np

    from conflictdesk.retrieval.hybrid import hybrid_search
    from conflictdesk.retrieval.lexical import query_terms
    from conflictdesk.store import Store

    rng = np.random.default_rng(42)
    syllables = ["ka", "lo", "mir", "ven", "tas", "orn", "bel", "quu", "dra", "sel", "im", "ruth"]
    vocab = sorted({"".join(rng.choice(syllables, size=rng.integers(2, 4))) for _ in range(20000)})
    weights = 1.0 / np.arange(1, len(vocab) + 1)
    weights /= weights.sum()

    def text(n_words: int) -> str:
        return " ".join(rng.choice(vocab, size=n_words, p=weights))

    class RandomEmbedder:
        model_id = "bench-random"
        dim = 384

        def embed(self, texts):
            v = rng.normal(size=(len(texts), self.dim)).astype(np.float32)
            return v / np.linalg.norm(v, axis=1, keepdims=True)

    def synthetic_passages(size: int):
        """(document number, order, text, vector) in a fixed draw order."""
        per_doc = 5
        for d in range(0, size, per_doc):
            n = min(per_doc, size - d)
            vecs = emb.embed(["x"] * n)
            for i in range(n):
                yield d, i, text(int(rng.integers(60, 200))), vecs[i]

    def build(store, size: int) -> None:
        cid = store.ensure_collection("bench")
        doc_ids: dict[int, int] = {}
        with store._write() as conn:
            for d, i, body, vec in synthetic_passages(size):
                if d not in doc_ids:
                    doc_ids[d] = conn.execute(
                        "INSERT INTO documents (collection_id, title, sha256, metadata, added) "
                        "VALUES (?, ?, ?, '{}', '')",
                        (cid, f"doc {d}", f"sha{d}"),
                    ).lastrowid
                pid = conn.execute(
                    "INSERT INTO passages (document_id, collection_id, ord, text, "
                    "char_start, char_end) VALUES (?, ?, ?, ?, 0, ?)",
                    (doc_ids[d], cid, i, body, len(body)),
                ).lastrowid
                conn.execute(
                    "INSERT INTO embeddings VALUES (?, ?, ?, ?)",
                    (pid, emb.model_id, emb.dim, vec.astype("<f4").tobytes()),
                )
            conn.execute("UPDATE collections SET generation = generation + 1 WHERE id = ?", (cid,))

    emb = RandomEmbedder()
    results = []
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            path = (args.keep or Path(tmp)) / f"bench-{size}.db"
            path.parent.mkdir(parents=True, exist_ok=True)
            store = Store.open(path)
            t0 = time.perf_counter()
            if not store.collections():
                build(store, size)
            else:  # replay the build's random draws so the queries match a fresh run
                for _ in synthetic_passages(size):
                    pass
            build_s = time.perf_counter() - t0
            queries = [text(int(rng.integers(3, 9))) for _ in range(args.queries + 1)]
            t0 = time.perf_counter()
            hybrid_search(store, queries[0], "bench", args.k, emb, embed_missing=False)
            cold_ms = (time.perf_counter() - t0) * 1000
            times, sent = [], []
            for q in queries[1:]:
                t0 = time.perf_counter()
                hits = hybrid_search(store, q, "bench", args.k, emb, embed_missing=False)
                times.append((time.perf_counter() - t0) * 1000)
                assert len(hits) == args.k
                sent.append(len(store.lexical_terms(q)) / max(1, len(query_terms(q))))
            store.close()
            results.append(
                {
                    "passages": size,
                    "queries": len(times),
                    "k": args.k,
                    "p50_ms": round(float(np.percentile(times, 50)), 2),
                    "p95_ms": round(float(np.percentile(times, 95)), 2),
                    "cold_ms": round(cold_ms, 1),
                    "build_s": round(build_s, 1),
                    "terms_kept": round(float(np.mean(sent)), 2),
                    "threads": args.threads,
                }
            )
            if not args.json:
                r = results[-1]
                print(
                    f"{size:>7} passages: p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms "
                    f"(cold {r['cold_ms']} ms, build {r['build_s']} s, "
                    f"{r['terms_kept']:.0%} of query terms sent to FTS5)"
                )
    if args.json:
        print(json.dumps({"bench": "search", "results": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
