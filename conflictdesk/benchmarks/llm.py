"""llama.cpp runtime figures: prompt and generation tokens/s, label scoring versus JSON
generation, and prefix reuse (one document against several claims)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conflictdesk.benchmarks.models import CLAIMS, DOCUMENT, median_seconds

LABELS = ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]
SCHEMA = {"type": "object", "properties": {"label": {"type": "string", "enum": LABELS}},
          "required": ["label"], "additionalProperties": False}  # fmt: skip


def label_messages(claim: str, document: str = DOCUMENT) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "Label the claim against the document: SUPPORTS, "
                                      "CONTRADICTS or IRRELEVANT."},
        {"role": "user", "content": f"<document>{document}</document>\nClaim: {claim}\nLabel:"},
    ]  # fmt: skip


def llama_rates(path: Path, threads: int, repeats: int) -> dict[str, float]:
    """Prompt and generation tokens/s, then label and prefix figures."""
    from conflictdesk.backends.llama_cpp import LlamaCppGenerator

    generator = LlamaCppGenerator(path, n_ctx=2048, threads=threads, n_gpu_layers=0)
    engine = generator.engine
    prompt = engine.render(label_messages(CLAIMS[0]))

    def cold_prompt() -> None:
        engine.llama.reset()  # type: ignore[attr-defined]
        engine.next_logits(prompt)

    prompt_s = median_seconds(cold_prompt, repeats)
    counts = []
    for _ in range(repeats):
        engine.next_logits(prompt)  # prompt cached, so the timed call is generation
        started = time.perf_counter()
        text, _ = engine.complete(prompt, max_tokens=64, temperature=0.0)
        counts.append((len(engine.tokenize(text)), time.perf_counter() - started))
    return {"llama_prompt_tokens": len(prompt), "llama_prompt_tokens_per_s": len(prompt) / prompt_s,
            "llama_generation_tokens_per_s": statistics.median(n / s for n, s in counts if n),
            **label_rates(generator, repeats), **prefix_reuse(generator, repeats)}  # fmt: skip


def label_rates(generator: Any, repeats: int) -> dict[str, float]:
    """Same pairs, KV cache cleared before each pair in both modes (no prefix advantage)."""
    llama = generator.engine.llama
    pairs = [label_messages(claim, DOCUMENT[: 200 + 40 * i]) for i, claim in enumerate(CLAIMS[:6])]

    def run(score: Callable[[Any], Any]) -> Callable[[], None]:
        def go() -> None:
            for messages in pairs:
                llama.reset()
                score(messages)

        return go

    scoring = median_seconds(run(lambda m: generator.score_labels(m, LABELS)), repeats)
    json_s = median_seconds(run(lambda m: generator.generate_json(m, SCHEMA, max_tokens=24)),
                            repeats)  # fmt: skip
    return {"labels_per_s_scoring": len(pairs) / scoring, "labels_per_s_json": len(pairs) / json_s,
            "label_scoring_speedup_vs_json": json_s / scoring}  # fmt: skip


def prefix_reuse(generator: Any, repeats: int) -> dict[str, float]:
    """One document against the claims: cache cleared before each claim versus kept."""
    llama = generator.engine.llama
    messages = [label_messages(claim) for claim in CLAIMS]

    def cold() -> None:
        for m in messages:
            llama.reset()
            generator.score_labels(m, LABELS)

    def warm() -> None:
        llama.reset()
        for m in messages:
            generator.score_labels(m, LABELS)

    cold_s, warm_s = median_seconds(cold, repeats), median_seconds(warm, repeats)
    return {"prefix_cold_s": cold_s, "prefix_warm_s": warm_s,
            "prefix_reuse_speedup": cold_s / warm_s}  # fmt: skip
