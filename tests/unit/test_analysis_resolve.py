"""Resolution by type: recency, Entropy-TOPSIS, viewpoints, consolidate, direct."""

from __future__ import annotations

import pytest

from conflictdesk.analysis.resolve import resolve
from conflictdesk.analysis.types import (
    ClaimFrame,
    Cluster,
    ConflictPair,
    ConflictVerdict,
    PairDetection,
    PassageTag,
    QueryForm,
    Tagging,
)
from conflictdesk.types import ConflictType, PairType, Passage, Tag

S, R, I = Tag.SUPPORT, Tag.REFUTE, Tag.IRRELEVANT


def _tagging(rows):
    tags = tuple(PassageTag(pid, tag, 0.9, 0, 0, 0, answer=answer) for pid, tag, answer in rows)
    return Tagging(ClaimFrame("q", QueryForm.WH, "h"), tags, "t")


def _verdict(kind):
    return ConflictVerdict(kind, "why", "rules")


EMPTY = PairDetection((), 0.7, "m")


def test_outdated_ranks_newest_first_metadata_then_text_undated_last():
    passages = [
        Passage(0, "In 2019 there were 30.", relevance=0.9),
        Passage(1, "As of March 2024 there are 38.", relevance=0.5),
        Passage(2, "There are 35.", date="2023-01-10", relevance=0.7),
        Passage(3, "There are many.", relevance=1.0),
    ]
    tagging = _tagging([(0, S, "30"), (1, R, "38"), (2, R, "35"), (3, I, None)])
    result = resolve(passages, tagging, [], EMPTY, _verdict(ConflictType.OUTDATED))
    assert result.rule == "recency"
    assert result.ranking == (1, 2, 0, 3)
    assert result.dates == {1: "2024-03-01", 2: "2023-01-10", 0: "2019-01-01"}


def test_misinformation_uses_entropy_topsis_and_prefers_the_credible_consistent_source():
    passages = [
        Passage(
            0,
            "The season premiered on April 4, 2017 on Fox.",
            source="fox.com",
            relevance=0.9,
            date="2017-06-10",
        ),
        Passage(
            1,
            "Season 5 premiered April 4, 2017.",
            source="en.wikipedia.org",
            relevance=0.8,
            date="2018-01-01",
        ),
        Passage(
            2,
            "It came out May 30, 2017 i think",
            source="forum.example",
            relevance=0.85,
            date="2017-06-01",
        ),
    ]
    tagging = _tagging([(0, S, "April 4, 2017"), (1, S, "April 4, 2017"), (2, R, "May 30, 2017")])
    pairs = PairDetection(
        (
            ConflictPair(0, 1, 0.05, False, PairType.NONE, "mlp", 0.05, 0.95),
            ConflictPair(0, 2, 0.9, True, PairType.FACTUAL, "mlp", 0.9, 0.9),
            ConflictPair(1, 2, 0.9, True, PairType.FACTUAL, "mlp", 0.9, 0.9),
        ),
        0.7,
        "m",
    )
    result = resolve(passages, tagging, [], pairs, _verdict(ConflictType.MISINFORMATION))
    assert result.rule == "entropy_topsis"
    assert result.criteria == ("authority", "recency", "relevance", "specificity", "consistency")
    assert sum(result.weights) == pytest.approx(1.0)
    assert result.ranking[-1] == 2
    assert set(result.scores) == {0, 1, 2}
    assert result.matrix[2][4] == pytest.approx(0.1)  # consistency: 1 − 0.9 with both others
    assert result.matrix[2][0] == pytest.approx(0.25)  # "forum" in the authority table
    assert result.matrix[0][0] == pytest.approx(0.5)  # fox.com is unknown: neutral, not "x.com"


