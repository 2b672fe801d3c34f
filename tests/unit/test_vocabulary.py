"""The one vocabulary module: its two reductions of a text to content words, and the word
lists that the sentence splitter, the entity finder and the query builder share."""

from __future__ import annotations

from conflictdesk import vocabulary
from conflictdesk.analysis import text as tx
from conflictdesk.retrieval.lexical import query_terms
from conflictdesk.text import split_sentences
from conflictdesk.vocabulary import content_stems, content_words


def test_content_stems_for_claim_matching():
    stems = content_stems("According to the 2010 census, it had 3,559 people living there.")
    assert stems == {"accor", "2010", "censu", "3559", "peopl", "livin"}
    assert content_stems("The answer to the question is it?") == set()


def test_content_words_for_the_analysis_stages():
    words = content_words("The answer to the question is: it's 3,559 people, both of them.")
    assert words == ["answer", "question", "559", "people"]


def test_one_abbreviation_list_for_sentences_and_titles():
    assert {"dr", "sir", "ft", "approx"} <= vocabulary.ABBREVIATIONS
    text = "Sir. Walter Scott wrote it. Approx. Ten copies were sold."
    assert [s for _, _, s in split_sentences(text)] == [
        "Sir. Walter Scott wrote it.",
        "Approx. Ten copies were sold.",
    ]
    assert tx.entities("They met Dr. Jane Hale in Oslo.") == ["jane hale", "oslo"]


def test_every_module_reads_the_lists_from_the_vocabulary():
    assert tx.content_words is content_words
    assert query_terms("What is the height of the tower?") == ["height", "tower"]
    assert vocabulary.QUERY_STOPWORDS <= vocabulary.STOPWORDS
