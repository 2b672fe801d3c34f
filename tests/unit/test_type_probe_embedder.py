"""The type model's subjectivity probe reads one embedder's vectors; with another embedder
the classify stage runs the rule classifier and its method says why."""

from __future__ import annotations

import dataclasses

import numpy as np

from conflictdesk.analysis.evidence_signals import SubjectivityProbe
from conflictdesk.analysis.pipeline import default_type_model, probe_mismatch


def _with_probe(embedder: str | None):
    probe = None if embedder is None else SubjectivityProbe(embedder, np.zeros(4), 0.0)
    return dataclasses.replace(default_type_model(), probe=probe)


def test_probe_of_the_same_embedder_matches_whatever_its_digest():
    model = _with_probe("minilm-l6-embedder-int8")
    assert probe_mismatch(model, "minilm-l6-embedder-int8@0123abcd") is None
    assert probe_mismatch(model, "minilm-l6-embedder-int8") is None


def test_probe_of_another_embedder_names_both():
    model = _with_probe("minilm-l6-embedder-int8")
    why = probe_mismatch(model, "fake-embedder")
    assert why is not None
    assert "minilm-l6-embedder-int8" in why and "fake-embedder" in why
    assert model.model_id in why


def test_no_model_or_no_probe_reads_any_embedder():
    assert probe_mismatch(None, "fake-embedder") is None
    assert probe_mismatch(_with_probe(None), "fake-embedder") is None
