"""CONFLICTS typing: the documented rules without an LLM, Figure 2 JSON with one."""

from __future__ import annotations

import pytest

from conflictdesk.analysis.classify import classify_by_rules, classify_conflict
from conflictdesk.analysis.kappa import conflict_score
from conflictdesk.analysis.types import (
    ClaimFrame,
    Cluster,
    ConflictPair,
    PairDetection,
    PassageTag,
    QueryForm,
    Tagging,
)
from conflictdesk.errors import ModelOutputError
from conflictdesk.types import ConflictType, PairType, Passage, Tag
from tests.fakes import FakeGenerator


def _tagging(form, rows):
    """rows: (pid, tag, conf, answer)."""
    tags = tuple(
        PassageTag(pid, tag, conf, 0, 0, 0, key_sentence=f"s{pid}", answer=answer)
        for pid, tag, conf, answer in rows
    )
    return Tagging(ClaimFrame("q", form, "h"), tags, "t")


def _pair(i, j, kind, conflict=True):
    return ConflictPair(i, j, 0.9 if conflict else 0.1, conflict, kind, "mlp", 0.9, 0.9)


def _run(query, passages, tagging, clusters, pairs):
    detection = PairDetection(tuple(pairs), 0.7, "m")
    score = conflict_score(tagging.tags, clusters)
    return classify_by_rules(query, passages, tagging, clusters, score, detection)


S, R, I = Tag.SUPPORT, Tag.REFUTE, Tag.IRRELEVANT


def test_no_conflicting_pairs_and_one_answer_is_no_conflict():
    passages = [Passage(i, f"text {i}") for i in range(3)]
    tagging = _tagging(QueryForm.WH, [(0, S, 0.9, "1912"), (1, S, 0.8, "1912"), (2, I, 0.9, None)])
    clusters = [Cluster(0, (0, 1), S, 1.0), Cluster(1, (2,), I, 1.0)]
    verdict = _run("When?", passages, tagging, clusters, [_pair(0, 1, PairType.NONE, False)])
    assert verdict.type is ConflictType.NO_CONFLICT
    assert verdict.method == "rules"
    assert verdict.signals["conflicting_pairs"] == 0


def test_different_answers_in_distinct_clusters_without_conflict_are_complementary():
    passages = [Passage(i, f"text {i}") for i in range(2)]
    tagging = _tagging(QueryForm.WH, [(0, S, 0.9, "King Fahd"), (1, S, 0.7, "Atlanta")])
    clusters = [Cluster(0, (0,), S, 1.0), Cluster(1, (1,), S, 1.0)]
    verdict = _run(
        "Which is the biggest airport?",
        passages,
        tagging,
        clusters,
        [_pair(0, 1, PairType.NONE, False)],
    )
    assert verdict.type is ConflictType.COMPLEMENTARY
    assert "2 different answers" in verdict.rationale


def test_temporal_pairs_make_outdated():
    passages = [Passage(0, "a"), Passage(1, "b"), Passage(2, "c")]
    tagging = _tagging(QueryForm.WH, [(0, S, 0.9, "37"), (1, R, 0.9, "32"), (2, R, 0.8, "35")])
    clusters = [Cluster(i, (i,), S, 1.0) for i in range(3)]
    pairs = [
        _pair(0, 1, PairType.TEMPORAL),
        _pair(0, 2, PairType.TEMPORAL),
        _pair(1, 2, PairType.FACTUAL),
    ]
    verdict = _run("How many countries?", passages, tagging, clusters, pairs)
    assert verdict.type is ConflictType.OUTDATED
    assert verdict.signals["pair_types"] == {"temporal": 2, "factual": 1}


