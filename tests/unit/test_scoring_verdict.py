"""The question-level verdict model: its features, decision, artefact, fitting, and its use by
`detect` (opt-in) without touching the paper's D⁺ / D⁻."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from conflictdesk.backends.manifest import Manifest, entry_for
from conflictdesk.errors import ModelIntegrityError, UsageError
from conflictdesk.scoring import detect, verdict
from conflictdesk.scoring.verdict import FEATURES, VerdictModel, evidence_features
from conflictdesk.training.verdict import Rows, choose, fit_verdict

FEATURE = {name: i for i, name in enumerate(FEATURES)}
DOCS = [
    "In 2010 Broken Bow had 3559 residents.",
    "Broken Bow had 10000 residents in 2011.",
    "Nebraska is a state in the Midwest.",
]
CLAIM = "Broken Bow had 3559 residents in 2010."


def rule_model(bias: float, threshold: float = 0.5, band: float = 0.1) -> VerdictModel:
    """P(conflict) = sigmoid(4 * rule + bias): the paper's rule, shifted by `bias`."""
    weights = np.zeros(len(FEATURES))
    weights[FEATURE["rule"]] = 4.0
    return VerdictModel("test-verdict", np.zeros(len(FEATURES)), np.ones(len(FEATURES)),
                        weights, bias, threshold, band)  # fmt: skip


def test_features_of_a_worked_example():
    judged = [(0.9, 0.05, 0.05), (0.1, 0.8, 0.1), (0.2, 0.1, 0.7)]
    x = evidence_features(judged, documents=4)
    assert x[FEATURE["log_documents"]] == pytest.approx(math.log(5))
    assert x[FEATURE["log_judged"]] == pytest.approx(math.log(4))
    assert x[FEATURE["top_contradicts"]] == pytest.approx(0.8)
    assert x[FEATURE["second_contradicts"]] == pytest.approx(0.1)
    assert x[FEATURE["top_supports"]] == pytest.approx(0.9)
    assert x[FEATURE["second_supports"]] == pytest.approx(0.2)
    assert x[FEATURE["mean_contradicts"]] == pytest.approx(0.95 / 3)
    assert x[FEATURE["support_x_contradict"]] == pytest.approx(0.9 * 0.8)
    assert (x[FEATURE["n_supports"]], x[FEATURE["n_contradicts"]], x[FEATURE["rule"]]) == (1, 1, 1)


def test_one_document_cannot_conflict_with_itself():
    x = evidence_features([(0.5, 0.45, 0.05)], documents=1)
    assert x[FEATURE["support_x_contradict"]] == 0.0
    assert x[FEATURE["rule"]] == 0.0
    empty = evidence_features([], documents=3)
    assert empty[FEATURE["top_supports"]] == 0.0 and empty[FEATURE["log_judged"]] == 0.0


def test_decision_threshold_and_uncertain_band():
    both_sides = [(0.9, 0.05, 0.05), (0.1, 0.8, 0.1)]
    one_side = [(0.9, 0.05, 0.05), (0.8, 0.1, 0.1)]
    model = rule_model(bias=-2.0)  # rule: sigmoid(2) = 0.88; no rule: sigmoid(-2) = 0.12
    assert model.decide(both_sides, 2).conflict is True
    assert model.decide(one_side, 2).conflict is False
    assert model.decide(both_sides, 2).uncertain is False
    near = rule_model(bias=-4.0, threshold=0.45)  # rule: P = 0.5, within 0.1 of 0.45
    decision = near.decide(both_sides, 2)
    assert decision.conflict is True and decision.uncertain is True
    assert decision.to_json()["probability"] == pytest.approx(0.5)


def test_weights_round_trip_and_refuse_other_features():
    model = rule_model(bias=-2.0)
    again = VerdictModel.from_json(json.loads(json.dumps(model.to_json())), "again")
    x = evidence_features([(0.9, 0.05, 0.05), (0.1, 0.8, 0.1)], 2)
    assert again.probability(x) == pytest.approx(model.probability(x))
    blob = model.to_json() | {"features": ["something", "else"]}
    with pytest.raises(ModelIntegrityError, match="train_verdict"):
        VerdictModel.from_json(blob, "bad")


