"""The MPNet tier's speed: ONNX int8 pairs/s at a fixed pair length (128 and 256 word pieces)
beside the MiniLM model on the same pairs, and the cascade's effective rate on development
rows, where the share of pairs the MiniLM leaves to MPNet is what the band decides."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from conflictdesk.backends.base import NLI
from conflictdesk.backends.cascade_nli import CascadeNLI
from conflictdesk.benchmarks.models import DOCUMENT

HYPOTHESIS = "The first section of the tram line opened two months late."


def pairs_of_length(tokenizer: Any, length: int, count: int) -> list[tuple[str, str]]:
    """`count` distinct (premise, hypothesis) pairs of about `length` word pieces in all."""
    words = (DOCUMENT * 8).split()
    pairs = []
    for shift in range(count):
        premise_words = words[shift:]
        cut = len(premise_words)
        while (
            cut > 1
            and len(tokenizer.encode(" ".join(premise_words[:cut]), HYPOTHESIS).ids) > length
        ):
            cut = max(1, int(cut * 0.9))
        pairs.append((" ".join(premise_words[:cut]), HYPOTHESIS))
    return pairs


def rate(nli: NLI, pairs: Sequence[tuple[str, str]], repeats: int) -> dict[str, float]:
    """Best-of-`repeats` wall pairs/s and the CPU-seconds per pair of that run."""
    nli.classify(pairs[:1])  # load
    best_wall, cpu = float("inf"), 0.0
    for _ in range(repeats):
        wall0, cpu0 = time.perf_counter(), time.process_time()
        nli.classify(pairs)
        wall = time.perf_counter() - wall0
        if wall < best_wall:
            best_wall, cpu = wall, time.process_time() - cpu0
    return {"pairs_per_s": round(len(pairs) / best_wall, 2),
            "cpu_s_per_pair": round(cpu / len(pairs), 4)}  # fmt: skip


def length_rates(
    fast: NLI, accurate: Any, lengths: Sequence[int], count: int, repeats: int
) -> list[dict]:
    """Per pair length: the MPNet tier's and the MiniLM model's rates on the same pairs."""
    rows = []
    for length in lengths:
        pairs = pairs_of_length(accurate.plain_tokenizer, length, count)
        rows.append({"tokens": length, "pairs": len(pairs), "mpnet": rate(accurate, pairs, repeats),
                     "minilm": rate(fast, pairs, repeats)})  # fmt: skip
    return rows


def cascade_rates(
    fast: NLI, accurate: NLI, pairs: Sequence[tuple[str, str]], bands: Sequence[float]
) -> list[dict]:
    """Per band: the share of development pairs MPNet labels and the cascade's pairs/s."""
    rows = []
    for band in bands:
        cascade = CascadeNLI(fast, accurate, band)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        cascade.classify(pairs)
        seconds, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        share = cascade.routed["accurate"] / max(1, len(pairs))
        rows.append({"band": band, "escalated": round(share, 3),
                     "pairs_per_s": round(len(pairs) / seconds, 2),
                     "cpu_s_per_pair": round(cpu / max(1, len(pairs)), 4)})  # fmt: skip
    return rows
