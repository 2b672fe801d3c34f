from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from conflictdesk.retrieval import fts_query, reciprocal_rank_fusion, top_k_cosine


def test_rrf_scores_and_order():
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "d"]], k=60)
    scores = dict(fused)
    assert [item for item, _ in fused][:2] == ["b", "a"]
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["d"] == pytest.approx(1 / 62)
    assert scores["a"] == pytest.approx(1 / 61)


def test_rrf_ties_are_deterministic_and_duplicates_rejected():
    fused = reciprocal_rank_fusion([["x", "y"], ["y", "x"]])
    assert [i for i, _ in fused] == ["x", "y"]  # equal scores: best rank, then first seen
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a", "a"]])
    assert reciprocal_rank_fusion([]) == []


def test_top_k_cosine_matches_full_sort():
    rng = np.random.default_rng(0)
    m = rng.normal(size=(1000, 16)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    q = m[123] + 0.01
    idx, scores = top_k_cosine(m, q, 10)
    expected = np.argsort(-(m @ q.astype(np.float32)), kind="stable")[:10]
    assert list(idx) == list(expected)
    assert idx[0] == 123
    assert np.all(np.diff(scores) <= 0)


def test_top_k_cosine_edges():
    m = np.eye(3, dtype=np.float32)
    idx, _ = top_k_cosine(m, np.array([0, 1, 0]), 10)
    assert list(idx) == [1, 0, 2]  # k > n returns all, ties by index
    assert top_k_cosine(np.zeros((0, 3), np.float32), np.ones(3), 5)[0].size == 0
    with pytest.raises(ValueError):
        top_k_cosine(m, np.ones(4), 1)


@pytest.mark.parametrize(
    "text",
    ['what "is" the dose?', "AND OR NOT", "a*b^c:d", 'unbalanced "quote', "NEAR(x y)",
     "(((", "dose -- 40mg; DROP TABLE", "café über naïve", "col:umn {x}"],
)
def test_fts_query_never_raises_in_fts5(text):
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(body)")
    conn.execute("INSERT INTO t VALUES ('the dose is 40mg for adults, café')")
    match = fts_query(text)
    if text == "(((":
        assert match is None  # nothing to search for; the store then skips BM25
        return
    conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,)).fetchall()


def test_fts_query_drops_stopwords_unless_nothing_left():
    assert fts_query("What is the dose?") == '"dose"'
    assert fts_query("what is the") == '"what" OR "is" OR "the"'
    assert fts_query("?!,") is None
