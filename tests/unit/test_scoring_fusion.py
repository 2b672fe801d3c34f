"""The fusion labeller: answer-aware reading, the feature vector, the regression and its use
through label_claims."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from conflictdesk.errors import CapabilityError, ModelIntegrityError
from conflictdesk.scoring.fusion import (
    FEATURES,
    SPLIT_EXCLUDED,
    FusionModel,
    fit_binary,
    fit_binary_temperature,
    fit_logistic,
    fit_split_regression,
    fit_temperature,
    pair_features,
    reworded_claim,
    softmax,
)
from conflictdesk.scoring.label import label_claims
from conflictdesk.scoring.reading import answer_kind, frame_claim, read_document
from conflictdesk.types import Document, NLIScores, Relation
from tests.fakes import fake_backends

CLAIM = "The answer to the question When was the Quarry Bridge opened? is 1931."


def test_template_claim_is_framed_as_question_and_answer():
    frame = frame_claim(CLAIM)
    assert frame.context == "When was the Quarry Bridge opened?"
    assert frame.answers == ("1931",) and frame.kind == "year"
    hedged = frame_claim("The answer to the question Who built it? is Ann Lee or Bo Tan.")
    assert hedged.answers == ("Ann Lee", "Bo Tan") and hedged.kind == "name"


def test_free_claim_uses_its_own_values():
    frame = frame_claim("The dam holds 40 million cubic metres of water.")
    assert frame.kind == "number" and frame.answers == ("40",)
    assert frame_claim("Ice is cold.").kind == "text"


@pytest.mark.parametrize(
    ("answer", "kind"), [("1931", "year"), ("12 May 1931", "year"), ("3,559 people", "number"),
                         ("Ann Lee", "name"), ("blue", "text")],
)  # fmt: skip
def test_answer_kind(answer, kind):
    assert answer_kind(answer) == kind


def test_reading_finds_another_value_in_the_answer_bearing_sentence():
    frame = frame_claim(CLAIM)
    other = read_document(frame, "Traffic is heavy. The Quarry Bridge was opened in 1928.")
    assert other.key_sentence == "The Quarry Bridge was opened in 1928."
    assert other.answer_in_document == 0.0 and other.other_value_in_key == 1.0
    assert other.question_share_key == 1.0
    same = read_document(frame, "The Quarry Bridge was opened in 1931 by the mayor.")
    assert same.answer_in_key == 1.0 and same.other_value_in_key == 0.0
    unrelated = read_document(frame, "Apples grow on trees in the orchard.")
    assert unrelated.question_share_document == 0.0


def test_pair_features_shape_and_requests():
    seen: list[tuple[str, str]] = []

    def classify(requests):
        seen.extend(requests)
        return {r: NLIScores(0.2, 0.5, 0.3) for r in requests}

    text = "The Quarry Bridge was opened in 1928. It is long."
    x = pair_features([(CLAIM, text)], classify)
    assert x.shape == (1, len(FEATURES))
    # the document against the claim as written, then as its question and answer
    assert seen == [(text, CLAIM), (text, "When was the Quarry Bridge opened? 1931.")]
    assert x[0, FEATURES.index("doc_contra")] == pytest.approx(0.3)
    assert x[0, FEATURES.index("qa_contra")] == pytest.approx(0.3)


def test_only_answer_form_claims_are_reworded():
    assert reworded_claim(CLAIM) == "When was the Quarry Bridge opened? 1931."
    assert reworded_claim("The answer to the question Who built it? is Ana Brill and Tessel.") == (
        "Who built it? Ana Brill and Tessel."
    )
    free = "The Quarry Bridge opened in 1931."
    assert reworded_claim(free) == free


def test_the_split_regression_does_not_read_the_claim_as_written():
    """The encoder's scores of the training wording go to the SUPPORTS decision only: the
    regression's weights there are 0, so they cannot move P(CONTRADICTS | not SUPPORTS)."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=(400, len(FEATURES)))
    y = (x[:, FEATURES.index("doc_contra")] + x[:, FEATURES.index("qa_contra")] > 0).astype(float)
    mean, scale, w, b = fit_split_regression(x, y, l2=1e-4)
    excluded = [FEATURES.index(name) for name in SPLIT_EXCLUDED]
    assert np.all(w[excluded] == 0) and np.all(mean[excluded] == 0)
    assert np.all(scale[excluded] == 1)
    assert w[FEATURES.index("qa_contra"), 0] > 1.0  # the reworded score carries the signal
    model = FusionModel("split@1", mean, scale, w, b, 1.0, structure="split")
    moved = x.copy()
    moved[:, FEATURES.index("doc_contra")] += 5.0
    assert np.allclose(model.contradicts(moved), model.contradicts(x))