def test_factual_pairs_separated_in_time_on_a_count_question_are_outdated():
    passages = [
        Passage(0, "There are 37 countries.", date="2023-05-01"),
        Passage(1, "There were 32 countries.", date="2021-01-01"),
        Passage(2, "Now 37 countries.", date="2024-02-01"),
    ]
    tagging = _tagging(
        QueryForm.WH,
        [(0, S, 0.9, "37 countries"), (1, R, 0.9, "32 countries"), (2, S, 0.9, "37 countries")],
    )
    clusters = [Cluster(0, (0, 2), S, 1.0), Cluster(1, (1,), R, 1.0)]
    pairs = [_pair(0, 1, PairType.FACTUAL), _pair(1, 2, PairType.FACTUAL)]
    verdict = _run("How many countries allow it?", passages, tagging, clusters, pairs)
    assert verdict.type is ConflictType.OUTDATED
    assert verdict.signals["time_separated"] is True


def test_minority_factual_conflict_is_misinformation():
    passages = [Passage(i, f"It premiered in spring. {i}") for i in range(4)]
    tagging = _tagging(
        QueryForm.WH,
        [
            (0, S, 0.9, "April 4, 2017"),
            (1, S, 0.9, "April 4, 2017"),
            (2, S, 0.8, "April 4, 2017"),
            (3, R, 0.9, "May 30, 2017"),
        ],
    )
    clusters = [Cluster(0, (0, 1, 2), S, 1.0), Cluster(1, (3,), R, 1.0)]
    pairs = [_pair(i, 3, PairType.FACTUAL) for i in range(3)]
    verdict = _run("When did it premiere?", passages, tagging, clusters, pairs)
    assert verdict.type is ConflictType.MISINFORMATION
    assert verdict.signals["minority_share"] == pytest.approx(0.25)


def test_rules_read_no_phrases_opinion_words_alone_do_not_make_opinions():
    passages = [
        Passage(0, "Critics argue that fasting is harmful."),
        Passage(1, "A study found fasting beneficial for patients."),
        Passage(2, "Fasting is beneficial."),
        Passage(3, "Fasting is beneficial, doctors report."),
    ]
    tagging = _tagging(
        QueryForm.YES_NO,
        [(0, R, 0.9, None), (1, S, 0.9, None), (2, S, 0.9, None), (3, S, 0.9, None)],
    )
    clusters = [Cluster(0, (0,), R, 1.0), Cluster(1, (1, 2, 3), S, 1.0)]
    pairs = [_pair(0, i, PairType.FACTUAL) for i in (1, 2, 3)]
    verdict = _run("Is fasting good?", passages, tagging, clusters, pairs)
    assert verdict.type is ConflictType.MISINFORMATION  # lopsided: a minority of 1 in 4
    assert "opinion_marked" not in verdict.signals


def test_balanced_yes_no_factual_conflict_is_opinions_but_lopsided_is_misinformation():
    passages = [Passage(i, "plain statement") for i in range(4)]
    clusters = [Cluster(0, (0, 1), S, 1.0), Cluster(1, (2, 3), R, 1.0)]
    balanced = _tagging(
        QueryForm.YES_NO,
        [(0, S, 0.9, None), (1, S, 0.9, None), (2, R, 0.9, None), (3, R, 0.8, None)],
    )
    pairs = [_pair(0, 2, PairType.FACTUAL), _pair(1, 3, PairType.FACTUAL)]
    assert (
        _run("Is X Y?", passages, balanced, clusters, pairs).type
        is ConflictType.CONFLICTING_OPINIONS
    )
    lopsided = _tagging(
        QueryForm.YES_NO,
        [(0, S, 0.9, None), (1, S, 0.9, None), (2, S, 0.9, None), (3, R, 0.5, None)],
    )
    pairs = [_pair(0, 3, PairType.FACTUAL)]
    verdict = _run("Is X Y?", passages, lopsided, clusters, pairs)
    assert verdict.type is ConflictType.MISINFORMATION


def test_llm_path_uses_figure2_prompt_and_maps_category():
    llm = FakeGenerator()
    llm.enqueue({"explanation": "older sources", "category": 4})
    passages = [Passage(0, "x", title="T", date="2020")]
    tagging = _tagging(QueryForm.WH, [(0, S, 0.9, None)])
    detection = PairDetection((), 0.7, "m")
    score = conflict_score(tagging.tags)
    verdict = classify_conflict("How many?", passages, tagging, [], score, detection, llm=llm)
    assert verdict.type is ConflictType.OUTDATED
    assert verdict.method == "llm:fake-llm"
    assert verdict.rationale == "older sources"
    prompt = llm.history[0]["messages"][0]["content"]
    assert "classifying the type of knowledge conflict" in prompt
    assert "[0] T (2020): x" in prompt
    assert llm.history[0]["schema"]["required"] == ["explanation", "category"]


