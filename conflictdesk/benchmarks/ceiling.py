"""How close ingest runs to what this CPU allows for the shipped embedder.

Three measurements on the ingest benchmark's own passages, all in CPU-seconds (so other
processes on a shared machine slow the wall clock but not the figure):

- the embedder alone (tokenise + graph calls, the ingest's batch and threads), passages per
  CPU-second, beside the whole ingest's: the gap is everything ingest does besides embedding;
- the int8 matrix-multiply rate of this CPU (onnxruntime's DynamicQuantizeMatMul, the kernel
  the int8 graph runs, on the encoder's own shapes) and the fp32 batched-matmul rate that
  the attention products run at, each on one thread;
- the multiply-adds a passage needs (MiniLM-L6: 6 layers, width 384, feed-forward 1536), so
  the lower bound on CPU time per passage is MACs / rate, whatever else is made free.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

LAYERS, HIDDEN, FFN = 6, 384, 1536  # all-MiniLM-L6-v2


def encoder_macs(
    tokens: int, layers: int = LAYERS, hidden: int = HIDDEN, ffn: int = FFN
) -> tuple[int, int]:
    """(int8 projection MACs, fp32 attention MACs) of one passage of `tokens` word pieces:
    Q, K, V, output and the two feed-forward matrices per token; Q·Kᵀ and scores·V per head."""
    projections = layers * tokens * (4 * hidden * hidden + 2 * hidden * ffn)
    attention = layers * 2 * tokens * tokens * hidden
    return projections, attention


def _cpu_rate(call: Any, macs: int, seconds: float) -> float:
    """G multiply-adds per CPU-second of `call` (best of 3 rounds of about `seconds`)."""
    for _ in range(3):
        call()  # warm-up
    best = 0.0
    for _ in range(3):
        runs, started = 0, time.process_time()
        while (spent := time.process_time() - started) < seconds / 3 or runs < 3:
            call()
            runs += 1
        best = max(best, macs * runs / spent / 1e9)
    return best


def _session(nodes: list[Any], inputs: list[Any], weights: list[Any]) -> Any:
    """A one-thread onnxruntime session over a graph of `nodes` with output Y."""
    import onnxruntime as ort
    from onnx import TensorProto, helper

    output = helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "gemm", inputs, [output], weights)
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(
        helper.make_model(graph, opset_imports=opsets).SerializeToString(),
        options,
        providers=["CPUExecutionProvider"],
    )


def int8_gemm_rate(m: int, k: int, n: int, seconds: float = 1.5) -> float:
    """G MACs per CPU-second of onnxruntime's dynamic-int8 matmul (fp32 in, int8 weights per
    output channel, fp32 out: the kernel the int8 graph's projections run) on one thread."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    weights = [
        numpy_helper.from_array(rng.integers(-127, 128, (k, n), dtype=np.int8), "W"),
        numpy_helper.from_array(np.full(n, 0.01, np.float32), "scale"),
        numpy_helper.from_array(np.zeros(n, np.int8), "zero"),
    ]
    node = helper.make_node(
        "DynamicQuantizeMatMul", ["A", "W", "scale", "zero"], ["Y"], domain="com.microsoft"
    )
    inputs = [helper.make_tensor_value_info("A", TensorProto.FLOAT, [m, k])]
    session = _session([node], inputs, weights)
    feed = {"A": rng.standard_normal((m, k), dtype=np.float32)}
    return _cpu_rate(lambda: session.run(None, feed), m * k * n, seconds)


def fp32_attention_rate(tokens: int, heads: int = 12, seconds: float = 1.5) -> float:
    """G MACs per CPU-second of onnxruntime's float32 batched matmul on one thread, on the
    attention's shape: `heads` products of (tokens × head width) by (head width × tokens)."""
    from onnx import TensorProto, helper

    width = HIDDEN // heads
    rng = np.random.default_rng(0)
    node = helper.make_node("MatMul", ["A", "B"], ["Y"])
    shapes = {"A": (heads, tokens, width), "B": (heads, width, tokens)}
    inputs = [helper.make_tensor_value_info(k, TensorProto.FLOAT, v) for k, v in shapes.items()]
    session = _session([node], inputs, [])
    feed = {k: rng.standard_normal(v, dtype=np.float32) for k, v in shapes.items()}
    return _cpu_rate(lambda: session.run(None, feed), heads * tokens * width * tokens, seconds)


def bound(
    token_counts: Sequence[int], int8_rate: float, fp32_rate: float, cores: int
) -> dict[str, float]:
    """The fewest CPU-ms a passage can take at these rates (its multiply-adds alone), and the
    passages/s that allows on `cores` fully used cores."""
    projections = sum(encoder_macs(t)[0] for t in token_counts) / len(token_counts)
    attention = sum(encoder_macs(t)[1] for t in token_counts) / len(token_counts)
    ms = 1000 * (projections / (int8_rate * 1e9) + attention / (fp32_rate * 1e9))
    return {"int8_gmacs_per_passage": round(projections / 1e9, 3),
            "fp32_gmacs_per_passage": round(attention / 1e9, 3),
            "min_cpu_ms_per_passage": round(ms, 1),
            "max_passages_per_s": round(cores * 1000 / ms, 1)}  # fmt: skip


def bench_texts(paths: Sequence[Path]) -> list[str]:
    """The passages an ingest of `paths` embeds (same reader and chunker settings)."""
    from conflictdesk.ingest.chunking import iter_chunks
    from conflictdesk.ingest.readers import discover, read_file

    texts = []
    for path, problem in discover(paths):
        if problem is None:
            for doc in read_file(path).documents:
                texts += [c.text for c in iter_chunks(doc.text, max_words=200, overlap=40)]
    return texts


def embedder_ceiling(paths: Sequence[Path], threads: int) -> dict[str, Any]:
    """The shipped embedder alone on the passages of `paths`, and the bound this CPU sets."""
    from conflictdesk.backends.onnx_embedder import from_manifest

    texts = bench_texts(paths)
    embedder = from_manifest(threads=threads, device="cpu")
    embedder.embed(texts[:2])  # load and warm up
    started = time.process_time()
    counts = [len(e.ids) for e in embedder.tokenizer.encode_batch(texts)]
    tokenise = time.process_time() - started
    wall, started = time.perf_counter(), time.process_time()
    embedder.embed(texts)
    cpu, wall = time.process_time() - started, time.perf_counter() - wall
    m = round(sum(counts) / len(counts))
    shapes = ((m, HIDDEN, HIDDEN), (m, HIDDEN, FFN), (m, FFN, HIDDEN))
    int8 = max(int8_gemm_rate(*shape) for shape in shapes)  # the most generous bound
    fp32 = fp32_attention_rate(m)
    return {"passages": len(texts), "tokens_mean": round(float(np.mean(counts)), 1),
            "embedder_passages_per_cpu_s": round(len(texts) / cpu, 1),
            "embedder_passages_per_s": round(len(texts) / wall, 1),
            "embedder_cpu_ms_per_passage": round(1000 * cpu / len(texts), 2),
            "tokenise_cpu_ms_per_passage": round(1000 * tokenise / len(texts), 2),
            "int8_gmacs_per_cpu_s": round(int8, 1), "fp32_gmacs_per_cpu_s": round(fp32, 1),
            "cores": threads, **bound(counts, int8, fp32, threads)}  # fmt: skip
