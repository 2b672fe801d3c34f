"""The embedder-ceiling arithmetic and measurements (conflictdesk.benchmarks.ceiling), the
ingest benchmark's median of repeats, and NaN-guard pruning on a graph that has a guard."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conflictdesk.benchmarks.ceiling import (
    bench_texts,
    bound,
    encoder_macs,
    fp32_attention_rate,
    int8_gemm_rate,
)
from conflictdesk.benchmarks.ingest import median_run, run_ingest, write_folder


def test_encoder_macs_counts_projections_and_attention():
    projections, attention = encoder_macs(173)
    # per layer and token: Q, K, V, output (4 × 384²) and the feed-forward pair (2 × 384 × 1536)
    assert projections == 6 * 173 * (4 * 384 * 384 + 2 * 384 * 1536) == 1_836_711_936
    assert attention == 6 * 2 * 173 * 173 * 384
    assert encoder_macs(10, layers=1, hidden=2, ffn=4) == (10 * (16 + 16), 2 * 100 * 2)


def test_bound_is_macs_over_rates_on_every_core():
    result = bound([100, 300], int8_rate=100.0, fp32_rate=50.0, cores=2)
    projections = (encoder_macs(100)[0] + encoder_macs(300)[0]) / 2
    attention = (encoder_macs(100)[1] + encoder_macs(300)[1]) / 2
    ms = 1000 * (projections / 100e9 + attention / 50e9)
    assert result["min_cpu_ms_per_passage"] == round(ms, 1)
    assert result["max_passages_per_s"] == round(2 * 1000 / ms, 1)
    assert bound([100], 200.0, 50.0, 2)["max_passages_per_s"] > result["max_passages_per_s"]


def test_gemm_rates_are_measured_in_cpu_seconds():
    pytest.importorskip("onnx")
    int8 = int8_gemm_rate(16, 64, 64, seconds=0.03)
    fp32 = fp32_attention_rate(16, heads=2, seconds=0.03)
    assert math.isfinite(int8) and int8 > 0.01
    assert math.isfinite(fp32) and fp32 > 0.01


def test_bench_texts_are_the_passages_an_ingest_stores(tmp_path):
    folder = write_folder(tmp_path / "docs", 4, 30)
    texts = bench_texts([folder])
    spec = {"paths": [str(folder)], "db": str(tmp_path / "i.db"), "embed": False,
            "max_bytes": 10**7}  # fmt: skip
    assert len(texts) == run_ingest(spec)["passages"] > 4
    words = [len(t.split()) for t in texts]
    assert max(words) <= 200 and sum(words) / len(words) > 100  # the ~150-word passages


def test_median_run_keeps_the_middle_run_and_lists_all():
    runs = [{"passages_per_s": r, "passages_per_cpu_s": r / 2} for r in (50.0, 30.0, 40.0, 60.0)]
    picked = median_run(runs)
    assert picked["passages_per_s"] == 40.0  # the lower middle of four
    assert picked["runs_passages_per_s"] == [50.0, 30.0, 40.0, 60.0]
    assert median_run(runs[:3])["passages_per_s"] == 40.0


def test_pruning_drops_a_guard_and_rewires_its_readers(tmp_path):
    onnx = pytest.importorskip("onnx")
    import onnxruntime as ort
    from onnx import TensorProto, helper

    from conflictdesk.training.embedder_convert import prune_nan_guards

    nodes = [
        helper.make_node("Softmax", ["X"], ["p"], axis=-1),
        helper.make_node("IsNaN", ["p"], ["nan"]),
        helper.make_node("Where", ["nan", "zero", "p"], ["guarded"]),
        helper.make_node("Mul", ["guarded", "two"], ["Y"]),
    ]
    consts = [helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]),
              helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])]  # fmt: skip
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 3])
    graph = helper.make_graph(nodes, "g", [x], [y], consts)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              tmp_path / "g.onnx")  # fmt: skip
    assert prune_nan_guards(tmp_path / "g.onnx", tmp_path / "p.onnx") == 1
    pruned = onnx.load(str(tmp_path / "p.onnx"))
    assert [n.op_type for n in pruned.graph.node] == ["Softmax", "Mul"]
    assert list(pruned.graph.node[1].input) == ["p", "two"]
    feed = {"X": np.arange(6, dtype=np.float32).reshape(2, 3)}
    before = ort.InferenceSession(str(tmp_path / "g.onnx")).run(None, feed)[0]
    after = ort.InferenceSession(str(tmp_path / "p.onnx")).run(None, feed)[0]
    assert np.array_equal(before, after)
