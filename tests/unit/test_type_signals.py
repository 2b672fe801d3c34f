"""Model-measured signals of the type model, the subjectivity probe, the nested selection
and the clause a compound question is read in."""

from __future__ import annotations

import dataclasses
from datetime import date

import numpy as np
import pytest

from conflictdesk.analysis.evidence_signals import (
    SubjectivityProbe,
    embedding_signals,
    pair_signals,
    probe_from_json,
)
from conflictdesk.analysis.types import ConflictPair
from conflictdesk.analysis.typing_features import asked_clause, question_features
from conflictdesk.training.subjectivity import fit_logistic
from conflictdesk.training.type_cache import cached_evidence
from conflictdesk.training.type_selection import (
    FEATURE_SETS,
    Config,
    confusion,
    nested_cv,
    select_config,
)
from conflictdesk.training.types import TYPE_ORDER, TypedCase
from conflictdesk.types import ConflictType, PairType, Passage
from tests.fakes import fake_backends

AGREE = (0.9, 0.08, 0.02, 0.9, 0.08, 0.02)
CLASH = (0.02, 0.08, 0.9, 0.02, 0.08, 0.9)


def _pair(i: int, j: int, nli: tuple[float, ...]) -> ConflictPair:
    clash = nli[2] > 0.5
    kind = PairType.FACTUAL if clash else PairType.NONE
    return ConflictPair(i, j, nli[2], clash, kind, "nli", None, None, "", nli)


def test_one_passage_against_the_rest_concentrates_the_contradiction():
    lone = [_pair(0, 1, CLASH), _pair(0, 2, CLASH), _pair(1, 2, AGREE)]
    even = [_pair(0, 1, CLASH), _pair(0, 2, CLASH), _pair(1, 2, CLASH)]
    assert pair_signals(lone, {})["contradiction_focus"] > 0.9
    assert pair_signals(even, {})["contradiction_focus"] == pytest.approx(0.0)
    assert pair_signals(lone, {})["pair_entailment"] == pytest.approx((0.9 + 0.02 + 0.02) / 3)


def test_contradiction_that_grows_with_the_years_between_passages_is_measured():
    dates = {0: date(2001, 1, 1), 1: date(2002, 1, 1), 2: date(2023, 1, 1)}
    pairs = [_pair(0, 1, AGREE), _pair(0, 2, CLASH), _pair(1, 2, CLASH)]
    assert pair_signals(pairs, dates)["contradiction_time"] > 0.9
    assert pair_signals(pairs, {})["contradiction_time"] == 0.0


def test_pairs_without_nli_probabilities_give_zeros():
    pair = ConflictPair(0, 1, 0.9, True, PairType.FACTUAL, "llm", None, None)
    assert set(pair_signals([pair], {}).values()) == {0.0}


def test_probe_scores_round_trip_and_embedding_spread():
    probe = SubjectivityProbe("emb", np.array([4.0, 0.0]), -2.0)
    again = probe_from_json(probe.to_json())
    assert again.score(np.array([1.0, 0.0]))[0] == pytest.approx(1 / (1 + np.exp(-2.0)))
    passages = [Passage(0, "a"), Passage(1, "b")]
    vectors = {0: np.array([1.0, 0.0]), 1: np.array([0.0, 1.0])}
    signals = embedding_signals(np.array([0.0, 1.0]), passages, vectors, again)
    assert signals["embedding_spread"] == pytest.approx(1.0)
    assert signals["probe_subjectivity_max"] > signals["probe_question"]


def test_logistic_fit_separates_two_clouds():
    rng = np.random.default_rng(0)
    x = np.vstack([rng.normal(1.0, 0.3, (40, 2)), rng.normal(-1.0, 0.3, (40, 2))])
    y = np.array([1.0] * 40 + [0.0] * 40)
    w, b = fit_logistic(x, y)
    assert ((x @ w + b > 0) == (y == 1)).mean() > 0.95


def test_compound_question_is_read_in_the_clause_that_asks_for_the_answer_kind():
    first = "When was the Tarnholt bridge opened and how long is it?"
    second = "How long is the Tarnholt bridge, and when was it opened?"
    assert asked_clause(first) == "how long is it?"
    assert question_features(first) == question_features(second) == {"question_past": 0.0}
    assert asked_clause("When was the abbey founded?") == "When was the abbey founded?"


def test_nested_selection_learns_a_separable_problem_and_counts_confusions():
    rng = np.random.default_rng(1)
    y = np.repeat(np.arange(len(TYPE_ORDER)), 10)
    n_features = len(FEATURE_SETS["measured+agreement+embedding"])
    x = rng.normal(size=(len(y), n_features + 5)) * 0.3
    x[:, :23] += y[:, None] * 0.5  # every column of the "measured" set informative
    configs = [Config("measured", 1.0), Config("measured", 10.0)]
    probs, chosen = nested_cv(x, y, configs, k=5, seeds=(0,))
    assert (probs[0].argmax(-1) == y).mean() > 0.8 and len(chosen) == 5
    matrix = confusion(y, probs)
    assert sum(map(sum, matrix)) == len(y)
    best, scores = select_config(x, y, configs)
    assert best in configs and set(scores) == set(configs)