def test_llm_category_out_of_range_raises():
    llm = FakeGenerator()
    llm.enqueue({"explanation": "?", "category": 9})
    tagging = _tagging(QueryForm.WH, [(0, S, 0.9, None)])
    with pytest.raises(ModelOutputError):
        classify_conflict(
            "q",
            [Passage(0, "x")],
            tagging,
            [],
            conflict_score(tagging.tags),
            PairDetection((), 0.7, "m"),
            llm=llm,
        )


def test_passage_entailing_the_leading_answer_holds_it_whatever_its_wording():
    passages = [Passage(i, f"text {i}") for i in range(2)]
    tags = (
        PassageTag(0, S, 0.9, 0, 0, 0, answer="Q7 keeps bones dense."),
        PassageTag(1, S, 0.8, 0, 0, 0, answer="Bones stay dense with Q7."),
    )
    frame = ClaimFrame("q", QueryForm.WH, "Q7 keeps bones dense.", leading="Q7 keeps bones dense.")
    tagging = Tagging(frame, tags, "t")
    clusters = [Cluster(0, (0,), S, 1.0), Cluster(1, (1,), S, 1.0)]
    verdict = _run("What does Q7 do?", passages, tagging, clusters, [])
    assert verdict.type is ConflictType.NO_CONFLICT
    neutral = (tags[0], PassageTag(1, I, 0.8, 0, 0, 0, answer="Q7 helps vision."))
    verdict = _run("What does Q7 do?", passages, Tagging(frame, neutral, "t"), clusters, [])
    assert verdict.type is ConflictType.COMPLEMENTARY


def test_off_topic_passages_do_not_make_complementary():
    passages = [Passage(i, f"text {i}") for i in range(2)]
    tags = (
        PassageTag(0, S, 0.9, 0, 0, 0, answer="34 metres"),
        PassageTag(1, I, 0.8, 0, 0, 0, answer="2,841 m", topicality=0.3, method="topicality"),
    )
    frame = ClaimFrame("q", QueryForm.WH, "h", leading="34 metres")
    clusters = [Cluster(0, (0,), S, 1.0), Cluster(1, (1,), I, 1.0)]
    verdict = _run("How tall?", passages, Tagging(frame, tags, "t"), clusters, [])
    assert verdict.type is ConflictType.NO_CONFLICT


def test_high_kappa_without_conflicting_pairs_still_counts_as_conflict():
    passages = [Passage(0, "The dose is 400 mg.", date="2016-08-01"),
                Passage(1, "The dose has been lowered to 250 mg.", date="2022-10-15")]  # fmt: skip
    tagging = _tagging(QueryForm.WH, [(0, S, 0.8, "400 mg"), (1, R, 0.7, "250 mg")])
    clusters = [Cluster(0, (0, 1), S, 0.5)]
    pairs = [_pair(0, 1, PairType.NONE, conflict=False)]
    verdict = _run("What is the maximum dose?", passages, tagging, clusters, pairs)
    assert verdict.signals["tag_conflict"] is True
    assert verdict.type is ConflictType.OUTDATED
    assert verdict.signals["time_separated"] is True


def test_low_kappa_minority_refute_without_pairs_is_no_conflict():
    passages = [Passage(i, f"text {i}") for i in range(3)]
    tagging = _tagging(QueryForm.YES_NO, [(0, S, 0.9, None), (1, S, 0.9, None), (2, R, 0.5, None)])
    clusters = [Cluster(0, (0, 1, 2), S, 0.78)]
    verdict = _run("Is X Y?", passages, tagging, clusters, [])
    assert verdict.signals["tag_conflict"] is False  # κ = 1 − 1.3/2.3 = 0.43 < τ
    assert verdict.type is ConflictType.NO_CONFLICT


