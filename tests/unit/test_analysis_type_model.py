"""The CONFLICTS type model: measured features, the shipped weights, CV training code."""

from __future__ import annotations

import numpy as np
import pytest

from conflictdesk.analysis.classify import classify_conflict
from conflictdesk.analysis.kappa import conflict_score
from conflictdesk.analysis.pipeline import default_type_model
from conflictdesk.analysis.tag import subject_coverage, subject_words
from conflictdesk.analysis.type_model import classify_by_model, type_model_from_json
from conflictdesk.analysis.types import (
    ClaimFrame,
    Cluster,
    PairDetection,
    PassageTag,
    QueryForm,
    Tagging,
)
from conflictdesk.analysis.typing_features import (
    FEATURE_NAMES,
    Evidence,
    question_features,
    subjectivity,
    type_features,
)
from conflictdesk.training.types import (
    TYPE_ORDER,
    choose_threshold,
    coverage_curve,
    cross_validated_probs,
    stratified_folds,
    train_model,
)
from conflictdesk.types import ConflictType, Passage, Tag

S, R = Tag.SUPPORT, Tag.REFUTE


def _evidence(rows, dates, query="What is the population of Arlen?", form=QueryForm.WH):
    passages = [Passage(pid, text, date=d) for (pid, _, _, text), d in zip(rows, dates)]
    tags = tuple(
        PassageTag(pid, tag, 0.9, 0.9 if tag is S else 0.05, 0.05, 0.9 if tag is R else 0.05,
                   answer=answer)
        for pid, tag, answer, _ in rows
    )  # fmt: skip
    tagging = Tagging(ClaimFrame(query, form, "h", leading=rows[0][2]), tags, "t")
    clusters = [Cluster(0, tuple(p.id for p in passages), S, 1.0)]
    score = conflict_score(tags, clusters)
    # Unit vectors of the probe's width: the shipped model may read embedding features.
    rng = np.random.default_rng(len(rows))
    unit = rng.normal(size=(len(passages) + 1, 384))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    vectors = {p.id: unit[i] for i, p in enumerate(passages)}
    detection = PairDetection((), 0.7, "m")
    return Evidence(query, passages, tagging, clusters, score, detection, vectors, unit[-1])


def test_dates_that_separate_the_answers_are_measured():
    rows = [
        (0, S, "4,200", "Arlen had 4,200 residents."),
        (1, R, "3,100", "Arlen had 3,100 residents."),
        (2, S, "4,200", "Arlen counts 4,200 residents."),
    ]
    newer = type_features(_evidence(rows, ["2023-01-01", "2001-01-01", "2022-06-01"]))
    mixed = type_features(_evidence(rows, ["2001-01-01", "2010-01-01", "2023-06-01"]))
    update = type_features(_evidence(rows, ["2001-01-01", "2023-01-01", "2002-06-01"]))
    assert newer["time_separated"] == 1.0 and mixed["time_separated"] == 0.0
    assert update["newest_differs"] == 1.0 and newer["newest_differs"] == 0.0
    assert newer["lead_share"] == pytest.approx(2 / 3)
    assert newer["date_spread"] == pytest.approx(np.log1p(22.0), abs=0.01)
    assert set(newer) == set(FEATURE_NAMES)


def test_subjectivity_reads_word_classes_not_topics():
    assert subjectivity("I think you should really try it!") > 0.3
    assert subjectivity("The bridge opened in 1931 and spans 420 metres.") == 0.0


def test_question_tense():
    assert question_features("When was the abbey founded?")["question_past"] == 1.0
    assert question_features("Who is the mayor of Arlen?")["question_past"] == 0.0
    assert question_features("Who painted the ferry?")["question_past"] == 1.0


def test_shipped_model_reads_these_features_and_gives_probabilities():
    model = default_type_model()
    assert set(model.feature_names) <= set(FEATURE_NAMES)
    assert model.model_id.startswith("conflictdesk-type-lr@")
    rows = [(0, S, "4,200", "Arlen had 4,200."), (1, S, "4,200", "Arlen: 4,200 people.")]
    verdict = classify_by_model(model, _evidence(rows, ["2020-01-01", "2021-01-01"]))
    probs = verdict.signals["probabilities"]
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-3)
    assert verdict.confidence == pytest.approx(max(probs.values()), abs=1e-3)
    assert verdict.uncertain is (verdict.confidence < model.threshold)


def test_low_confidence_is_marked_uncertain():
    blob = default_type_model().to_json()
    blob["threshold"] = 0.99
    model = type_model_from_json(blob)
    rows = [(0, S, "4,200", "Arlen had 4,200."), (1, R, "3,900", "Arlen: 3,900 people.")]
    verdict = classify_by_model(model, _evidence(rows, [None, None]))
    assert verdict.uncertain and verdict.rationale.startswith("uncertain")


