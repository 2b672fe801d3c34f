"""The shipped MPNet tier (models/nli_mpnet, ONNX Runtime int8, manifest role `nli-accurate`)
on its real artefact: manifest integrity, the quantised graph, clear cases any usable NLI model
gets right, and the cascade the registry builds from it. Skips when the tier is not built."""

from __future__ import annotations

import json

import pytest

from conflictdesk.backends.cascade_nli import CascadeNLI
from conflictdesk.backends.manifest import Manifest, models_dir
from conflictdesk.backends.nli_tiers import nli_tier
from conflictdesk.backends.onnx_nli import CONFIG_FILE, MODEL_FILE, OnnxCrossEncoder
from conflictdesk.config import load_settings

pytestmark = pytest.mark.integration

# Written for this test (no data set's text): a paraphrase, a changed number, an unrelated fact.
CLEAR = [
    ("The ferry leaves the harbour at seven every morning.", "The ferry departs at 7 a.m.", 0),
    ("The library holds 40,000 books and a small archive.", "The library holds 90,000 books.", 2),
    (
        "The orchard was planted by the first owner in 1911.",
        "Tennis courts need regular rolling.",
        1,
    ),
]


@pytest.fixture(scope="module")
def tier(mpnet_tier):
    return mpnet_tier


def test_artefact_is_one_int8_graph_within_the_size_limit(tier):
    onnx = pytest.importorskip("onnx")
    entry, folder = tier
    assert sum(p.stat().st_size for p in folder.iterdir()) <= 120_000_000
    ops = {node.op_type for node in onnx.load(str(folder / MODEL_FILE)).graph.node}
    assert {"MatMulInteger", "MatMulNBits"} <= ops
    config = json.loads((folder / CONFIG_FILE).read_text("utf-8"))
    assert config["temperature"] > 0 and entry.extra["agreement_int8_vs_torch"] >= 0.95


def test_clear_cases_are_labelled_right(tier):
    _entry, folder = tier
    encoder = OnnxCrossEncoder(folder, model_id="shipped-mpnet", device="cpu", threads=1)
    scores = encoder.classify([(p, h) for p, h, _ in CLEAR])
    for (_p, _h, gold), s in zip(CLEAR, scores, strict=True):
        probs = (s.entailment, s.neutral, s.contradiction)
        assert max(range(3), key=probs.__getitem__) == gold, (gold, probs)


def test_the_registry_routes_through_the_cascade_when_the_band_is_on(tier):
    from conflictdesk.app import verified_backends

    entry, _folder = tier
    settings = load_settings(threads=1, device="cpu")
    nli = verified_backends(settings, ("nli",)).nli
    band = float(entry.extra["cascade_band"])
    _model_id, note = nli_tier(settings, Manifest.load(models_dir() / "manifest.json"), "fast")
    if band <= 0:
        assert not isinstance(nli, CascadeNLI) and "off" in note
        return
    assert isinstance(nli, CascadeNLI) and nli.band == band and "cascade" in note
    assert nli.rule == entry.extra.get("cascade_rule", "replace") == nli.accurate.cascade_rule
    nli.classify([(p, h) for p, h, _ in CLEAR])
    assert sum(nli.routed.values()) == len(CLEAR)
    off = verified_backends(load_settings(threads=1, device="cpu", nli_band=0.0), ("nli",)).nli
    assert not isinstance(off, CascadeNLI)