def test_opinions_present_every_viewpoint_in_turn():
    passages = [Passage(i, f"view {i}", relevance=r) for i, r in enumerate([0.9, 0.8, 0.7, 0.6])]
    tagging = _tagging([(0, S, None), (1, S, None), (2, R, None), (3, R, None)])
    clusters = [Cluster(0, (0, 1), S, 1.0), Cluster(1, (2, 3), R, 1.0)]
    result = resolve(
        passages, tagging, clusters, EMPTY, _verdict(ConflictType.CONFLICTING_OPINIONS)
    )
    assert result.rule == "viewpoints"
    assert [v.passage_ids for v in result.viewpoints] == [(0, 1), (2, 3)]
    assert result.ranking == (0, 2, 1, 3)


def test_complementary_consolidates_one_passage_per_answer_and_no_conflict_is_direct():
    passages = [Passage(i, f"p {i}", relevance=r) for i, r in enumerate([0.5, 0.9, 0.7, 0.6])]
    tagging = _tagging([(0, S, "area"), (1, I, None), (2, S, "area"), (3, I, "traffic")])
    clusters = [Cluster(0, (0, 2, 3), S, 1.0), Cluster(1, (1,), I, 1.0)]
    comp = resolve(passages, tagging, clusters, EMPTY, _verdict(ConflictType.COMPLEMENTARY))
    assert comp.rule == "consolidate"
    assert [v.passage_ids for v in comp.viewpoints] == [(2, 0), (3,)]
    assert comp.ranking == (2, 3, 0, 1)
    direct = resolve(passages, tagging, clusters, EMPTY, _verdict(ConflictType.NO_CONFLICT))
    assert direct.rule == "direct" and direct.ranking == (2, 0, 3, 1)


def test_complementary_leads_with_the_partial_answer_most_passages_hold():
    # the most relevant passage holds an answer no other passage repeats; the answer two
    # passages hold comes first, each view's members still by relevance
    passages = [Passage(i, f"p {i}", relevance=r) for i, r in enumerate([0.9, 0.6, 0.7])]
    tagging = _tagging([(0, S, "north gate"), (1, S, "harbour"), (2, S, "harbour")])
    comp = resolve(passages, tagging, [], EMPTY, _verdict(ConflictType.COMPLEMENTARY))
    assert [v.passage_ids for v in comp.viewpoints] == [(2, 1), (0,)]
    assert comp.ranking == (2, 0, 1)
    # views of equal support keep their relevance order
    tagging = _tagging([(0, S, "north gate"), (1, S, "harbour"), (2, I, None)])
    comp = resolve(passages, tagging, [], EMPTY, _verdict(ConflictType.COMPLEMENTARY))
    assert [v.passage_ids for v in comp.viewpoints][:2] == [(0,), (1,)]


def test_opinions_split_a_mixed_cluster_by_stance():
    passages = [Passage(i, f"view {i}", relevance=r) for i, r in enumerate([0.9, 0.8, 0.7])]
    tagging = _tagging([(0, S, None), (1, R, None), (2, S, None)])
    clusters = [Cluster(0, (0, 1, 2), S, 0.6)]
    result = resolve(
        passages, tagging, clusters, EMPTY, _verdict(ConflictType.CONFLICTING_OPINIONS)
    )
    assert [(v.tag, v.passage_ids) for v in result.viewpoints] == [(S, (0, 2)), (R, (1,))]
    assert result.ranking == (0, 1, 2)


def test_passages_without_an_answer_rank_last_even_when_newest_or_credible():
    passages = [
        Passage(0, "The peak is 2,841 m.", date="2020-01-01", relevance=0.8),
        Passage(1, "It is 4,120 m tall.", date="2019-01-01", relevance=0.9),
        Passage(2, "Weather report for the valley.", date="2024-01-01", source="who.int",
                relevance=1.0),
    ]  # fmt: skip
    tagging = _tagging([(0, S, "2,841 m"), (1, R, "4,120 m"), (2, I, None)])
    outdated = resolve(passages, tagging, [], EMPTY, _verdict(ConflictType.OUTDATED))
    assert outdated.ranking == (0, 1, 2)
    topsis = resolve(passages, tagging, [], EMPTY, _verdict(ConflictType.MISINFORMATION))
    assert topsis.ranking[-1] == 2
    assert set(topsis.matrix) == {0, 1}
