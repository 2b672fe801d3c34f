"""The type model's subjectivity probe reads one embedder's vectors; with another embedder
the classify stage runs the rule classifier and its method says why."""

from __future__ import annotations

import numpy as np

from conflictdesk.analysis.evidence_signals import SubjectivityProbe
from conflictdesk.analysis.pipeline import default_type_model, probe_mismatch


def test_probe_mismatch_names_both_embedders():
    model = default_type_model()
    if model.probe is None:  # a model without the probe reads any embedder
        assert probe_mismatch(model, "fake-embedder") is None
        return
    assert probe_mismatch(model, f"{model.probe.embedder}@0123abcd") is None
    why = probe_mismatch(model, "fake-embedder")
    assert why and model.probe.embedder in why and "fake-embedder" in why


def test_no_model_or_no_probe_never_mismatches():
    assert probe_mismatch(None, "anything") is None
    probe = SubjectivityProbe("minilm", np.zeros(4), 0.0)
    assert float(probe.score(np.zeros(4))[0]) == 0.5
