"""Paragraph-aware chunking with a word budget and overlap.

Paragraphs (blank-line separated) are packed into a passage until the next one would pass
the budget; a paragraph longer than the budget is cut, preferably at a sentence end. The
next passage starts `overlap` words before the previous one ended, moved forward to a
sentence start when one lies in that span. Every passage is an exact slice of the text, so
`text[start:end] == chunk.text`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_WORD = re.compile(r"\S+")
_PARA_BREAK = re.compile(r"\n[ \t]*\n")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*$")


@dataclass(frozen=True)
class Chunk:
    text: str
    start: int  # character offsets into the document text
    end: int


def chunk_text(text: str, max_words: int = 200, overlap: int = 40) -> list[Chunk]:
    """Split `text` into passages of at most `max_words` words overlapping by ~`overlap`."""
    if max_words < 1:
        raise ValueError("max_words must be at least 1")
    if not 0 <= overlap < max_words:
        raise ValueError("overlap must be between 0 and max_words - 1")
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    if not words:
        return []
    para_start = [True] + [
        bool(_PARA_BREAK.search(text, words[i - 1][1], words[i][0])) for i in range(1, len(words))
    ]
    sentence_end = [bool(_SENTENCE_END.search(text[s:e])) for s, e in words]

    chunks: list[Chunk] = []
    start = 0
    n = len(words)
    while True:
        limit = min(start + max_words, n)
        end = limit
        if limit < n:
            # the last paragraph start inside the window that keeps something in it
            cut = next((j for j in range(limit, start, -1) if para_start[j]), None)
            if cut is None or cut - start < max_words // 2:
                # no good paragraph boundary: prefer a sentence end in the second half
                cut = next(
                    (
                        j + 1
                        for j in range(limit - 1, start + max_words // 2 - 1, -1)
                        if sentence_end[j]
                    ),
                    limit,
                )
            end = cut
        chunks.append(
            Chunk(text[words[start][0] : words[end - 1][1]], words[start][0], words[end - 1][1])
        )
        if end >= n:
            return chunks
        nxt = max(end - overlap, start + 1)
        # move forward to a sentence or paragraph start within the overlap span
        for j in range(nxt, end):
            if para_start[j] or sentence_end[j - 1]:
                nxt = j
                break
        start = nxt


SEGMENT_CHARS = 1_000_000


def iter_chunks(
    text: str, max_words: int = 200, overlap: int = 40, segment_chars: int = SEGMENT_CHARS
) -> Iterator[Chunk]:
    """The passages of `chunk_text(text, ...)`, made segment by segment so memory is bounded
    by `segment_chars` rather than the text's length.

    A segment runs from the start of the last passage not yet final to about `segment_chars`
    further (at least to a whitespace); every passage but the segment's last has its whole
    look-ahead inside the segment, so it is final, and the scan restarts where the last one
    starts, which is where a whole-text scan would be too."""
    position = 0
    while True:
        stop = _segment_end(text, position, segment_chars, max_words)
        chunks = chunk_text(text[position:stop], max_words, overlap)
        if not chunks:
            return
        final = chunks if stop >= len(text) else chunks[:-1]
        for chunk in final:
            yield Chunk(chunk.text, position + chunk.start, position + chunk.end)
        if stop >= len(text):
            return
        position += chunks[-1].start


def _segment_end(text: str, start: int, segment_chars: int, max_words: int) -> int:
    """An end past at least `segment_chars` characters and 2 × max_words + 2 words (so the
    segment holds two whole passages), cut at a whitespace, or the text's end."""
    stop = start + segment_chars
    for words, match in enumerate(_WORD.finditer(text, start), start=1):
        if words > 2 * max_words + 2 and match.end() >= stop:
            return match.end()
    return len(text)
