"""`score` timing: 10 claims against N RAMDocs documents, exhaustive and pruned.

A response of 10 claims, "The answer to the question Q is A." for the first 10 RAMDocs
questions (their first gold answer), is scored against the first N documents in file order,
so each claim has its own documents among many others', as in a review of one long answer
against a large retrieved set. Four ways, each cold (no judgment cached):
- `all_pairs`: every claim × document pair through the cross-encoder (no gate, no pruning);
- `gated`: the default (the lexical gate, then the cross-encoder);
- `pruned_cold`: gate + bi-encoder pruning with no sentence vectors stored yet;
- `pruned_stored`: the same with the documents' sentence vectors already stored
  (the judgment cache keeps only the "embed-sentences" entries)."""

from __future__ import annotations

import re
import statistics
import time
from pathlib import Path
from typing import Any

from conflictdesk.backends.base import Backends
from conflictdesk.scoring.pipeline import detect, score_response
from conflictdesk.scoring.prune import EMBED_STAGE
from conflictdesk.training.claims import claim_text, load_ramdocs
from conflictdesk.types import Document

MODES = ("all_pairs", "gated", "pruned_cold", "pruned_stored")


class VectorsOnly:
    """A JudgmentCache that keeps only stored sentence vectors (never a judgment)."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str, str], Any] = {}

    def get(self, stage: str, model_id: str, input_hash: str) -> Any | None:
        return self.entries.get((stage, model_id, input_hash))

    def put(self, stage: str, model_id: str, input_hash: str, output: Any, ms: float) -> None:
        if stage == EMBED_STAGE:
            self.entries[(stage, model_id, input_hash)] = output


def scoring_inputs(data: Path, n_documents: int) -> tuple[str, list[Document]]:
    """A response of 10 claims (one per paragraph) and the first `n_documents` documents."""
    records = load_ramdocs(None, data)
    claims = [claim_text(r["question"], r["gold_answers"][0]) for r in records[:10]]
    docs = [Document(d["text"]) for r in records for d in r["documents"]][:n_documents]
    return "\n\n".join(claims), docs


def time_mode(mode: str, response: str, docs: list[Document], backends: Backends) -> dict:
    """Seconds of one cold scoring in `mode` and the pairs the cross-encoder was spared."""
    prune = mode.startswith("pruned")
    cache = VectorsOnly() if mode == "pruned_stored" else None
    if cache is not None:  # store the vectors first, then time a run that reuses them
        score_response(response, docs, backends, decomposer="splitter", prune=True, cache=cache)
    start, cpu = time.perf_counter(), time.process_time()
    result = score_response(response, docs, backends, decomposer="splitter",
                            gate=mode != "all_pairs", prune=prune, cache=cache)  # fmt: skip
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    pruned = re.search(r"pruned: (\d+) of", result.method)
    gated = re.search(r"gate: (\d+) of", result.method)
    return {"seconds": seconds, "cpu_s": cpu, "claims": len(result.claims),
            "gated": int(gated.group(1)) if gated else 0,
            "pruned": int(pruned.group(1)) if pruned else 0}  # fmt: skip


def scoring_row(data: Path, n_documents: int, backends: Backends, repeats: int) -> dict:
    """Median seconds of each mode for one size, with speed-ups over `gated` and `all_pairs`."""
    response, docs = scoring_inputs(data, n_documents)
    row: dict[str, Any] = {"documents": len(docs)}
    for mode in MODES:
        runs = [time_mode(mode, response, docs, backends) for _ in range(repeats)]
        row[f"{mode}_s"] = round(statistics.median(r["seconds"] for r in runs), 3)
        row[f"{mode}_cpu_s"] = round(statistics.median(r["cpu_s"] for r in runs), 3)
        row["claims"] = runs[0]["claims"]
        row[f"{mode}_skipped_pairs"] = runs[0]["gated"] + runs[0]["pruned"]
    for mode in ("pruned_cold", "pruned_stored"):
        for base in ("gated", "all_pairs"):
            row[f"{mode}_vs_{base}"] = round(row[f"{base}_s"] / max(row[f"{mode}_s"], 1e-9), 2)
            row[f"{mode}_vs_{base}_cpu"] = round(
                row[f"{base}_cpu_s"] / max(row[f"{mode}_cpu_s"], 1e-9), 2
            )
    row["pairs"] = row["claims"] * len(docs)
    return row


def scoring_benchmark(data: Path, backends: Backends, sizes: list[int], repeats: int) -> list:
    """One row per size (models loaded and warmed first)."""
    time_mode("pruned_cold", *scoring_inputs(data, 2), backends)
    return [scoring_row(data, size, backends, repeats) for size in sizes]


def detect_inputs(data: Path, n_claims: int) -> list[tuple[str, list[Document]]]:
    """The first `n_claims` RAMDocs EVAL-half questions as `detect` inputs: the answer-form
    claim of the first gold answer and the question's own documents."""
    records = load_ramdocs("eval", data)[:n_claims]
    return [(claim_text(r["question"], r["gold_answers"][0]),
             [Document(d["text"]) for d in r["documents"]]) for r in records]  # fmt: skip


def detect_benchmark(
    data: Path, backends: Backends, labellers: tuple[str, ...], n_claims: int, repeats: int
) -> dict:
    """Per labeller, the median over `repeats` of the cold `detect` time per claim (no
    judgment cached; models loaded and warmed first), with its CPU time, the pairs judged,
    and each labeller's time over the first one's."""
    inputs = detect_inputs(data, n_claims)
    for labeller in labellers:  # load and warm every model the labellers use
        detect(inputs[0][0], inputs[0][1], backends, labeller=labeller)
    rows: dict[str, Any] = {}
    for labeller in labellers:
        walls, cpus = [], []
        for _ in range(repeats):
            start, cpu = time.perf_counter(), time.process_time()
            for claim, docs in inputs:
                detect(claim, docs, backends, labeller=labeller)
            walls.append((time.perf_counter() - start) / len(inputs))
            cpus.append((time.process_time() - cpu) / len(inputs))
        rows[labeller] = {"ms_per_claim": round(1000 * statistics.median(walls), 1),
                          "cpu_ms_per_claim": round(1000 * statistics.median(cpus), 1)}  # fmt: skip
    first = rows[labellers[0]]["ms_per_claim"]
    for row in rows.values():
        row["vs_first"] = round(row["ms_per_claim"] / max(first, 1e-9), 2)
    pairs = sum(len(docs) for _, docs in inputs)
    return {"claims": len(inputs), "pairs": pairs, "repeats": repeats, "labellers": rows}