def test_logistic_regression_learns_a_separable_rule_and_round_trips(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, len(FEATURES)))
    y = np.argmax(x[:, :3], axis=1)  # the class is the largest of the first three features
    mean, scale, w, b = fit_logistic(x, y, steps=800)
    model = FusionModel("m@1", mean, scale, w, b, fit_temperature((x - mean) / scale @ w + b, y))
    accuracy = float((model.probabilities(x).argmax(axis=1) == y).mean())
    assert accuracy > 0.9
    path = tmp_path / "fusion.json"
    path.write_text(json.dumps(model.to_json()))
    again = FusionModel.load(path, "m@1")
    assert np.allclose(again.probabilities(x[:5]), model.probabilities(x[:5]), atol=1e-4)
    data = model.to_json() | {"features": ["other"]}
    path.write_text(json.dumps(data))
    with pytest.raises(ModelIntegrityError):
        FusionModel.load(path, "m@1")


def test_softmax_rows_sum_to_one():
    p = softmax(np.array([[1000.0, 0.0, -1000.0], [0.0, 0.0, 0.0]]))
    assert np.allclose(p.sum(axis=1), 1.0) and p[0, 0] == pytest.approx(1.0)


def contradiction_model() -> FusionModel:
    """A hand-set model that follows the answer features: answer present → SUPPORTS, another
    value in the key sentence → CONTRADICTS, else IRRELEVANT."""
    w = np.zeros((len(FEATURES), 3))
    w[FEATURES.index("answer_in_key"), 0] = 4.0
    w[FEATURES.index("other_value_in_key"), 1] = 4.0
    b = np.array([-2.0, -2.0, 0.0])
    return FusionModel("hand@1", np.zeros(len(FEATURES)), np.ones(len(FEATURES)), w, b, 1.0)


def test_label_claims_with_fusion_uses_the_model_and_says_so():
    backends = fake_backends()
    backends = type(backends)(**{**backends.__dict__, "fusion": contradiction_model()})
    docs = [Document("The Quarry Bridge was opened in 1931."),
            Document("The Quarry Bridge was opened in 1928."),
            Document("The Quarry Bridge is painted green.")]  # fmt: skip
    labelling = label_claims([CLAIM], docs, backends, labeller="fusion")
    relations = [j.relation for j in labelling.judgments[0]]
    assert relations == [Relation.SUPPORTS, Relation.CONTRADICTS, Relation.IRRELEVANT]
    assert labelling.method.startswith("fusion(hand@1 over nli(")
    assert all(j.labeller == "fusion" for j in labelling.judgments[0])


def test_fusion_without_weights_is_a_clear_error():
    with pytest.raises(CapabilityError, match="fusion"):
        label_claims([CLAIM], [Document("The Quarry Bridge opened in 1931.")], fake_backends(),
                     labeller="fusion")  # fmt: skip


def test_decision_offsets_round_trip_and_older_files_load_with_none(tmp_path):
    model = contradiction_model()
    shifted = FusionModel(*[getattr(model, f) for f in ("model_id", "mean", "scale", "weights",
                                                        "bias", "temperature")], (0.0, 0.5, 0.0))  # fmt: skip
    path = tmp_path / "fusion.json"
    path.write_text(json.dumps(shifted.to_json()))
    assert FusionModel.load(path, "m@1").offsets == (0.0, 0.5, 0.0)
    older = {k: v for k, v in shifted.to_json().items() if k != "offsets"}
    path.write_text(json.dumps(older))
    assert FusionModel.load(path, "m@1").offsets == (0.0, 0.0, 0.0)


def test_label_claims_with_fusion_applies_the_decision_offsets():
    base = contradiction_model()
    fields = [getattr(base, f) for f in ("model_id", "mean", "scale", "weights", "bias")]
    backends = fake_backends()
    docs = [Document("The Quarry Bridge is painted green.")]  # P(IRRELEVANT) largest

    def relation(offsets):
        fusion = FusionModel(*fields, 1.0, offsets)
        with_model = type(backends)(**{**backends.__dict__, "fusion": fusion})
        judgment = label_claims([CLAIM], docs, with_model, labeller="fusion").judgments[0][0]
        return judgment.relation, judgment.confidence, judgment.probabilities

    plain, shifted = relation((0.0, 0.0, 0.0)), relation((0.0, 3.0, 0.0))
    assert plain[0] is Relation.IRRELEVANT and shifted[0] is Relation.CONTRADICTS
    assert plain[2] == shifted[2]  # same calibrated probabilities
    assert shifted[1] == pytest.approx(shifted[2][1])  # confidence of the chosen relation


def split_model(threshold: float = 0.5) -> FusionModel:
    """A hand-set "split" model: P(CONTRADICTS | not SUPPORTS) rises with other_value_in_key."""
    w = np.zeros((len(FEATURES), 1))
    w[FEATURES.index("other_value_in_key"), 0] = 4.0
    return FusionModel("split@1", np.zeros(len(FEATURES)), np.ones(len(FEATURES)), w,
                       np.array([-2.0]), 2.0, structure="split", threshold=threshold)  # fmt: skip


