"""The trained span reader: it chooses each passage's answer among the spans of the asked
kind in its first sentences, never reads a passage about another entity, leaves sentence
answers to the rule, says so in the frame's method, and loads only when verified."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from conflictdesk.analysis.claims import frame_query
from conflictdesk.analysis.span_reader import (
    FEATURES,
    MODEL_NAME,
    SpanReader,
    load_span_reader,
    passage_spans,
    question_spans,
    shape,
)
from conflictdesk.analysis.tag import read_passages, tag_passages
from conflictdesk.backends.manifest import models_dir
from conflictdesk.errors import ModelIntegrityError
from conflictdesk.evaluation.ask_scoring import Case
from conflictdesk.training.span_reader import (
    Reading,
    Rows,
    build_rows,
    choice_accuracy,
    compare,
    fit,
    grouped_cv,
)
from conflictdesk.types import Passage
from tests.fakes import FakeNLI

QUESTION = "What is the boiling point of quorvane?"
PASSAGES = [
    Passage(0, "The boiling point of pure quorvane at 20 °C ambient was measured as 142 °C."),
    Passage(1, "The boiling point of quorvane is 139 °C, the safety sheet says."),
    Passage(2, "Potatoes grow underground in cool climates."),
]
SIMILARITY = {0: 0.8, 1: 0.9, 2: 0.1}


def one_feature(name: str, weight: float, margin: float = 0.0) -> SpanReader:
    """A reader scoring by one feature alone."""
    weights = np.zeros(len(FEATURES))
    weights[FEATURES.index(name)] = weight
    zeros, ones = np.zeros(len(FEATURES)), np.ones(len(FEATURES))
    return SpanReader(zeros, ones, weights, 0.0, "test@1", margin)


def frame(reader: SpanReader | None, question: str = QUESTION, passages=PASSAGES, sim=SIMILARITY):
    reading = read_passages(question, passages, sim)
    return frame_query(reading.query, passages, reading.ranked, reading.on_topic, reader)


def test_the_reader_chooses_among_the_passage_spans_and_says_so():
    rule, rule_answers = frame(None)
    assert rule.method == "rule"
    nearest_last, answers = frame(one_feature("position", 1.0))
    assert nearest_last.method == "rule+reader:test@1"
    # the last span of passage 0's sentence replaces the rule's (the first one nearest the
    # question's words), passage 1 has one span only
    assert answers[0][0] == "142 °C" and rule_answers[0][0] != answers[0][0]
    assert answers[1] == rule_answers[1]
    assert rule_answers[0][0] == "20 °C"
    _, answers = frame(one_feature("position", -1.0))
    assert answers[0][0] == "20 °C"


def test_a_margin_keeps_the_rule_span_unless_another_outscores_it_by_that_much():
    _, rule_answers = frame(None)
    _, kept = frame(one_feature("position", 1.0, margin=5.0))
    assert kept == rule_answers


def test_passages_about_another_entity_or_off_topic_get_no_answer_from_any_reader():
    question = "What is the boiling point of Zantrol at sea level?"
    passages = [
        Passage(0, "At sea level the boiling point of Zantrol is 120 degrees."),
        Passage(1, "Zantrol has a boiling point of 118 degrees at sea level."),
        Passage(2, "At sea level the boiling point of Quorim is exactly 95 degrees."),
    ]
    similarity = {0: 0.8, 1: 0.7, 2: 0.9}
    for name in FEATURES:
        for sign in (1.0, -1.0):
            tagging = tag_passages(question, passages, FakeNLI(), similarity=similarity,
                                   reader=one_feature(name, sign))  # fmt: skip
            assert tagging.tags[2].answer is None
            assert "95" not in " ".join(c.text for c in tagging.frame.candidates)


def test_sentence_answers_and_yes_no_questions_keep_the_rule():
    why = "Why did the Kelmore bridge close?"
    passages = [Passage(0, "The Kelmore bridge closed in 2019 because its cables corroded.")]
    rule, _ = frame(None, why, passages, {0: 0.9})
    read, _ = frame(one_feature("position", 1.0), why, passages, {0: 0.9})
    assert read == rule and "+reader" not in read.method
    yes_no, _ = frame(one_feature("position", 1.0), "Is quorvane flammable?", PASSAGES)
    assert "+reader" not in yes_no.method


def test_spans_come_from_the_first_stating_sentences_and_the_rule_sentence():
    passage = Passage(0, "A. B. Kelston was founded in 1702. It had 4,000 people in 1850. "
                         "The mayor is Ada Voss. Its port opened in 1911.")  # fmt: skip
    ranked = [s for s in passage.text.split(". ")]
    ranked = [s if s.endswith(".") else s + "." for s in ranked]
    spans = passage_spans("When was Kelston founded?", "date", passage, ranked, None)
    assert {s.sentence for s in spans} <= set(ranked[:4])
    late_rule = ("date:1911", "1911", "date", ranked[-1])
    with_rule = passage_spans("When was Kelston founded?", "date", passage, ranked, late_rule)
    assert ranked[-1] in {s.sentence for s in with_rule}


def test_shape_separates_units_and_currency_but_not_values():
    assert shape("number", "142 °C", "It boils at 142 °C.") == shape("number", "98 °C", "98 °C.")
    assert shape("number", "1", "at 1 atm") != shape("number", "142 °C", "142 °C")
    assert shape("number", "250", "a charge of $250") != shape("number", "250", "250 people")
    assert shape("entity", "Ada Voss", "Ada Voss") == "entity"


def test_question_spans_rows_follow_features():
    reading = read_passages(QUESTION, PASSAGES, SIMILARITY)
    found = {0: ("num:20", "20 °C", "number", reading.ranked[0][0]),
             1: ("num:142", "142 °C", "number", "It boils at 142 °C.")}  # fmt: skip
    spans = question_spans(QUESTION, "number", PASSAGES[:2], reading.ranked, reading.on_topic,
                           found)  # fmt: skip
    assert set(spans) == {0, 1}
    found_spans, matrix = spans[0]
    assert matrix.shape == (len(found_spans), len(FEATURES))
    rule_column = matrix[:, FEATURES.index("rule_choice")]
    assert rule_column.sum() == 1.0
    support = matrix[:, FEATURES.index("rule_support")]
    surfaces = [s.surface for s in found_spans]
    assert support[surfaces.index("142 °C")] == 1.0  # passage 1's rule answer


def test_reader_json_round_trip_and_feature_mismatch():
    reader = one_feature("overlap", 0.5, margin=0.25)
    again = SpanReader.from_json(json.loads(json.dumps(reader.to_json())), "x@1")
    assert np.allclose(again.weights, reader.weights) and again.margin == 0.25
    blob = reader.to_json()
    blob["features"] = blob["features"][:-1]
    with pytest.raises(ValueError, match="features"):
        SpanReader.from_json(blob)


def test_shipped_reader_loads_verified_and_a_tampered_copy_fails(tmp_path):
    reader = load_span_reader(models_dir())
    assert reader.model_id.startswith(MODEL_NAME + "@")
    assert len(reader.weights) == len(FEATURES)
    copy = tmp_path / "models"
    shutil.copytree(models_dir() / "reader", copy / "reader")
    shutil.copy(models_dir() / "manifest.json", copy / "manifest.json")
    path = copy / "reader" / "span_reader.json"
    blob = json.loads(path.read_text())
    blob["bias"] = 1.0
    path.write_text(json.dumps(blob))
    with pytest.raises(ModelIntegrityError):
        load_span_reader(copy)


def toy_case() -> Case:
    """Each passage's own gold answer: what it states, not what is right."""
    support = {"142 °C": frozenset({0}), "139 °C": frozenset({1})}
    return Case("c", "toy", QUESTION, tuple(PASSAGES[:2]), True, tuple(support), support)


