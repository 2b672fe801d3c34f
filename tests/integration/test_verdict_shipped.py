"""The shipped verdict models (models/verdict): they load verified, read the features this code
computes, and rank two-sided evidence above one-sided evidence."""

from __future__ import annotations

import pytest

from conflictdesk.backends.manifest import models_dir
from conflictdesk.scoring.verdict import FEATURES, load_verdict_models

pytestmark = pytest.mark.integration

TWO_SIDED = [(0.95, 0.03, 0.02), (0.03, 0.95, 0.02), (0.05, 0.05, 0.9)]
ONE_SIDED = [(0.95, 0.03, 0.02), (0.9, 0.05, 0.05), (0.05, 0.05, 0.9)]


@pytest.mark.parametrize("use", ["detect", "ask"])
def test_shipped_verdict_model(use):
    model = load_verdict_models(models_dir())[use]
    assert model.features[: len(FEATURES)] == FEATURES
    assert 0.0 < model.threshold < 1.0 and model.band > 0
    both = model.decide(TWO_SIDED, 3, ["a", "b", None]).probability
    one = model.decide(ONE_SIDED, 3, ["a", "a", None]).probability
    assert both > one
