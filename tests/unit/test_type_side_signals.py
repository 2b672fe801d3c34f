"""How the answers' sides relate: NLI between them, a dissent that still entails the leading
answer, one answer inside another, candidate count and the answer-kind value profile."""

from __future__ import annotations

import pytest

from conflictdesk.analysis.evidence_signals import side_signals, value_top_share
from conflictdesk.analysis.types import (
    Candidate,
    ClaimFrame,
    PassageTag,
    QueryForm,
    Tagging,
)
from conflictdesk.training.type_transfer import RECIPE_SETS, SIDES
from conflictdesk.types import Tag
from tests.unit.test_type_signals import CLASH, _pair

NEUTRAL = (0.05, 0.9, 0.05, 0.05, 0.9, 0.05)


def _tagging(sentences, kind="number", query="How tall is the Arlen tower?", leading="52"):
    tags = tuple(
        PassageTag(i, Tag.SUPPORT, 0.8, 0.8 - 0.1 * i, 0.1, 0.1, key_sentence=s)
        for i, s in enumerate(sentences)
    )
    candidates = (Candidate(leading, kind, (0,), 1.0), Candidate("x", kind, (1,), 0.5))
    frame = ClaimFrame(query, QueryForm.WH, "h", candidates, leading)
    return Tagging(frame, tags, "t")


def test_sides_that_contradict_are_told_from_sides_that_stay_neutral():
    tagging = _tagging(["a", "b", "c"])
    tags = tagging.by_id()
    answers = {0: "52", 1: "52", 2: "61"}
    dispute = side_signals(answers, [_pair(0, 1, NEUTRAL), _pair(0, 2, CLASH)], tags, tagging)
    parts = side_signals(answers, [_pair(0, 1, CLASH), _pair(0, 2, NEUTRAL)], tags, tagging)
    # only the pair across the two answers counts, whatever the same-answer pair says
    assert dispute["cross_answer_contradiction"] == pytest.approx(0.9)
    assert parts["cross_answer_contradiction"] == pytest.approx(0.05)
    assert parts["cross_answer_neutral"] == pytest.approx(0.9)
    assert dispute["dissent_entailment"] == pytest.approx(0.6)  # passage 2 holds "61"
    assert dispute["candidate_count"] > 0


def test_an_answer_inside_another_is_nested_and_possessives_are_the_same_answer():
    tagging = _tagging(["a", "b", "c"], kind="entity", leading="Velmark")
    tags = tagging.by_id()
    nested = side_signals({0: "Port Velmark", 1: "Velmark"}, [], tags, tagging)
    same = side_signals({0: "Velmark's", 1: "Velmark"}, [_pair(0, 1, CLASH)], tags, tagging)
    apart = side_signals({0: "Tarvosa", 1: "Velmark"}, [], tags, tagging)
    assert nested["answer_nested"] == 1.0 and apart["answer_nested"] == 0.0
    assert same["cross_answer_contradiction"] == 0.0  # one answer: no sides
    assert same["dissent_entailment"] == 0.0


def test_value_profile_counts_the_most_repeated_value_of_the_answer_kind():
    lone = _tagging(["It is 52 m tall.", "At 52 metres...", "Height: 52 m", "All 61 m of it"])
    split = _tagging(["It is 52 m tall.", "The deck is 61 m up.", "In 1990 it was 48 m."])
    assert value_top_share(lone) == 0.75
    assert value_top_share(split) == pytest.approx(1 / 3)
    names = _tagging(
        ["The Arlen tower stands in Dovrik.", "Dovrik's tower...", "It is in Marle."],
        kind="entity",
    )
    assert value_top_share(names) == pytest.approx(2 / 3)  # "arlen" is a question word
    prose = _tagging(["It is 52 m tall."], kind="sentence")
    assert value_top_share(prose) == 0.0


def test_side_recipes_extend_the_compact_set():
    for name in ("compact+sides", "compact+support+sides"):
        assert RECIPE_SETS[name][: len(RECIPE_SETS["compact"])] == RECIPE_SETS["compact"]
        assert set(SIDES) <= set(RECIPE_SETS[name])


def test_a_shown_recipe_is_read_from_its_feature_set_and_l2():
    from conflictdesk.training.type_transfer_report import parse_recipe

    recipe = parse_recipe("compact+sides:30")
    assert (recipe.features, recipe.l2, recipe.public) == ("compact+sides", 30.0, True)
    with pytest.raises(ValueError, match="unknown feature set"):
        parse_recipe("nonesuch:30")
