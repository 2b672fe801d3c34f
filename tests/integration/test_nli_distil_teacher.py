"""Distillation's teacher labels (conflictdesk/training/nli_distil.py) from the real shipped
MPNet tier: probabilities in the training label order, one cache line per distinct pair, and
a rerun served from the cache without the model."""

from __future__ import annotations

import numpy as np
import pytest

from conflictdesk.backends.onnx_nli import OnnxCrossEncoder
from conflictdesk.training.nli_data import LABEL_ID, NLIExample
from conflictdesk.training.nli_distil import teacher_probabilities

pytestmark = pytest.mark.integration

# Written for this test: a paraphrase, a changed number, and the paraphrase again (one cache row).
ROWS = [
    NLIExample("The ferry leaves the harbour at seven every morning.",
               "The ferry departs at 7 a.m.", LABEL_ID["entailment"], "test"),
    NLIExample("The library holds 40,000 books and a small archive.",
               "The library holds 90,000 books.", LABEL_ID["contradiction"], "test"),
    NLIExample("The ferry leaves the harbour at seven every morning.",
               "The ferry departs at 7 a.m.", LABEL_ID["entailment"], "test"),
]  # fmt: skip


@pytest.fixture(scope="module")
def teacher_dir(mpnet_tier):
    return mpnet_tier[1]


def test_teacher_labels_in_training_order_and_cached(teacher_dir, tmp_path, monkeypatch):
    probs = teacher_probabilities(ROWS, teacher_dir, tmp_path, threads=1, log=lambda _: None)
    assert probs.shape == (3, 3)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    assert probs.argmax(axis=1).tolist() == [r.label for r in ROWS]
    assert np.array_equal(probs[0], probs[2])
    (cache,) = tmp_path.glob("teacher-*.jsonl")
    assert len(cache.read_text("utf-8").splitlines()) == 2

    def refuse(self, pairs):
        raise AssertionError("a cached pair reached the model")

    monkeypatch.setattr(OnnxCrossEncoder, "classify", refuse)
    again = teacher_probabilities(ROWS, teacher_dir, tmp_path, threads=1, log=lambda _: None)
    assert np.allclose(again, probs, atol=1e-6)
