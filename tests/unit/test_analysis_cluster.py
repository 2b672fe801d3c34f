"""ConRAG evidence clustering: graph weights, modularity communities, dominant tags."""

from __future__ import annotations

import numpy as np
import pytest

from conflictdesk.analysis.cluster import (
    agreement,
    cluster_passages,
    edge_weights,
    summarise_cluster,
)
from conflictdesk.analysis.types import ClaimFrame, PassageTag, QueryForm, Tagging
from conflictdesk.types import Passage, Tag
from tests.fakes import FakeEmbedder


def _tag(pid, tag, u):
    return PassageTag(pid, tag, u, 0, 0, 0)


def test_agreement_sign_and_magnitude():
    assert agreement(_tag(0, Tag.SUPPORT, 0.9), _tag(1, Tag.SUPPORT, 0.5)) == pytest.approx(0.45)
    assert agreement(_tag(0, Tag.SUPPORT, 0.9), _tag(1, Tag.REFUTE, 0.5)) == pytest.approx(-0.45)
    assert agreement(_tag(0, Tag.REFUTE, 0.8), _tag(1, Tag.REFUTE, 0.5)) == pytest.approx(0.4)
    assert agreement(_tag(0, Tag.IRRELEVANT, 0.9), _tag(1, Tag.SUPPORT, 0.9)) == 0.0


def test_edge_weight_formula_on_orthogonal_and_identical_embeddings():
    passages = [Passage(0, "Paris in 2020"), Passage(1, "Paris in 2020"), Passage(2, "lyon")]
    tags = [_tag(0, Tag.SUPPORT, 1.0), _tag(1, Tag.REFUTE, 0.5), _tag(2, Tag.SUPPORT, 1.0)]
    emb = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    w = edge_weights(passages, tags, emb)
    # 0.5·1 + 0.25·J({paris, 2020},{paris, 2020}) + 0.25·(−0.5) = 0.625
    assert w[0, 1] == pytest.approx(0.625)
    # orthogonal, no shared spans, same stance 1·1 → 0.25
    assert w[0, 2] == pytest.approx(0.25)
    # orthogonal, opposite stance → negative, clipped to 0
    assert w[1, 2] == 0.0
    assert np.allclose(w, w.T) and np.all(np.diag(w) == 0)


def test_summarise_cluster_dominant_tag_by_confidence_sum():
    cluster = summarise_cluster(
        3, [_tag(1, Tag.SUPPORT, 0.6), _tag(2, Tag.SUPPORT, 0.5), _tag(0, Tag.REFUTE, 0.9)]
    )
    assert cluster.members == (0, 1, 2)
    assert cluster.dominant_tag is Tag.SUPPORT
    assert cluster.confidence == pytest.approx(1.1 / 2.0)


def test_two_opposed_topical_groups_become_two_clusters():
    texts = [
        "vitamin d intake of 400 iu daily recommended for adults guideline",
        "adults guideline recommended vitamin d daily intake 400 iu",
        "daily vitamin d guideline 400 iu adults recommended intake",
        "solar panels on rooftops produce electricity from sunlight cells",
        "rooftops solar panels produce sunlight electricity cells",
        "electricity from rooftops solar cells sunlight panels produce",
    ]
    passages = [Passage(i, t) for i, t in enumerate(texts)]
    tags = tuple(
        [_tag(i, Tag.SUPPORT, 0.9) for i in range(3)]
        + [_tag(i, Tag.REFUTE, 0.8) for i in range(3, 6)]
    )
    tagging = Tagging(ClaimFrame("q", QueryForm.CLAIM, "q"), tags, "t")
    embedder = FakeEmbedder()
    clusters = cluster_passages(passages, tagging, embedder)
    assert len(embedder.history) == 1
    assert sorted(c.members for c in clusters) == [(0, 1, 2), (3, 4, 5)]
    by_members = {c.members: c for c in clusters}
    assert by_members[(0, 1, 2)].dominant_tag is Tag.SUPPORT
    assert by_members[(3, 4, 5)].dominant_tag is Tag.REFUTE
    assert by_members[(3, 4, 5)].confidence == pytest.approx(1.0)


def test_given_embeddings_skip_the_embedder():
    passages = [Passage(0, "a b"), Passage(1, "c d")]
    tags = (_tag(0, Tag.SUPPORT, 0.9), _tag(1, Tag.SUPPORT, 0.9))
    tagging = Tagging(ClaimFrame("q", QueryForm.CLAIM, "q"), tags, "t")
    embedder = FakeEmbedder()
    clusters = cluster_passages(passages, tagging, embedder, embeddings=np.eye(2))
    assert embedder.history == []
    assert sum(len(c.members) for c in clusters) == 2


def test_off_topic_passages_form_one_trailing_cluster_and_are_not_embedded():
    passages = [Passage(0, "alpha beta gamma"), Passage(1, "alpha beta delta"),
                Passage(2, "unrelated words"), Passage(3, "other unrelated")]  # fmt: skip
    tags = (
        _tag(0, Tag.SUPPORT, 0.9),
        _tag(1, Tag.SUPPORT, 0.8),
        PassageTag(2, Tag.IRRELEVANT, 0.7, 0, 0, 0, topicality=0.3, method="topicality"),
        PassageTag(3, Tag.IRRELEVANT, 0.6, 0, 0, 0, topicality=0.4, method="topicality"),
    )
    tagging = Tagging(ClaimFrame("q", QueryForm.CLAIM, "q"), tags, "t")
    embedder = FakeEmbedder()
    clusters = cluster_passages(passages, tagging, embedder)
    assert embedder.history == [["alpha beta gamma", "alpha beta delta"]]
    assert clusters[-1].members == (2, 3)
    assert clusters[-1].dominant_tag is Tag.IRRELEVANT
    assert sorted(m for c in clusters[:-1] for m in c.members) == [0, 1]
