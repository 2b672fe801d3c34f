"""Pair-type labelling rules and the stage-1 pair builders."""

from __future__ import annotations

import numpy as np
import pytest

from conflictdesk.analysis.pair_features import pair_features
from conflictdesk.training import pair_types, pairs
from conflictdesk.types import PAIR_TYPES, PairType


def test_non_conflicts_are_none():
    assert (
        pair_types.label_pair_type("I believe it is best.", "I think so.", False) == PairType.NONE
    )


def test_no_text_rule_assigns_opinion():
    a = "Critics argue the film is the best of the decade. I think it is overrated."
    for rule in (pair_types.label_pair_type, pair_types.label_pair_type_loose):
        assert rule(a, "I believe it is the worst film.", True) == PairType.FACTUAL


def test_temporal_needs_different_years_and_a_date_value():
    a, b = "The club was founded in 1911.", "The club was founded in 1912."
    assert pair_types.label_pair_type(a, b, True, disputed="1912") == PairType.TEMPORAL
    assert pair_types.label_pair_type(a, b, True, disputed="Bob") == PairType.FACTUAL
    c = "In 2020 the mayor is Ann."
    d = "In 2016 the mayor was Bob."
    assert pair_types.label_pair_type(c, d, True, disputed="Ann") == PairType.FACTUAL
    assert pair_types.label_pair_type_loose(c, d, True, disputed="Ann") == PairType.TEMPORAL
    assert pair_types.label_pair_type("In 2016 X.", "In 2016 Y.", True, "1999") == PairType.FACTUAL


def test_perspectrum_conflicts_are_opinion_by_provenance(tmp_path):
    import gzip
    import json

    folder = tmp_path / "perspectrum"
    folder.mkdir()
    rows = [
        {"question": "Q", "passage_a": "A", "passage_b": "B", "conflict": True},
        {"question": "Q", "passage_a": "A", "passage_b": "C", "conflict": False},
    ]
    with gzip.open(folder / "pairs_dev.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in rows)
    got = pairs.perspectrum_pairs("dev", root=tmp_path)
    assert [PAIR_TYPES[p.kind] for p in got] == [PairType.OPINION, PairType.NONE]


def test_pairs_builders_label_qacc_and_ramdocs():
    qacc = {
        "question": "When?",
        "firstAnswer": "1911",
        "firstContext": "['A', 'B']",
        "secondAnswerExist": "A",
        "secondAnswer": "1912",
        "secondContext": "['C']",
        "contexts": ["Opened in 1911.", "Since 1911.", "Opened in 1912.", "Cats."],
    }
    got = pairs.qacc_pairs([qacc], seed=0)
    labelled = {(p.text_i, p.text_j): p.conflict for p in got}
    assert labelled[("When?\nOpened in 1911.", "When?\nSince 1911.")] == 0
    assert labelled[("When?\nOpened in 1911.", "When?\nOpened in 1912.")] == 1
    assert all(p.kind == PAIR_TYPES.index(PairType.NONE) for p in got if not p.conflict)
    ram = {
        "question": "Q?",
        "gold_answers": ["A"],
        "wrong_answers": ["B"],
        "documents": [
            {"text": "x A", "type": "correct", "answer": "A"},
            {"text": "y A", "type": "correct", "answer": "A"},
            {"text": "z B", "type": "misinfo", "answer": "B"},
            {"text": "noise", "type": "noise", "answer": "unknown"},
        ],
    }
    got = pairs.ramdocs_pairs([ram])
    assert sorted(p.conflict for p in got) == [0, 1, 1]
    assert all("noise" not in p.text_i + p.text_j for p in got)


def test_side_text_and_features():
    assert pairs.side_text("Q?", "P") == "Q?\nP"
    assert pairs.side_text(None, "P") == "P"
    a = np.array([[1.0, 0.0]], dtype=np.float32)
    b = np.array([[0.5, 2.0]], dtype=np.float32)
    f = pair_features(a, b)
    assert f.shape == (1, 8) and f.dtype == np.float32
    assert f.tolist() == [[1.0, 0.0, 0.5, 2.0, 0.5, 2.0, 0.5, 0.0]]
    with pytest.raises(ValueError):
        pair_features(a, np.zeros((2, 2)))
