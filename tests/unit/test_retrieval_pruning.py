"""Pruning query terms too common to score (`prune_common_terms`), pure."""

from __future__ import annotations

from conflictdesk.retrieval import fts_query
from conflictdesk.retrieval.lexical import match_expression, prune_common_terms, query_terms


def test_common_terms_are_dropped_rare_ones_kept_in_query_order():
    freq = {"harbour": 90_000, "lighthouse": 40, "tall": 3_000}
    kept = prune_common_terms(["harbour", "lighthouse", "tall"], freq, 100_000)
    assert kept == ["lighthouse", "tall"]  # 3,000 ≤ max(5% × 100,000, 2,000)
    assert match_expression(kept) == '"lighthouse" OR "tall"'


def test_rarest_term_survives_when_every_term_is_common():
    freq = {"harbour": 90_000, "quay": 60_000, "boat": 70_000}
    assert prune_common_terms(["harbour", "quay", "boat"], freq, 100_000) == ["quay"]


def test_small_collections_keep_every_matching_term():
    freq = {"quillmere": 3, "lighthouse": 4}  # 80% of 5 passages, but far below min_count
    assert prune_common_terms(["quillmere", "lighthouse"], freq, 5) == ["quillmere", "lighthouse"]


def test_terms_matching_nothing_are_not_sent():
    assert prune_common_terms(["zzyzx", "dose"], {"dose": 10}, 100) == ["dose"]
    assert prune_common_terms(["zzyzx"], {}, 100) == []
    assert match_expression([]) is None


def test_fts_query_is_query_terms_quoted():
    assert query_terms("What is the DOSE, the dose?") == ["dose"]
    assert fts_query("What is the DOSE, the dose?") == '"dose"'


def test_kept_terms_are_capped_by_total_matches_rarest_first():
    freq = {"a1": 4_000, "b2": 5_000, "c3": 3_000, "d4": 4_500}
    kept = prune_common_terms(["a1", "b2", "c3", "d4"], freq, 100_000, max_scored=12_000)
    assert kept == ["a1", "c3", "d4"]  # 3,000 + 4,000 + 4,500 ≤ 12,000; b2 would pass it


def test_a_lone_very_common_term_is_left_to_the_dense_ranking():
    freq = {"harbour": 60_000, "quay": 90_000}
    assert prune_common_terms(["harbour", "quay"], freq, 100_000, dense_ranks=True) == []
    assert prune_common_terms(["harbour", "quay"], freq, 100_000) == ["harbour"]  # BM25 only
