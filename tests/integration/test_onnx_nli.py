"""The ONNX Runtime NLI back-end (the MPNet tier) on a real ONNX int8 artefact: the tiny
randomly initialised MPNet in tests/fixtures/nli_mpnet_tiny, exported by the product's export
code (its README says how). No torch at test time."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conflictdesk.backends.cascade_nli import CascadeNLI
from conflictdesk.backends.onnx_nli import CONFIG_FILE, MODEL_FILE, OnnxCrossEncoder
from conflictdesk.errors import ModelIntegrityError, ModelMissingError
from conflictdesk.types import NLIScores
from tests.fakes import FakeNLI

pytestmark = pytest.mark.integration

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "nli_mpnet_tiny"
EXPECTED = json.loads((FIXTURE / "expected.json").read_text("utf-8"))
PAIRS = [(row["premise"], row["hypothesis"]) for row in EXPECTED]


@pytest.fixture(scope="module")
def encoder() -> OnnxCrossEncoder:
    return OnnxCrossEncoder(FIXTURE, model_id="tiny-mpnet", device="cpu", threads=1)


def as_array(scores: list[NLIScores]) -> np.ndarray:
    return np.array([[s.entailment, s.neutral, s.contradiction] for s in scores])


def test_fixture_is_small():
    assert sum(p.stat().st_size for p in FIXTURE.iterdir()) <= 2_000_000


def test_int8_onnx_matches_the_torch_probabilities_recorded_at_export(encoder):
    probs = as_array(encoder.classify(PAIRS))
    expected = np.array([row["torch_fp32"] for row in EXPECTED])
    assert probs.shape == (4, 3)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    assert np.abs(probs - expected).max() < 0.03  # int8 weights and activations
    assert (probs.argmax(1) == expected.argmax(1)).all()


def test_scores_do_not_depend_on_batch_mates(encoder):
    together = encoder.classify(PAIRS)
    alone = [encoder.classify([pair])[0] for pair in PAIRS]
    assert together == alone


def test_a_long_premise_is_windowed_and_one_window_decides():
    encoder = OnnxCrossEncoder(FIXTURE, device="cpu", threads=1, max_length=64)
    premise = " ".join(f"Sentence {i} says the bridge is old." for i in range(40))
    before = encoder.windows_run
    (scores,) = encoder.classify([(premise, "The bridge is old.")])
    assert encoder.windows_run - before > 3
    assert abs(scores.entailment + scores.neutral + scores.contradiction - 1.0) < 1e-5


def test_config_carries_labels_temperature_length_and_band(encoder):
    assert encoder.max_length == 256 and encoder.cascade_band == 0.9
    assert sorted(encoder.config["labels"]) == ["contradiction", "entailment", "neutral"]


def test_cascade_over_the_real_onnx_tier(encoder):
    fast = FakeNLI({PAIRS[0]: NLIScores(0.98, 0.01, 0.01)})  # others: FakeNLI's 0.85-0.9
    cascade = CascadeNLI(fast, encoder, band=0.95)
    scores = cascade.classify(PAIRS)
    assert scores[0] == NLIScores(0.98, 0.01, 0.01)
    assert scores[1:] == encoder.classify(PAIRS[1:])
    assert cascade.routed == {"fast": 1, "accurate": 3}


def test_missing_or_wrong_files_are_errors(tmp_path):
    folder = tmp_path / "m"
    shutil.copytree(FIXTURE, folder)
    (folder / MODEL_FILE).unlink()
    with pytest.raises(ModelMissingError, match="train_nli_mpnet.py"):
        OnnxCrossEncoder(folder).classify(PAIRS[:1])
    shutil.copy(FIXTURE / MODEL_FILE, folder / MODEL_FILE)
    config = json.loads((folder / CONFIG_FILE).read_text())
    (folder / CONFIG_FILE).write_text(json.dumps({**config, "labels": ["yes", "no", "maybe"]}))
    with pytest.raises(ModelIntegrityError, match="labels"):
        OnnxCrossEncoder(folder).classify(PAIRS[:1])


def test_the_onnx_path_never_imports_torch():
    code = (
        "import sys; from conflictdesk.backends.onnx_nli import OnnxCrossEncoder;"
        f"OnnxCrossEncoder({str(FIXTURE)!r}, threads=1).classify([('a b', 'c d')]);"
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_benchmark_pairs_have_the_length_asked_for(encoder):
    from conflictdesk.benchmarks.mpnet_tier import pairs_of_length

    pairs = pairs_of_length(encoder.plain_tokenizer, 128, 3)
    lengths = [len(encoder.plain_tokenizer.encode(*pair).ids) for pair in pairs]
    assert len(set(pairs)) == 3 and all(100 <= n <= 128 for n in lengths)


def test_cascade_benchmark_reports_the_share_each_band_escalates(encoder):
    from conflictdesk.benchmarks.mpnet_tier import cascade_rates

    rows = cascade_rates(FakeNLI(), encoder, PAIRS, [0.5, 0.95])  # FakeNLI's top-p: 0.85-0.9
    assert [row["escalated"] for row in rows] == [0.0, 1.0]
    assert all(row["pairs_per_s"] > 0 for row in rows)


def test_compare_loads_minilm_mpnet_and_cascade_specs():
    from conflictdesk.backends.ct2_nli import CT2CrossEncoder
    from conflictdesk.training.nli_compare import load_model

    minilm = Path(__file__).resolve().parents[2] / "models" / "nli"
    assert isinstance(load_model(str(minilm), 1), CT2CrossEncoder)
    assert isinstance(load_model(str(FIXTURE), 1), OnnxCrossEncoder)
    stored = load_model(f"cascade:{minilm},{FIXTURE}", 1)
    assert isinstance(stored, CascadeNLI) and stored.band == 0.9  # the fixture's stored band
    everything = load_model(f"cascade:{minilm},{FIXTURE},1.01", 1)
    everything.classify(PAIRS)
    assert everything.routed == {"fast": 0, "accurate": len(PAIRS)}