def test_load_verifies_the_manifest_entry(tmp_path):
    (tmp_path / "verdict").mkdir()
    path = tmp_path / "verdict" / "verdict.json"
    path.write_text(json.dumps({"models": {"detect": rule_model(-2.0).to_json()}}), "utf-8")
    manifest = Manifest.load(tmp_path / "manifest.json")
    manifest.upsert(entry_for(verdict.MODEL_NAME, "verdict", path, licence="MIT", source="test",
                              rebuild=verdict.REBUILD, base=tmp_path))  # fmt: skip
    manifest.save()
    models = verdict.load_verdict_models(tmp_path)
    assert models["detect"].model_id.startswith(f"{verdict.MODEL_NAME}@")
    path.write_text(path.read_text("utf-8").replace("0.5", "0.6"), "utf-8")
    with pytest.raises(ModelIntegrityError):
        verdict.load_verdict_models(tmp_path)


def _rows(name: str, seed: int) -> Rows:
    """Claims whose conflict is exactly 'one document leans SUPPORTS and another CONTRADICTS'
    with P(CONTRADICTS) above 0.6: a weak contradiction (0.45) is no conflict."""
    rng = np.random.default_rng(seed)
    claims = []
    for _ in range(80):
        strong = bool(rng.random() < 0.4)
        contra = 0.8 if strong else 0.45
        judged = [(0.85, 0.1, 0.05), (0.5 - contra / 2, contra, 0.5 - contra / 2)]
        claims.append((judged, 2, strong))
    return Rows.build(name, claims)


def test_fitting_learns_a_rule_the_paper_rule_misses():
    sets = [_rows("a", 0), _rows("b", 1)]
    assert all(s.rule.all() for s in sets)  # the paper's rule calls every claim a conflict
    model, choices = fit_verdict(sets, "fitted")
    assert choices[0].score == pytest.approx(1.0)
    for s in sets:
        assert np.array_equal(model.probability(s.x) >= model.threshold, s.gold)
    assert [c.score for c in choose(sets)] == sorted((c.score for c in choices), reverse=True)


def test_detect_with_the_verdict_model_keeps_the_papers_sets(backends, monkeypatch):
    monkeypatch.setattr(
        "conflictdesk.scoring.pipeline.default_verdict_models",
        lambda: {"detect": rule_model(bias=-6.0)},  # P(conflict) at most 0.12: never
    )
    by_rule = detect(CLAIM, DOCS, backends)
    by_model = detect(CLAIM, DOCS, backends, verdict="model")
    assert by_rule.conflict is True and by_rule.decision is None
    assert by_model.conflict is False  # the model's call ...
    assert by_model.claim.conflict is True  # ... while D+ and D- are still both non-empty
    assert by_model.claim.supporting == (0,) and by_model.claim.contradicting == (1,)
    assert "conflict: verdict model test-verdict" in by_model.method
    assert by_model.to_json()["decision"]["conflict"] is False
    with pytest.raises(UsageError, match="verdict"):
        detect(CLAIM, DOCS, backends, verdict="vote")


def test_answer_groups_and_features():
    answers = ["Aravali Range", "the Aravali range.", "1909", None, "Range"]
    assert verdict.answer_groups(answers) == [3, 1]  # "Range" is contained in the first
    x = evidence_features([(0.9, 0.05, 0.05)] * 5, 5, answers)
    assert len(x) == len(FEATURES) + len(verdict.ANSWER_FEATURES)
    extra = dict(zip(verdict.ANSWER_FEATURES, x[len(FEATURES) :]))
    assert extra["log_answers"] == pytest.approx(math.log(3))
    assert extra["answered_share"] == pytest.approx(4 / 5)
    assert extra["top_answer_share"] == pytest.approx(3 / 4)
    assert extra["log_other_answers"] == pytest.approx(math.log(2))


def test_a_model_that_reads_answers_splits_on_them():
    names = FEATURES + verdict.ANSWER_FEATURES
    weights = np.zeros(len(names))
    weights[names.index("log_other_answers")] = 8.0
    model = VerdictModel("answers", np.zeros(len(names)), np.ones(len(names)), weights, -2.0,
                         0.5, 0.1, names)  # fmt: skip
    judged = [(0.9, 0.05, 0.05), (0.9, 0.05, 0.05)]
    assert model.decide(judged, 2, ["38", "40"]).conflict is True
    assert model.decide(judged, 2, ["38", "38"]).conflict is False
    again = VerdictModel.from_json(model.to_json(), "again")
    assert again.features == names and again.reads_answers