def split_rows(encoder: list[tuple[float, float, float]], other_value: list[float]) -> np.ndarray:
    x = np.zeros((len(encoder), len(FEATURES)))
    x[:, :3] = encoder
    x[:, FEATURES.index("other_value_in_key")] = other_value
    return x


def test_split_keeps_the_encoders_supports_and_thresholds_the_rest():
    model = split_model(threshold=0.5)
    x = split_rows([(0.5, 0.4, 0.1), (0.1, 0.8, 0.1), (0.1, 0.1, 0.8), (0.1, 0.8, 0.1)],
                   [1.0, 0.0, 1.0, 1.0])  # fmt: skip
    # regression output sigmoid(4·v − 2): 0.12 without another value, 0.88 with one
    assert model.relations(x).tolist() == [0, 2, 1, 1]
    p = model.probabilities(x)
    assert np.allclose(p.sum(axis=1), 1.0)
    assert np.allclose(p[:, 0], x[:, 0])  # P(SUPPORTS) is the encoder's
    # the temperature (2.0) calibrates the probabilities, not the decision
    assert p[2, 1] / (p[2, 1] + p[2, 2]) == pytest.approx(1 / (1 + np.exp(-1.0)))
    assert split_model(threshold=0.9).relations(x).tolist() == [0, 2, 2, 2]


def test_split_round_trips_and_unknown_structures_are_refused(tmp_path):
    model = split_model(threshold=0.3)
    path = tmp_path / "fusion.json"
    path.write_text(json.dumps(model.to_json()))
    again = FusionModel.load(path, "split@1")
    assert (again.structure, again.threshold) == ("split", 0.3)
    x = split_rows([(0.1, 0.8, 0.1)], [0.4])
    assert np.allclose(again.probabilities(x), model.probabilities(x))
    path.write_text(json.dumps(model.to_json() | {"structure": "tree"}))
    with pytest.raises(ModelIntegrityError):
        FusionModel.load(path, "split@1")


def test_binary_regression_learns_a_separable_rule():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(500, 4))
    y = (x[:, 2] > 0).astype(float)
    mean, scale, w, b = fit_binary(x, y, steps=600)
    assert w.shape == (4, 1) and b.shape == (1,)
    predicted = (((x - mean) / scale) @ w + b)[:, 0] > 0
    assert float((predicted == (y == 1)).mean()) > 0.95
    logits = (((x - mean) / scale) @ w + b)[:, 0]
    assert 0.5 <= fit_binary_temperature(logits, y) <= 3.0


def test_fusion_labels_answer_form_claims_and_leaves_others_to_the_encoder():
    backends = fake_backends()
    backends = type(backends)(**{**backends.__dict__, "fusion": contradiction_model()})
    other = "Quarry Bridge opened in 1931."
    docs = [Document("The Quarry Bridge was opened in 1931.")]
    labelling = label_claims([CLAIM, other], docs, backends, labeller="fusion")
    assert [row[0].labeller for row in labelling.judgments] == ["fusion", "nli"]
    assert "1 of 2 labelled by the encoder alone" in labelling.method


def test_a_thousands_separator_does_not_split_an_answer():
    def answers(a: str) -> tuple[str, ...]:
        return frame_claim(f"The answer to the question How many? is {a}.").answers

    assert answers("3,559 people") == ("3,559 people",)
    assert answers("1,234,567") == ("1,234,567",)
    assert answers("Paris, Lyon or Nice") == ("Paris", "Lyon", "Nice")
    assert answers("12,5") == ("12", "5")


def test_fusion_read_over_another_nli_model_says_so(tmp_path):
    model = dataclasses.replace(contradiction_model(), fitted_on="cascade(a, b)")
    path = tmp_path / "fusion.json"
    path.write_text(json.dumps(model.to_json()))
    assert FusionModel.load(path, "hand@1").fitted_on == "cascade(a, b)"
    backends = fake_backends()
    backends = type(backends)(**{**backends.__dict__, "fusion": model})
    docs = [Document("The Quarry Bridge was opened in 1931.")]
    labelling = label_claims([CLAIM], docs, backends, labeller="fusion")
    assert "[fitted on the scores of cascade(a, b)]" in labelling.method
    same = dataclasses.replace(model, fitted_on=backends.nli.model_id)
    backends = type(backends)(**{**backends.__dict__, "fusion": same})
    assert "fitted on" not in label_claims([CLAIM], docs, backends, labeller="fusion").method


def test_the_fusion_comes_with_the_nli_role_unless_its_own_training_asks_not(tmp_path):
    # retraining after a feature change must not load the old weights, which the new
    # features refuse (ModelIntegrityError)
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config

    config = dataclasses.replace(load_config(threads=1), cache_dir=tmp_path)
    assert load_backends(config, roles=("nli",)).fusion is not None
    assert load_backends(config, roles=("nli",), with_fusion=False).fusion is None