def test_evidence_cache_runs_each_case_once_and_reruns_after_a_change(tmp_path):
    backends = fake_backends()
    passages = (
        Passage(0, "Arlen had 4,200 residents in 2001.", date="2001-05-01"),
        Passage(1, "Arlen counts 5,100 residents today.", date="2023-05-01"),
    )
    case = TypedCase("d-outdated-1", "How many residents does Arlen have?", passages,
                     ConflictType.OUTDATED)  # fmt: skip
    path = tmp_path / "evidence.pkl"
    first = cached_evidence([case], backends, path, log=lambda _: None)
    assert first[0].evidence.vectors and first[0].evidence.query_vector is not None
    calls = len(backends.nli.history)
    again = cached_evidence([case], backends, path, log=lambda _: None)
    assert again[0].id == first[0].id and again[0].gold is ConflictType.OUTDATED
    assert len(backends.nli.history) == calls  # served from the cache
    changed = dataclasses.replace(case, query="How many people live in Arlen?")
    assert cached_evidence([changed], backends, path, log=lambda _: None)[0].evidence.query == (
        "How many people live in Arlen?"
    )


def test_dissent_on_a_tie_is_read_against_the_leading_answer_not_packet_order():
    from conflictdesk.analysis.types import PassageTag
    from conflictdesk.analysis.typing_features import _dissent_features
    from conflictdesk.types import Tag

    tags = {
        3: PassageTag(3, Tag.SUPPORT, 0.7, 0.7, 0.2, 0.1),
        4: PassageTag(4, Tag.IRRELEVANT, 0.8, 0.05, 0.8, 0.15),
    }
    in_order = _dissent_features({3: "bones", 4: "vision"}, tags, "bones")
    reversed_order = _dissent_features({4: "vision", 3: "bones"}, tags, "bones")
    assert in_order == reversed_order
    assert in_order["dissent_neutral"] == 0.8  # the dissent is passage 4, not the leader


def test_support_structure_tells_a_lone_dissent_from_answers_each_supported():
    from conflictdesk.analysis.evidence_signals import support_signals

    ids = [0, 1, 2, 3]
    lone = support_signals({0: "a", 1: "a", 2: "a", 3: "b"}, ids, [], None)
    both = support_signals({0: "a", 1: "a", 2: "b", 3: "b"}, ids, [], None)
    assert lone["lone_dissent"] == 1.0 and both["lone_dissent"] == 0.0
    assert both["supported_answers"] > lone["supported_answers"]
    assert lone["singleton_share"] == pytest.approx(0.25)
    assert both["singleton_share"] == 0.0
    tie = support_signals({0: "a", 1: "b"}, ids[:2], [], None)
    assert tie["lone_dissent"] == 0.0 and tie["singleton_share"] == 1.0


def test_answer_cosines_split_same_answer_pairs_from_cross_answer_pairs():
    from conflictdesk.analysis.evidence_signals import support_signals

    vectors = {0: np.array([1.0, 0.0]), 1: np.array([2.0, 0.0]), 2: np.array([0.0, 3.0])}
    signals = support_signals({0: "a", 1: "a", 2: "b"}, [0, 1, 2, 3], [3], vectors)
    assert signals["same_answer_cosine"] == pytest.approx(1.0)
    assert signals["cross_answer_cosine"] == pytest.approx(0.0)
    assert signals["irrelevant_share"] == pytest.approx(0.25)
    none = support_signals({}, [], [], vectors)
    assert none["same_answer_cosine"] == 0.0 and none["irrelevant_share"] == 0.0


def test_support_is_read_over_every_on_topic_passage_not_only_the_packet():
    from conflictdesk.analysis.types import (
        ClaimFrame,
        ConflictScore,
        PairDetection,
        PassageTag,
        QueryForm,
        Stance,
        Tagging,
    )
    from conflictdesk.analysis.typing_features import Evidence, type_features
    from conflictdesk.types import Tag

    answers = ["12", "12", "12", "40", "12"]
    tags = tuple(
        PassageTag(i, Tag.SUPPORT if a == "12" else Tag.REFUTE, 0.9, 0.5, 0.3, 0.2, answer=a)
        for i, a in enumerate(answers)
    )
    frame = ClaimFrame("How many?", QueryForm.WH, "h", leading="12")
    score = ConflictScore(0.2, 0.2, 3.0, 1.0, 0.0, 3.0, 1.0, 0.5, Stance.SUPPORT)
    packet = [Passage(0, "It is 12."), Passage(3, "It is 40.")]  # the packet keeps two
    ev = Evidence("How many?", packet, Tagging(frame, tags, "t"), (), score,
                  PairDetection((), 0.6, "m"))  # fmt: skip
    features = type_features(ev)
    assert features["lone_dissent"] == 1.0  # four passages hold 12 against one 40
    assert features["second_share"] == pytest.approx(0.5)  # the packet alone: a tie


def test_time_features_read_publication_dates_not_dates_in_the_text():
    from conflictdesk.analysis.typing_features import _time_features

    undated = [
        Passage(id=0, text="The bridge was built in 1890 and is 40 m long.", document_id=0),
        Passage(id=1, text="Rebuilt in 1962, the bridge is 52 m long.", document_id=1),
    ]
    answers = {0: "40 m", 1: "52 m"}
    features = _time_features(undated, answers)
    assert features["dated_share"] == 0.0
    assert features["date_spread"] == 0.0
    assert features["time_separated"] == 0.0
    dated = [dataclasses.replace(p, date=d) for p, d in zip(undated, ("2001-05-01", "2021-05-01"))]
    features = _time_features(dated, answers)
    assert features["dated_share"] == 1.0
    assert features["date_spread"] == pytest.approx(np.log1p(20.0), abs=0.01)
    assert features["time_separated"] == 1.0
