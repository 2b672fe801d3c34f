"""Neutral-pair builders for NLI training (conflictdesk.training.neutrals)."""

from __future__ import annotations

import random

from conflictdesk.training.neutrals import (
    ENTAILMENT,
    NEUTRAL,
    contained_sentence_pairs,
    distinct_facts,
    document_sentences,
    same_document_pairs,
    unrelated_pairs,
)
from conflictdesk.training.nli_data import LABEL_ID, NLIExample
from conflictdesk.vocabulary import content_stems

ROWS = [
    NLIExample("A man plays a guitar on a stage.", "A musician performs.", 0, "t"),
    NLIExample("Tidal turbines produce electricity from sea currents.", "Turbines idle.", 2, "t"),
    NLIExample("The senate passed the budget in March.", "Lawmakers voted.", 1, "t"),
    NLIExample("A man sings loudly near a guitar.", "A guitar is broken.", 1, "t"),
]


def test_unrelated_pairs_are_neutral_and_share_no_content_word():
    pairs = unrelated_pairs(ROWS, 30, random.Random(0))
    assert len(pairs) == 30
    for pair in pairs:
        assert pair.label == NEUTRAL == LABEL_ID["neutral"]
        assert not content_stems(pair.premise) & content_stems(pair.hypothesis)
        assert pair.source == "neutral:unrelated"
    # row 0's premise and row 3's hypothesis share "guitar": never paired
    assert not any(p.premise == ROWS[0].premise and "guitar" in p.hypothesis for p in pairs)


def test_unrelated_pairs_need_two_rows():
    assert unrelated_pairs(ROWS[:1], 5, random.Random(0)) == []


def test_document_sentences_drop_short_ones():
    text = "Home | Contact. Lumivex supports vision in dim light. It is cheap."
    assert document_sentences(text) == ["Lumivex supports vision in dim light."]


def test_distinct_facts_rejects_repeats_and_keeps_other_facets():
    assert distinct_facts(
        "Lumivex supports vision in dim light.", "Lumivex helps the body keep its bone density."
    )
    assert not distinct_facts(
        "Lumivex supports vision in dim light.", "In dim light, lumivex supports vision well."
    )


def test_same_document_pairs_take_two_sentences_of_one_document():
    texts = [
        (
            "Lumivex supports vision in dim light for most adults. The recommended daily intake "
            "of lumivex is twelve micrograms for adults."
        ),
        "Only one sentence here with enough words.",
        (
            "The Orvane board named Ilse Varga chief executive in 2024. Its headquarters moved "
            "to the harbour district after the merger."
        ),
    ]
    pairs = same_document_pairs(texts, 10, random.Random(1))
    assert len(pairs) == 2  # one per document with two sentences
    for pair in pairs:
        assert pair.label == NEUTRAL and pair.source == "neutral:same-document"
        assert any(pair.premise in t and pair.hypothesis in t for t in texts)
        assert pair.premise != pair.hypothesis
    assert len(same_document_pairs(texts, 1, random.Random(1))) == 1


def test_contained_sentence_pairs_entail_a_later_sentence_of_the_document():
    long_text = (
        "Lumivex is a vitamin found mainly in fermented barley. The Halden Institute reviewed "
        "four trials of lumivex intake. The recommended daily intake for adults is twelve "
        "micrograms."
    )
    short_text = "Lumivex is a vitamin found in barley. It helps vision in dim light a lot."
    pairs = contained_sentence_pairs([long_text, short_text], 5, random.Random(3))
    assert len(pairs) == 2  # the two later sentences; the short text has only two sentences
    assert len({p.hypothesis for p in pairs}) == 2
    for pair in pairs:
        assert pair.label == ENTAILMENT == LABEL_ID["entailment"]
        assert pair.premise == long_text and pair.hypothesis in long_text
        assert not long_text.startswith(pair.hypothesis)
    assert len(contained_sentence_pairs([long_text], 1, random.Random(3))) == 1
