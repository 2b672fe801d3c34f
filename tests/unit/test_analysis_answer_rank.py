"""The trained answer ranker: it re-orders the rule's candidates, never adds one from a
passage about another entity, keeps the passages' answers, and loads only when verified."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from conflictdesk.analysis.answer_rank import (
    FEATURES,
    MODEL_NAME,
    AnswerRanker,
    frame_kind,
    load_answer_ranker,
)
from conflictdesk.analysis.claims import frame_query
from conflictdesk.analysis.pipeline import AnalysisOptions, analyze
from conflictdesk.analysis.tag import read_passages, tag_passages
from conflictdesk.backends.manifest import models_dir
from conflictdesk.errors import ModelIntegrityError
from conflictdesk.evaluation.ask_scoring import is_gold_answer
from conflictdesk.generation.answer import answer
from conflictdesk.training.answer_ranker import Rows, grouped_cv, top1
from conflictdesk.types import Passage
from tests.fakes import FakeNLI, fake_backends

QUESTION = "When did the fifth season premiere?"
PASSAGES = [
    Passage(0, "Bananas are rich in potassium. The fifth season premiered on April 4, 2017."),
    Passage(1, "The fifth season premiered on April 4, 2017 on Fox."),
    Passage(2, "The fifth season premiered on May 30, 2017."),
    Passage(3, "Potatoes grow underground in cool climates."),
]
SIMILARITY = {0: 0.7, 1: 0.8, 2: 0.75, 3: 0.1}


def one_feature(name: str, weight: float) -> AnswerRanker:
    """A ranker scoring by one feature alone."""
    weights = np.zeros(len(FEATURES))
    weights[FEATURES.index(name)] = weight
    return AnswerRanker(np.zeros(len(FEATURES)), np.ones(len(FEATURES)), weights, 0.0, "test@1")


def test_ranker_can_overturn_the_rule_lead_but_keeps_each_passage_answer():
    rule = tag_passages(QUESTION, PASSAGES, FakeNLI(), similarity=SIMILARITY)
    assert rule.frame.leading == "April 4, 2017"
    ranked = tag_passages(
        QUESTION, PASSAGES, FakeNLI(), similarity=SIMILARITY, ranker=one_feature("rule_votes", -1)
    )
    frame = ranked.frame
    assert frame.leading == "May 30, 2017"
    assert frame.hypothesis == f"The answer to the question {QUESTION} is May 30, 2017."
    assert frame.method == "rule+ranker:test@1"
    assert sorted(c.text for c in frame.candidates) == sorted(c.text for c in rule.frame.candidates)
    assert [t.answer for t in ranked.tags] == [t.answer for t in rule.tags]


def test_ranker_agreeing_with_the_rule_keeps_its_lead():
    ranked = tag_passages(
        QUESTION, PASSAGES, FakeNLI(), similarity=SIMILARITY, ranker=one_feature("rule_votes", 1)
    )
    assert ranked.frame.leading == "April 4, 2017"
    assert ranked.frame.candidates[0].passage_ids == (0, 1)


def test_a_passage_about_another_entity_never_supplies_the_lead():
    question = "What is the boiling point of Zantrol at sea level?"
    passages = [
        Passage(0, "At sea level the boiling point of Zantrol is 120 degrees."),
        Passage(1, "Zantrol has a boiling point of 118 degrees at sea level."),
        Passage(2, "At sea level the boiling point of Quorim is exactly 95 degrees."),
    ]
    similarity = {0: 0.8, 1: 0.7, 2: 0.9}
    for name in FEATURES:
        for sign in (1.0, -1.0):
            tagging = tag_passages(
                question, passages, FakeNLI(), similarity=similarity, ranker=one_feature(name, sign)
            )
            texts = [c.text for c in tagging.frame.candidates]
            assert texts and not any("95" in t for t in texts), (name, sign, texts)


def test_sentence_and_yes_no_questions_are_left_to_the_rule():
    for query in ("Why did the fifth season premiere late?", "Did the fifth season premiere?"):
        reading = read_passages(query, PASSAGES, SIMILARITY)
        frame, _ = frame_query(reading.query, PASSAGES, reading.ranked, reading.on_topic)
        assert frame_kind(frame) is None
    reading = read_passages(QUESTION, PASSAGES, SIMILARITY)
    frame, _ = frame_query(reading.query, PASSAGES, reading.ranked, reading.on_topic)
    assert frame_kind(frame) == "date"


def test_json_round_trip_and_feature_check():
    ranker = AnswerRanker(
        np.arange(len(FEATURES), dtype=float), np.full(len(FEATURES), 2.0),
        np.linspace(-1, 1, len(FEATURES)), 0.5,
    )  # fmt: skip
    again = AnswerRanker.from_json(json.loads(json.dumps(ranker.to_json())))
    x = np.random.default_rng(0).normal(size=(4, len(FEATURES)))
    assert np.allclose(again.scores(x), ranker.scores(x))
    blob = ranker.to_json()
    blob["features"] = list(FEATURES)[::-1]
    with pytest.raises(ValueError, match="features differ"):
        AnswerRanker.from_json(blob)


def test_shipped_ranker_loads_and_a_tampered_copy_is_refused(tmp_path):
    ranker = load_answer_ranker(models_dir())
    assert ranker.model_id.startswith(MODEL_NAME + "@")
    assert ranker.weights.shape == (len(FEATURES),)
    (tmp_path / "reader").mkdir()
    shutil.copy(models_dir() / "manifest.json", tmp_path / "manifest.json")
    blob = json.loads((models_dir() / "reader" / "answer_ranker.json").read_text("utf-8"))
    blob["bias"] += 1.0
    (tmp_path / "reader" / "answer_ranker.json").write_text(json.dumps(blob), "utf-8")
    with pytest.raises(ModelIntegrityError, match="sha256"):
        load_answer_ranker(tmp_path)


def test_answer_method_names_the_ranker_that_ran():
    backends = fake_backends()
    ranked = analyze(QUESTION, PASSAGES, backends, options=AnalysisOptions(ranker="model"))
    method = answer(ranked, backends).method["answer_ranker"]
    assert method == load_answer_ranker(models_dir()).model_id
    ruled = analyze(QUESTION, PASSAGES, backends)  # the default: the rule's votes
    assert answer(ruled, backends).method["answer_ranker"] == "rule votes (rule)"
    claim = analyze("The fifth season premiered in 2017.", PASSAGES, backends)
    assert answer(claim, backends).method["answer_ranker"] == "none (no candidate answers)"


def test_gold_match_goes_both_ways_on_whole_words():
    assert is_gold_answer("Barack Obama", ["Obama"])
    assert is_gold_answer("Obama", ["Barack Obama"])
    assert not is_gold_answer("Obamacare", ["Obama"])


def test_grouped_cv_finds_the_informative_feature():
    rng = np.random.default_rng(1)
    rows_x, rows_y, groups = [], [], []
    for g in range(60):
        n = 4
        x = rng.normal(size=(n, len(FEATURES)))
        gold = rng.integers(n)
        x[:, FEATURES.index("entailment")] = rng.normal(size=n) - 3
        x[gold, FEATURES.index("entailment")] += 6
        x[:, FEATURES.index("rule_lead")] = np.eye(n)[rng.integers(n)]
        rows_x.append(x)
        rows_y.append(np.eye(n)[gold])
        groups.append(np.full(n, g))
    rows = Rows(np.vstack(rows_x), np.concatenate(rows_y), np.concatenate(groups), 60)
    cv = grouped_cv(rows)
    assert cv["ranker_top1"] > 0.9
    assert cv["rule_top1"] < 0.5
    assert cv["oracle"] == 1.0
    assert top1(rows, -rows.x[:, FEATURES.index("entailment")]) == 0.0
