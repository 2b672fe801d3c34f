from __future__ import annotations

import pytest

from conflictdesk.ingest import chunk_text


def paragraphs(n_paras: int, words: int) -> str:
    return "\n\n".join(
        " ".join(f"p{p}w{i}" + ("." if i % 10 == 9 else "") for i in range(words))
        for p in range(n_paras)
    )


def test_short_text_is_one_passage():
    (chunk,) = chunk_text("  One short paragraph.\n\nAnd another.  ")
    assert chunk.text == "One short paragraph.\n\nAnd another."
    assert (chunk.start, chunk.end) == (2, 36)


def test_packs_whole_paragraphs_within_budget_and_offsets_are_exact():
    text = paragraphs(6, 70)
    chunks = chunk_text(text, max_words=200, overlap=40)
    assert len(chunks) >= 3
    for c in chunks:
        assert text[c.start : c.end] == c.text
        assert len(c.text.split()) <= 200
    assert chunks[0].text.endswith("p1w69.")  # two paragraphs (140 words), a third would overflow
    assert chunks[-1].text.endswith("p5w69.")


def test_overlap_starts_at_a_sentence_boundary():
    text = paragraphs(6, 70)
    first, second = chunk_text(text, max_words=200, overlap=40)[:2]
    assert second.start < first.end  # they overlap
    assert second.text.startswith("p1w30")  # the sentence start 40 words back
    overlap_words = len(text[second.start : first.end].split())
    assert 0 < overlap_words <= 40


def test_long_paragraph_is_cut_and_covers_everything():
    text = " ".join(f"w{i}" for i in range(1000))
    chunks = chunk_text(text, max_words=200, overlap=50)
    assert all(len(c.text.split()) <= 200 for c in chunks)
    seen = {w for c in chunks for w in c.text.split()}
    assert seen == set(text.split())


def test_empty_and_bad_arguments():
    assert chunk_text("   \n\n ") == []
    with pytest.raises(ValueError):
        chunk_text("x", max_words=0)
    with pytest.raises(ValueError):
        chunk_text("x", max_words=10, overlap=10)