def test_yes_no_supported_by_two_distinct_clusters_is_complementary():
    passages = [Passage(i, f"text {i}") for i in range(3)]
    tagging = _tagging(QueryForm.YES_NO, [(0, S, 0.9, None), (1, S, 0.8, None), (2, I, 0.9, None)])
    one = [Cluster(0, (0, 1), S, 1.0), Cluster(1, (2,), I, 1.0)]
    assert _run("Is X Y?", passages, tagging, one, []).type is ConflictType.NO_CONFLICT
    two = [Cluster(0, (0,), S, 1.0), Cluster(1, (1,), S, 1.0), Cluster(2, (2,), I, 1.0)]
    verdict = _run("Is X Y?", passages, tagging, two, [])
    assert verdict.type is ConflictType.COMPLEMENTARY
    assert verdict.signals["supporting_clusters"] == 2


def test_conflicting_pair_whose_passages_hold_the_same_answer_is_no_conflict():
    passages = [Passage(0, "The tower is 34 metres tall."), Passage(1, "It stands 34 m high.")]
    tagging = _tagging(QueryForm.WH, [(0, S, 0.6, "34 metres"), (1, S, 0.6, "34 metres")])
    clusters = [Cluster(0, (0, 1), S, 1.0)]
    verdict = _run("How tall is it?", passages, tagging, clusters, [_pair(0, 1, PairType.FACTUAL)])
    assert verdict.signals["sides"] == 1
    assert verdict.type is ConflictType.NO_CONFLICT


def _model_verdict(kind):
    from conflictdesk.analysis.types import ConflictVerdict

    probabilities = {k.value: (0.6 if k is kind else 0.1) for k in ConflictType}
    return ConflictVerdict(kind, "model said so", "model:m@1",
                           {"probabilities": probabilities}, 0.6, False)  # fmt: skip


@pytest.mark.parametrize("side", [S, R])
def test_a_statement_every_side_taker_backs_or_denies_alike_is_no_conflict(side):
    from conflictdesk.analysis.classify import _unless_unanimous, unanimous_statement

    passages = [Passage(i, f"text {i}") for i in range(3)]
    tagging = _tagging(QueryForm.YES_NO, [(0, side, 0.95, None), (1, side, 0.85, None),
                                          (2, I, 0.9, None)])  # fmt: skip
    assert unanimous_statement(tagging, passages) == (side, 2)
    verdict = _unless_unanimous(
        _model_verdict(ConflictType.CONFLICTING_OPINIONS), tagging, passages
    )
    assert verdict.type is ConflictType.NO_CONFLICT
    assert verdict.method == "model:m@1+unanimous" and verdict.confidence is None
    assert (
        "conflicting_opinions" in verdict.rationale
        and verdict.signals["unanimous"]["passages"] == 2
    )


def test_split_weak_or_wh_evidence_keeps_the_model_verdict():
    from conflictdesk.analysis.classify import _unless_unanimous, unanimous_statement

    passages = [Passage(i, f"text {i}") for i in range(2)]
    split = _tagging(QueryForm.YES_NO, [(0, S, 0.95, None), (1, R, 0.9, None)])
    weak = _tagging(QueryForm.YES_NO, [(0, S, 0.95, None), (1, S, 0.6, None)])
    wh = _tagging(QueryForm.WH, [(0, S, 0.95, "1912"), (1, S, 0.9, "1912")])
    nothing = _tagging(QueryForm.CLAIM, [(0, I, 0.95, None), (1, I, 0.9, None)])
    model = _model_verdict(ConflictType.MISINFORMATION)
    for tagging in (split, weak, wh, nothing):
        assert unanimous_statement(tagging, passages) is None
        assert _unless_unanimous(model, tagging, passages) is model
    claim = _tagging(QueryForm.CLAIM, [(0, R, 0.95, None), (1, R, 0.9, None)])
    assert _unless_unanimous(model, claim, passages).type is ConflictType.NO_CONFLICT
