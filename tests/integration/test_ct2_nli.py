"""CT2CrossEncoder on the shipped models/nli/, or on a stand-in built from MiniLM (needs torch)."""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest

from conflictdesk.backends.ct2_nli import CT2CrossEncoder
from conflictdesk.training.artefacts import build_ct2_nli, shipped_entry

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def nli(tmp_path_factory) -> CT2CrossEncoder:
    shipped = shipped_entry("nli")
    if shipped:
        entry, base = shipped
        return CT2CrossEncoder(entry.resolve(base), model_id=entry.name, device="cpu", threads=1)
    if (
        importlib.util.find_spec("torch") is None
        or importlib.util.find_spec("transformers") is None
    ):
        pytest.skip("no models/nli in the manifest and no torch to build a stand-in")
    folder = build_ct2_nli(tmp_path_factory.mktemp("nli") / "ct2")
    return CT2CrossEncoder(folder, model_id="stand-in-nli", device="cpu", threads=1)


PAIRS = [
    ("The meeting was moved to Tuesday.", "The meeting is on Tuesday."),
    ("Vitamin D has no effect on bone density.", "Vitamin D strengthens bones."),
    ("A cat sat on the mat.", "Stock markets fell sharply."),
]


def test_scores_are_distributions(nli):
    scores = nli.classify(PAIRS)
    assert len(scores) == len(PAIRS)
    for score in scores:
        values = list(score.to_json().values())
        assert all(0.0 <= v <= 1.0 for v in values)
        assert sum(values) == pytest.approx(1.0, abs=1e-5)
        assert score.label in ("entailment", "neutral", "contradiction")


def test_batching_and_length_sorting_do_not_change_results(nli):
    together = nli.classify(PAIRS)
    alone = [nli.classify([pair])[0] for pair in PAIRS]
    # int8 activations are quantised per batch, so padding moves results slightly (float32
    # agrees to 1e-6); 0.01 bounds that noise and still catches mis-ordered or mis-masked rows.
    for a, b in zip(together, alone):
        assert np.allclose(list(a.to_json().values()), list(b.to_json().values()), atol=0.01)


def test_long_premise_is_windowed_with_max_evidence(nli):
    filler = "The committee discussed the annual budget and unrelated matters at length. " * 60
    premise = filler + "The bridge was closed on Monday for repairs. " + filler
    before = nli.windows_run
    (long_score,) = nli.classify([(premise, "The bridge was closed on Monday.")])
    windows = nli.windows_run - before
    assert windows >= 3
    # max-evidence: the pair takes the window whose max(entailment, contradiction) is highest
    nli._ensure_loaded()
    each = nli._score_windows(nli._windows(0, premise, "The bridge was closed on Monday."))
    best = each[int(np.argmax(np.maximum(each[:, 0], each[:, 2])))]
    assert np.allclose(best, list(long_score.to_json().values()), atol=1e-5)


def test_overlong_hypothesis_is_cut_with_a_warning(nli):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (score,) = nli.classify([("Short premise.", "word " * 400)])
    assert any("hypothesis of" in str(w.message) for w in caught)
    assert sum(score.to_json().values()) == pytest.approx(1.0, abs=1e-5)


def test_empty_input(nli):
    assert nli.classify([]) == []
