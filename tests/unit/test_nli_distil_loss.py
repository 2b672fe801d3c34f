"""The distillation loss (conflictdesk/training/nli_distil.py): gold cross-entropy at weight 0,
the teacher's cross-entropy at weight 1, their mix between. Needs torch (the train extra)."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from conflictdesk.training.nli_distil import distillation_loss

LOGITS = torch.tensor([[2.0, 0.0, -1.0], [0.0, 1.0, 0.5]])
GOLD = torch.tensor([0, 2])
SOFT = torch.tensor([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])


def test_weight_zero_is_the_gold_cross_entropy():
    expected = torch.nn.functional.cross_entropy(LOGITS, GOLD)
    assert torch.isclose(distillation_loss(LOGITS, GOLD, SOFT, 0.0), expected)


def test_weight_one_is_the_teachers_cross_entropy():
    log_p = torch.log_softmax(LOGITS, dim=-1)
    expected = -(0.5 * log_p[0, 0] + 0.5 * log_p[0, 1] + log_p[1, 2]) / 2
    assert torch.isclose(distillation_loss(LOGITS, GOLD, SOFT, 1.0), expected)


def test_mix_lies_between_and_one_hot_teacher_equals_gold():
    hard = distillation_loss(LOGITS, GOLD, SOFT, 0.0).item()
    soft = distillation_loss(LOGITS, GOLD, SOFT, 1.0).item()
    half = distillation_loss(LOGITS, GOLD, SOFT, 0.5).item()
    assert math.isclose(half, (hard + soft) / 2, rel_tol=1e-6)
    one_hot = torch.nn.functional.one_hot(GOLD, 3).float()
    assert torch.isclose(distillation_loss(LOGITS, GOLD, one_hot, 0.7),
                         distillation_loss(LOGITS, GOLD, SOFT, 0.0))  # fmt: skip
