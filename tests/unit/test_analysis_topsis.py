"""Entropy-TOPSIS (ConflictRAG eq. 4) on a 3×5 example computed independently in the test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conflictdesk.analysis.resolve import (
    AuthorityTable,
    criteria_matrix,
    entropy_weights,
    topsis,
)
from conflictdesk.analysis.types import PairDetection, Tagging
from conflictdesk.types import Passage

X = [
    [0.9, 0.2, 0.8, 0.5, 0.6],
    [0.4, 0.9, 0.6, 0.3, 0.7],
    [0.6, 0.5, 0.9, 0.8, 0.2],
]


def _by_hand(x):
    m, n = len(x), len(x[0])
    entropy = []
    for j in range(n):
        total = sum(x[i][j] for i in range(m))
        entropy.append(
            -sum((x[i][j] / total) * math.log(x[i][j] / total) for i in range(m)) / math.log(m)
        )
    spread = [1 - e for e in entropy]
    w = [s / sum(spread) for s in spread]
    norms = [math.sqrt(sum(x[i][j] ** 2 for i in range(m))) for j in range(n)]
    v = [[w[j] * x[i][j] / norms[j] for j in range(n)] for i in range(m)]
    best = [max(v[i][j] for i in range(m)) for j in range(n)]
    worst = [min(v[i][j] for i in range(m)) for j in range(n)]
    closeness = []
    for i in range(m):
        d_plus = math.sqrt(sum((v[i][j] - best[j]) ** 2 for j in range(n)))
        d_minus = math.sqrt(sum((v[i][j] - worst[j]) ** 2 for j in range(n)))
        closeness.append(d_minus / (d_plus + d_minus))
    return entropy, w, closeness


def test_entropy_weights_match_eq4():
    entropy, w, _ = _by_hand(X)
    # E_1 by hand: p = (.9, .4, .6)/1.9 → −Σ p ln p / ln 3 = 1.045978 / 1.098612
    assert entropy[0] == pytest.approx(0.952090, abs=1e-6)
    got = entropy_weights(np.array(X))
    assert got == pytest.approx(w, abs=1e-9)
    assert got == pytest.approx([0.131503, 0.378650, 0.033982, 0.186592, 0.269273], abs=1e-6)
    assert got.sum() == pytest.approx(1.0)


def test_topsis_closeness_and_ranking():
    _, w, closeness = _by_hand(X)
    got = topsis(np.array(X), np.array(w))
    assert got == pytest.approx(closeness, abs=1e-9)
    assert got == pytest.approx([0.338224, 0.724423, 0.414178], abs=1e-6)
    assert list(np.argsort(-got)) == [1, 2, 0]


def test_constant_column_gets_zero_weight_and_zero_column_is_safe():
    x = np.array([[0.5, 0.9, 0.0], [0.5, 0.1, 0.0], [0.5, 0.4, 0.0]])
    w = entropy_weights(x)
    assert w[0] == pytest.approx(0.0, abs=1e-12)
    assert w[2] == pytest.approx(0.0, abs=1e-12)
    assert w[1] == pytest.approx(1.0)
    closeness = topsis(x, w)
    assert np.all((closeness >= 0) & (closeness <= 1))
    assert int(np.argmax(closeness)) == 0


def test_single_row_gets_equal_weights():
    assert entropy_weights(np.array([[0.2, 0.4, 0.6, 0.8, 1.0]])) == pytest.approx([0.2] * 5)


def test_authority_table_default_and_neutral():
    table = AuthorityTable()
    assert table.score(Passage(0, "x", source="www.cdc.gov")) == pytest.approx(0.95)
    assert table.score(Passage(1, "x", url="https://someone.blogspot.com/post")) == pytest.approx(
        0.3
    )
    assert table.score(Passage(2, "x", source="Unknown Gazette")) == pytest.approx(0.5)
    custom = AuthorityTable({"gazette": 0.8}, neutral=0.4)
    assert custom.score(Passage(2, "x", source="Unknown Gazette")) == pytest.approx(0.8)
    assert custom.score(Passage(3, "x")) == pytest.approx(0.4)


def test_authority_table_from_file(tmp_path):
    path = tmp_path / "authority.json"
    path.write_text('{"weights": {"example.org": 0.9}, "neutral": 0.3}')
    table = AuthorityTable.from_file(path)
    assert table.score(Passage(0, "x", url="https://example.org/a")) == pytest.approx(0.9)
    assert table.score(Passage(1, "x")) == pytest.approx(0.3)


def test_criteria_matrix_columns_in_unit_range():
    from datetime import date

    from conflictdesk.analysis.types import ClaimFrame, PassageTag, QueryForm
    from conflictdesk.types import Tag

    passages = [
        Passage(0, "WHO reported 120 cases in Geneva in 2020.", source="who.int", relevance=2.0),
        Passage(1, "Some cases were reported.", source="forum", relevance=1.0),
    ]
    tagging = Tagging(
        ClaimFrame("q", QueryForm.CLAIM, "q"),
        (
            PassageTag(0, Tag.SUPPORT, 0.9, 0.9, 0.05, 0.05),
            PassageTag(1, Tag.REFUTE, 0.8, 0.1, 0.1, 0.8),
        ),
        "t",
    )
    matrix = criteria_matrix(
        passages,
        tagging,
        PairDetection((), 0.7, "m"),
        AuthorityTable(),
        {0: date(2020, 1, 1), 1: date(2018, 1, 1)},
    )
    assert matrix.shape == (2, 5)
    assert matrix[0].tolist() == pytest.approx([0.95, 1.0, 1.0, 1.0, 0.0])
    assert matrix[1][:3].tolist() == pytest.approx([0.25, 0.0, 0.5])
    assert matrix[1][3] == pytest.approx(0.0)  # no number, no entity
