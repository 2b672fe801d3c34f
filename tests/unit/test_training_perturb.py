"""The rule-based contradiction generators (conflictdesk.training.perturb)."""

from __future__ import annotations

import random
import re

import pytest

from conflictdesk.training import perturb
from conflictdesk.training.nli_data import LABEL_ID


def rng() -> random.Random:
    return random.Random(0)


def test_change_year_moves_the_year_and_nothing_else():
    out = perturb.change_year("The bridge opened in 1932 after 4 years.", rng())
    assert out is not None
    year = int(re.search(r"\d{4}", out).group())
    assert year != 1932 and 1917 <= year <= 1947
    assert out.replace(str(year), "1932") == "The bridge opened in 1932 after 4 years."


def test_change_number_keeps_thousands_format_and_ignores_years():
    out = perturb.change_number("In 2010 there were 3,559 people.", rng())
    assert out is not None and "2010" in out and "3,559" not in out
    assert re.search(r"\d{1,3}(,\d{3})+ people", out)
    assert perturb.change_number("It happened in 1999.", rng()) is None


def test_change_month():
    out = perturb.change_month("She was born on 3 July 1750.", rng())
    assert out is not None and "July" not in out and "1750" in out


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("He was not born in Paris.", "He was born in Paris."),
        ("They didn't win the cup.", "They did win the cup."),
        ("The law is fair.", "The law is not fair."),
        ("He never lost a match.", "He lost a match."),
    ],
)
def test_toggle_negation(sentence, expected):
    assert perturb.toggle_negation(sentence, rng()) == expected


def test_toggle_negation_without_an_auxiliary_does_not_apply():
    assert perturb.toggle_negation("Dogs bark loudly.", rng()) is None


def test_swap_entities_swaps_two_names_not_the_first_word():
    out = perturb.swap_entities("Yesterday Arsenal defeated Chelsea at Wembley.", rng())
    assert out is not None and out != "Yesterday Arsenal defeated Chelsea at Wembley."
    assert out.startswith("Yesterday ")
    words = ["Yesterday", "Arsenal", "defeated", "Chelsea", "at", "Wembley"]
    assert sorted(out.rstrip(".").split()) == sorted(words)
    assert perturb.swap_entities("Yesterday Arsenal won.", rng()) is None


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("All dogs are friendly.", "No dogs are friendly."),
        ("None of the votes were counted.", "All of the votes were counted."),
        ("She always arrives late.", "She never arrives late."),
    ],
)
def test_flip_quantifier(sentence, expected):
    assert perturb.flip_quantifier(sentence, rng()) == expected


def test_rule_pairs_are_seeded_labelled_and_sized():
    premises = [
        "The tower was built in 1889 by 300 workers.",
        "All students passed the exam in June.",
        "The company was not founded by John Smith.",
        "Paris is the capital of France and has 2,100,000 inhabitants.",
    ] * 50 + [f"Sentence number {i} is about Alice and Bob in {1900 + i}." for i in range(200)]
    first = perturb.rule_pairs(premises, 120, seed=3)
    again = perturb.rule_pairs(premises, 120, seed=3)
    assert first == again
    assert 100 <= len(first) <= 120
    labels = {row.label for row in first}
    assert labels == {LABEL_ID["entailment"], LABEL_ID["contradiction"]}
    for row in first:
        if row.label == LABEL_ID["contradiction"]:
            assert row.hypothesis != row.premise and row.source.startswith("rules:")
        else:
            assert row.hypothesis == row.premise