def test_the_rationale_names_the_features_in_words_on_their_side_of_the_mean():
    from conflictdesk.analysis.feature_words import FEATURE_WORDS
    from conflictdesk.analysis.type_model import explain

    classes = list(ConflictType)
    weights = np.zeros((2, len(classes)))
    weights[:, classes.index(ConflictType.NO_CONFLICT)] = -2.0  # low values: no conflict
    model = type_model_from_json({
        "model_id": "t@1", "classes": [c.value for c in classes],
        "feature_names": ["yes_no", "kappa"], "mean": [0.5, 0.5], "scale": [0.5, 0.5],
        "weights": weights.tolist(), "bias": [0.0] * len(classes), "threshold": 0.1,
    })  # fmt: skip
    why = explain(model, ConflictType.NO_CONFLICT, {"yes_no": 0.0, "kappa": 0.1})
    assert why.startswith("no conflict with probability")
    assert "not a yes/no question" in why and FEATURE_WORDS["kappa"][0] in why
    assert "yes_no" not in why
    why = explain(model, ConflictType.MISINFORMATION, {"yes_no": 1.0, "kappa": 0.9})
    assert "a yes/no question" in why and "not a yes/no" not in why


def test_every_feature_has_words():
    from conflictdesk.analysis.feature_words import FEATURE_WORDS

    assert set(FEATURE_NAMES) <= set(FEATURE_WORDS)


def test_classify_conflict_uses_the_model_when_given_one():
    ev = _evidence([(0, S, "4,200", "Arlen had 4,200.")], [None])
    verdict = classify_conflict(
        ev.query, ev.packet, ev.tagging, ev.clusters, ev.score, ev.detection,
        type_model=default_type_model(), vectors=ev.vectors, query_vector=ev.query_vector,
    )  # fmt: skip
    assert verdict.method.startswith("model:")


def test_softmax_regression_learns_a_separable_problem_under_cv():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(len(TYPE_ORDER)), 12)
    x = rng.normal(size=(len(y), 3)) * 0.3 + y[:, None] * np.array([1.0, -1.0, 0.5])
    probs = cross_validated_probs(x, y, l2=1.0, seeds=(0,))
    assert (probs[0].argmax(-1) == y).mean() > 0.9
    model = train_model(x, y, ("a", "b", "c"), l2=1.0, threshold=0.5, model_id="t")
    assert max(model.probabilities({"a": 4.0, "b": -4.0, "c": 2.0}), key=lambda k: 0) in TYPE_ORDER


def test_folds_are_stratified_and_disjoint():
    y = np.repeat(np.arange(5), 10)
    folds = list(stratified_folds(y, 5, seed=3))
    assert sorted(np.concatenate(folds).tolist()) == list(range(50))
    assert all(np.bincount(y[f], minlength=5).tolist() == [2] * 5 for f in folds)


def test_threshold_keeps_coverage():
    gold = np.array([0, 1, 2, 0])
    probs = np.array([[0.9, 0.05, 0.05, 0, 0], [0.3, 0.4, 0.3, 0, 0],
                      [0.6, 0.2, 0.2, 0, 0], [0.8, 0.1, 0.1, 0, 0]])  # fmt: skip
    curve = coverage_curve(gold, probs, [0.2, 0.5, 0.7])
    assert [r["coverage"] for r in curve] == [1.0, 0.75, 0.5]
    assert curve[2]["accuracy"] == 1.0
    assert choose_threshold(curve, min_coverage=0.7) == 0.2
    assert choose_threshold(curve, min_coverage=0.5) == 0.7


def test_passages_about_another_entity_are_not_about_the_subject():
    passages = [
        Passage(0, "The maximum daily dose of Dravonil for adults is 300 mg."),
        Passage(1, "The recommended daily intake of Kessamine for adults is 9 micrograms."),
        Passage(2, "Dravonil is taken with water; the daily dose for adults is 300 mg."),
    ]
    query = "What is the recommended daily dose of dravonil for adults?"
    assert subject_words(query, passages) == {"dravonil"}
    coverage = subject_coverage(query, passages)
    assert coverage == {0: 1.0, 1: 0.0, 2: 1.0}


def test_no_subject_filter_when_no_passage_names_the_subject():
    passages = [Passage(0, "the dose is 300 mg"), Passage(1, "the dose is 200 mg")]
    assert subject_coverage("What is the dose of Dravonil?", passages) is None


def test_conflict_type_enum_order_is_the_model_column_order():
    assert default_type_model().classes == TYPE_ORDER
    assert TYPE_ORDER[0] is ConflictType.NO_CONFLICT


def test_numeric_spread_reads_answers_with_units_in_one_unit():
    from collections import Counter

    from conflictdesk.analysis.typing_features import _numeric_spread

    # 24 months and 2 years are one value; a tenfold gap is log 10 wherever the unit is
    assert _numeric_spread(Counter({"24 months": 1, "2 years": 1})) == pytest.approx(0.0)
    assert _numeric_spread(Counter({"412 m": 2, "4120 m": 1})) == pytest.approx(np.log(10))
    assert _numeric_spread(Counter({"41": 1, "4.1": 1})) == pytest.approx(np.log(10))
    assert _numeric_spread(Counter({"2841 m": 1})) == 0.0  # one answer has no spread
    assert _numeric_spread(Counter({"2.4.1": 1, "3.0.0": 1})) == 0.0  # versions are no numbers
    assert _numeric_spread(Counter({"2841 m": 1, "4120 metres": 1})) == pytest.approx(
        np.log(4120 / 2841)
    )
