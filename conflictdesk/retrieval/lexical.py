"""Turning free text into a safe FTS5 query, and pruning terms too common to be worth scoring."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from conflictdesk.vocabulary import QUERY_STOPWORDS

_TOKEN = re.compile(r"\w+", re.UNICODE)
# A term found in more than this share of the indexed passages is dropped from the query...
MAX_TERM_SHARE = 0.05
# ...but only once it matches this many passages: below that, scoring it costs nothing.
MIN_DROP_COUNT = 2000
# FTS5 scores every match (a few µs each) before it sorts: the most matches one query may score.
MAX_SCORED = 15_000


def query_terms(text: str, *, max_terms: int = 32) -> list[str]:
    """The query's distinct lower-cased word tokens, stopwords dropped unless nothing else is left."""
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    content = [t for t in tokens if t not in QUERY_STOPWORDS] or tokens
    return list(dict.fromkeys(content))[:max_terms]


def match_expression(terms: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression: each term double-quoted, joined by OR; None for no terms.

    Quoting makes every token a plain string, so punctuation, operators (AND, NEAR, *, ^)
    and unbalanced quotes in user text can never raise a syntax error."""
    return " OR ".join(f'"{t}"' for t in terms) or None


def fts_query(text: str, *, max_terms: int = 32) -> str | None:
    """The MATCH expression for `text` with every content term kept (see `query_terms`)."""
    return match_expression(query_terms(text, max_terms=max_terms))


def prune_common_terms(
    terms: Sequence[str],
    doc_freq: Mapping[str, int],
    total: int,
    *,
    max_share: float = MAX_TERM_SHARE,
    min_count: int = MIN_DROP_COUNT,
    max_scored: int = MAX_SCORED,
    dense_ranks: bool = False,
) -> list[str]:
    """The terms worth sending to FTS5, in query order.

    FTS5 computes BM25 for every passage that matches any OR-ed term before it can sort,
    so common terms make a query cost O(collection). Terms matching nothing are dropped;
    so is a term whose document frequency exceeds max(max_share × total, min_count) (its
    IDF is low; FTS5 clamps it to 1e-6 past half the passages). Of what is left, rarest
    first, terms are kept while their frequencies sum to at most `max_scored`. The rarest
    matching term is always kept, unless it alone exceeds `max_scored` and `dense_ranks`
    (a dense ranking exists to carry the query): then nothing is sent."""
    matching = [t for t in terms if doc_freq.get(t, 0) > 0]
    if not matching:
        return []
    by_rarity = sorted(matching, key=lambda t: (doc_freq[t], matching.index(t)))
    rarest = by_rarity[0]
    if dense_ranks and doc_freq[rarest] > max_scored:
        return []
    limit = max(max_share * total, min_count)
    kept, scored = {rarest}, doc_freq[rarest]
    for term in by_rarity[1:]:
        if doc_freq[term] > limit or scored + doc_freq[term] > max_scored:
            break
        kept.add(term)
        scored += doc_freq[term]
    return [t for t in matching if t in kept]