def test_fit_learns_a_preference_and_the_comparison_counts_it():
    reading = read_passages(QUESTION, PASSAGES[:2], SIMILARITY)
    reading = Reading(toy_case(), (list(PASSAGES[:2]), reading))
    rows = build_rows([reading] * 4)
    assert rows.y.sum() >= 4 and set(np.unique(rows.y)) == {0.0, 1.0}
    reader = fit(rows, steps=200)
    assert choice_accuracy(rows, reader.scores(rows.x)) == 1.0
    figures = compare([reading], reader)
    assert figures["rule"]["passage_accuracy"] == 0.5  # the rule reads "20 °C" in passage 0
    assert figures["reader"]["passage_accuracy"] == 1.0
    assert figures["reader"]["lead"] == 1.0


def test_grouped_cv_reports_reader_and_rule_on_the_same_choices():
    rng = np.random.default_rng(0)
    x = rng.normal(scale=0.1, size=(40, len(FEATURES)))
    y = np.zeros(40)
    y[::4] = 1.0  # one gold span in each group of four
    x[::4, FEATURES.index("overlap")] += 3.0
    group = np.repeat(np.arange(10), 4)
    rows = Rows(x, y, group, group)
    cv = grouped_cv(rows, folds=2)
    assert cv["choices"] == 10
    assert cv["reader_accuracy"] > cv["rule_accuracy"]
