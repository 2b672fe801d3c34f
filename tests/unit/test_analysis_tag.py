"""ConRAG A-stage tagging: topicality gate, NLI tags in one batch, caching."""

from __future__ import annotations

import pytest

from conflictdesk.analysis.tag import (
    lexical_similarity,
    tag_from_scores,
    tag_passages,
    topicality,
)
from conflictdesk.analysis.text import idf_weights
from conflictdesk.analysis.types import QueryForm
from conflictdesk.types import NLIScores, Passage, Tag
from tests.fakes import FakeNLI, MemoryCache


def test_tag_from_scores_maps_labels():
    assert tag_from_scores(NLIScores(0.7, 0.2, 0.1)) == (Tag.SUPPORT, 0.7)
    assert tag_from_scores(NLIScores(0.1, 0.2, 0.7)) == (Tag.REFUTE, 0.7)
    assert tag_from_scores(NLIScores(0.2, 0.6, 0.2)) == (Tag.IRRELEVANT, 0.6)


def test_topicality_is_relative_to_the_best_passage():
    assert topicality({0: 0.8, 1: 0.4, 2: -0.1}) == {0: 1.0, 1: 0.5, 2: 0.0}
    assert topicality({0: 0.0, 1: -0.2}) == {0: 1.0, 1: 1.0}


def test_lexical_similarity_is_idf_weighted_query_coverage():
    passages = [Passage(0, "alpha beta"), Passage(1, "alpha gamma"), Passage(2, "delta")]
    idf = idf_weights([p.text for p in passages])
    sim = lexical_similarity("alpha beta?", passages, idf)
    assert sim[0] == pytest.approx(1.0)
    assert sim[1] == pytest.approx(idf["alpha"] / (idf["alpha"] + idf["beta"]))
    assert sim[2] == 0.0


PASSAGES = [
    Passage(0, "Bananas are rich in potassium. The fifth season premiered on April 4, 2017."),
    Passage(1, "The fifth season premiered on April 4, 2017 on Fox."),
    Passage(2, "The fifth season premiered on May 30, 2017."),
    Passage(3, "Potatoes grow underground in cool climates."),
]
QUESTION = "When did the fifth season premiere?"
SIMILARITY = {0: 0.7, 1: 0.8, 2: 0.75, 3: 0.1}


def test_wh_question_tags_on_topic_passages_against_the_leading_answer_in_one_batch():
    nli = FakeNLI()
    tagging = tag_passages(QUESTION, PASSAGES, nli, similarity=SIMILARITY)
    frame = tagging.frame
    assert frame.form is QueryForm.WH
    assert frame.leading == "April 4, 2017"
    assert frame.candidates[0].passage_ids == (0, 1)
    assert frame.hypothesis == f"The answer to the question {QUESTION} is April 4, 2017."
    assert len(nli.history) == 1
    assert [premise for premise, _ in nli.history[0]] == [p.text for p in PASSAGES[:3]]
    by_id = tagging.by_id()
    assert by_id[0].key_sentence == "The fifth season premiered on April 4, 2017."
    assert by_id[2].answer == "May 30, 2017"
    off = by_id[3]
    assert (off.tag, off.method, off.on_topic) == (Tag.IRRELEVANT, "topicality", False)
    # hybrid topicality: (lexical 0 / best + dense 0.1 / 0.8) / 2
    assert off.topicality == pytest.approx((0 + 0.1 / 0.8) / 2)
    assert off.confidence == pytest.approx(1 - off.topicality)
    assert tagging.method == "nli:fake-nli"


def test_wh_question_without_spans_falls_back_to_sentence_answers_and_says_so():
    passages = [Passage(0, "it was painted long ago by a local artist.")]
    tagging = tag_passages("Who painted it?", passages, FakeNLI())
    assert tagging.frame.method == "rule:sentence-fallback"
    assert tagging.frame.hypothesis == "it was painted long ago by a local artist."


def test_yes_no_question_is_tagged_against_its_declarative_form():
    hypothesis = "Coffee cause cancer"
    nli = FakeNLI(
        override={
            ("Studies show coffee does cause cancer.", hypothesis): NLIScores(0.8, 0.1, 0.1),
            ("Coffee does not cause cancer.", hypothesis): NLIScores(0.1, 0.1, 0.8),
        }
    )
    passages = [
        Passage(0, "Studies show coffee does cause cancer."),
        Passage(1, "Coffee does not cause cancer."),
    ]
    tagging = tag_passages("Does coffee cause cancer?", passages, nli)
    assert tagging.frame.hypothesis == hypothesis
    assert [t.tag for t in tagging.tags] == [Tag.SUPPORT, Tag.REFUTE]
    assert [t.confidence for t in tagging.tags] == [0.8, 0.8]


def test_cache_serves_repeated_tagging_without_model_calls():
    cache, nli = MemoryCache(), FakeNLI()
    first = tag_passages(QUESTION, PASSAGES, nli, similarity=SIMILARITY, cache=cache)
    second = tag_passages(QUESTION, PASSAGES, nli, similarity=SIMILARITY, cache=cache)
    assert len(nli.history) == 1
    assert cache.hits == 3
    assert first.tags == second.tags


def test_topicality_averages_dense_and_lexical_ratios():
    passages = [
        Passage(0, "Velsarin maximum daily dose for adults is 250 mg."),
        Passage(1, "Lumivex daily intake for adults is 12 micrograms."),
    ]
    question = "What is the maximum daily dose of velsarin for adults?"
    dense_only_close = {0: 0.72, 1: 0.37 * 2}  # dense alone would rank passage 1 first
    tagging = tag_passages(question, passages, FakeNLI(), similarity=dense_only_close)
    by_id = tagging.by_id()
    idf = idf_weights([p.text for p in passages])
    lexical = lexical_similarity(question, passages, idf)
    expected = (lexical[1] / lexical[0] + 1.0) / 2
    assert by_id[1].topicality == pytest.approx(expected)
    assert by_id[0].topicality == pytest.approx((1.0 + 0.72 / 0.74) / 2)


def test_a_statement_is_read_by_the_statement_nli_and_an_answer_claim_is_not():
    statements = FakeNLI()
    statements.model_id = "fake-cascade"
    passages = [Passage(0, "Bexa is safe for children."), Passage(1, "Bexa is not safe.")]
    nli = FakeNLI()
    tagging = tag_passages("Is Bexa safe?", passages, nli, statement_nli=statements)
    assert tagging.frame.form is QueryForm.YES_NO and not nli.history
    assert statements.history == [[(p.text, tagging.frame.hypothesis) for p in passages]]
    assert tagging.method == "nli:fake-cascade"
    statements.history.clear()
    tagging = tag_passages(QUESTION, PASSAGES, nli, similarity=SIMILARITY,
                           statement_nli=statements)  # fmt: skip
    assert tagging.frame.form is QueryForm.WH and not statements.history
    assert tagging.method == "nli:fake-nli"
