"""Search on a collection large enough that common query terms are pruned before FTS5."""

from __future__ import annotations

import pytest

from conflictdesk.ingest import Chunk, SourceDocument
from conflictdesk.retrieval.hybrid import hybrid_search
from conflictdesk.retrieval.lexical import MIN_DROP_COUNT
from conflictdesk.store import Store
from tests.fakes import FakeEmbedder

KNOWN = "The Quillmere harbour lighthouse was first lit in 1887 and stands 34 metres tall."
FILLER = "Boats in harbour number {n} unload {cargo} at the quay before the evening tide."
CARGOES = ("salt", "timber", "wool", "slate", "grain", "copper", "tea", "coal")


@pytest.fixture(scope="module")
def harbour():
    """MIN_DROP_COUNT + 500 passages that all say "harbour"; one is about the lighthouse."""
    emb = FakeEmbedder()
    with Store.open(":memory:") as store:
        cid = store.ensure_collection("port")
        texts = [
            FILLER.format(n=n, cargo=CARGOES[n % len(CARGOES)]) for n in range(MIN_DROP_COUNT + 500)
        ]
        texts[1234] = KNOWN
        chunks = [Chunk(text=t, start=0, end=len(t)) for t in texts]
        store.add_document(
            cid,
            SourceDocument(text="\n".join(texts), title="Port log"),
            chunks,
            emb.embed(texts),
            emb.model_id,
        )
        yield store, emb


def sent_matches(store: Store, query: str, **search) -> list[str]:
    """The MATCH arguments the store actually sent to passages_fts during one search."""
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    try:
        hybrid_search(store, query, "port", **search)
    finally:
        store.conn.set_trace_callback(None)
    return [s for s in statements if "MATCH" in s and not s.startswith("--")]  # not fts5vocab's


def test_common_term_is_pruned_and_known_passage_still_ranks_top_3(harbour):
    store, emb = harbour
    query = "How tall is the harbour lighthouse?"
    assert store.lexical_terms(query) == ["tall", "lighthouse"]
    hits = hybrid_search(store, query, "port", k=5, embedder=emb)
    assert KNOWN in [h.text for h in hits[:3]]
    assert hits[0].text == KNOWN and hits[0].metadata["bm25_rank"] == 1
    (statement,) = sent_matches(store, query, k=5, embedder=emb)
    assert '\'"tall" OR "lighthouse"\'' in statement and "harbour" not in statement


def test_query_of_only_common_terms_keeps_its_rarest(harbour):
    store, _ = harbour
    assert store.lexical_terms("harbour quay timber") == ["timber"]  # 1 in 8 passages
    hits = hybrid_search(store, "harbour quay timber", "port", k=3)
    assert len(hits) == 3 and all("timber" in h.text for h in hits)


def test_stemmed_forms_are_counted(harbour):
    store, _ = harbour
    assert store.lexical_terms("harbours lighthouses") == ["lighthouses"]  # porter: harbour
