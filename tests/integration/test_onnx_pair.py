"""OnnxPairClassifier on the shipped models/pair/, or on a random int8 stand-in (needs torch)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from conflictdesk.analysis.pair_features import (
    NLI_LAYOUT,
    STANCE_LAYOUTS,
    layout_features,
    pair_features,
    stance_block,
    stance_request,
)
from conflictdesk.backends.onnx_pair import OnnxPairClassifier
from conflictdesk.errors import UsageError
from conflictdesk.training.artefacts import build_pair_onnx, shipped_entry
from conflictdesk.types import PAIR_TYPES

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> OnnxPairClassifier:
    shipped = shipped_entry("pair")
    if shipped:
        entry, base = shipped
        return OnnxPairClassifier(entry.resolve(base), model_id=entry.name, device="cpu", threads=1)
    if importlib.util.find_spec("torch") is None:
        pytest.skip("no models/pair in the manifest and no torch to build a stand-in")
    folder = build_pair_onnx(tmp_path_factory.mktemp("pair") / "pair")
    return OnnxPairClassifier(folder, model_id="stand-in-pair", device="cpu", threads=1)


def features(pair: OnnxPairClassifier, n: int, dim: int = 384, seed: int = 0) -> np.ndarray:
    """Random unit embeddings (and NLI distributions when the model's layout has them)."""
    rng = np.random.default_rng(seed)
    e_i = rng.normal(size=(n, dim)).astype(np.float32)
    e_j = rng.normal(size=(n, dim)).astype(np.float32)
    e_i /= np.linalg.norm(e_i, axis=1, keepdims=True)
    e_j /= np.linalg.norm(e_j, axis=1, keepdims=True)
    if pair.layout == NLI_LAYOUT:
        return pair_features(e_i, e_j, *rng.dirichlet(np.ones(3), size=(2, n)))
    if pair.layout in STANCE_LAYOUTS:
        requests = [stance_request("Is X big?", "a", "b")] * n
        stance = stance_block(requests, rng.dirichlet(np.ones(3), size=2 * n))
        return layout_features(pair.layout, e_i, e_j, stance=stance)
    return pair_features(e_i, e_j)


def test_two_heads_give_distributions(pair):
    scores = pair.classify(features(pair, 5))
    assert len(scores) == 5
    for score in scores:
        assert 0.0 <= score.conflict <= 1.0
        assert len(score.types) == len(PAIR_TYPES)
        assert sum(score.types) == pytest.approx(1.0, abs=1e-3)
        assert 0.5 <= score.confidence <= 1.0
        assert score.pair_type in PAIR_TYPES


def test_int8_graph_and_tau_c(pair):
    import onnx

    graph = onnx.load(str(pair.model_dir / "pair_int8.onnx")).graph
    assert any("Integer" in node.op_type or "Quant" in node.op_type for node in graph.node)
    assert 0.5 <= pair.tau_c <= 1.0


def test_rows_are_independent(pair):
    batch = features(pair, 4, seed=1)
    together = pair.classify(batch)
    alone = [pair.classify(batch[i : i + 1])[0] for i in range(4)]
    for a, b in zip(together, alone):
        assert a.conflict == pytest.approx(b.conflict, abs=1e-4)


def test_wrong_feature_width_is_refused(pair):
    with pytest.raises(UsageError, match="features must be"):
        pair.classify(np.zeros((2, 100), dtype=np.float32))
    assert pair.classify(np.zeros((0, pair.feature_dim), dtype=np.float32)) == []
