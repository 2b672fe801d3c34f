"""The store on real SQLite with the FakeEmbedder."""

from __future__ import annotations

import numpy as np
import pytest

from conflictdesk.backends.base import JudgmentCache
from conflictdesk.errors import UsageError
from conflictdesk.ingest import SourceDocument, chunk_text
from conflictdesk.retrieval.hybrid import hybrid_search
from conflictdesk.store import NotFoundError, Store
from tests.fakes import FakeEmbedder

DOCS = [
    ("Mount Ysolde rises to 2,841 metres above sea level in the Vellmark range.", "Survey"),
    ("The Quillmere lighthouse was first lit in 1887 and stands 34 metres tall.", "Guide"),
    ("Lumivex, vitamin Q7, helps keep bone density in later life.", "Institute"),
    ("Orvane Systems appointed Tobiah Renn as chief executive officer in 2024.", "Weekly"),
    ("The Brannock diet lowered systolic blood pressure by 9 mmHg in a trial.", "Press"),
]


@pytest.fixture
def store():
    with Store.open(":memory:") as s:
        yield s


def add(store: Store, text: str, title: str = "t", embedder=None, cid=None):
    cid = cid or store.ensure_collection("c")
    chunks = chunk_text(text)
    vectors = embedder.embed([c.text for c in chunks]) if embedder else None
    return store.add_document(
        cid,
        SourceDocument(text=text, title=title, date="2020-01-02"),
        chunks,
        vectors,
        embedder.model_id if embedder else None,
    )


def test_add_document_dedups_by_content(store):
    first = add(store, "Some text here.")
    assert isinstance(first, int)
    assert add(store, "Some text here.") is None
    assert store.collections() == [
        {"name": "c", "documents": 1, "passages": 1, "created": store.collections()[0]["created"]}
    ]
    doc = store.document(first)
    assert (doc["title"], doc["date"], doc["collection"], doc["passages"]) == (
        "t",
        "2020-01-02",
        "c",
        1,
    )
    other = store.ensure_collection("other")
    assert add(store, "Some text here.", cid=other) is not None  # per collection


def test_search_ranks_known_passage_first(store):
    emb = FakeEmbedder()
    for text, title in DOCS:
        add(store, text, title, emb)
    hits = hybrid_search(store, "How tall is the Quillmere lighthouse?", "c", k=3, embedder=emb)
    assert hits[0].title == "Guide"
    assert hits[0].metadata["bm25_rank"] == 1 and hits[0].metadata["dense_rank"] == 1
    assert hits[0].relevance == pytest.approx(2 / 61)
    assert [h.relevance for h in hits] == sorted((h.relevance for h in hits), reverse=True)


def test_lexical_only_and_punctuation(store):
    for text, title in DOCS:
        add(store, text, title)
    hits = hybrid_search(store, '"chief" AND (executive* OR ^Renn) NEAR:', "c", k=2)
    assert hits[0].title == "Weekly"
    assert hits[0].metadata["dense_rank"] is None
    assert hybrid_search(store, "?!?", "c", k=5) == []


def test_search_errors(store):
    store.ensure_collection("c")
    with pytest.raises(NotFoundError, match="no collection named 'nope'"):
        hybrid_search(store, "x", "nope")
    with pytest.raises(UsageError):
        hybrid_search(store, "  ", "c")
    with pytest.raises(UsageError):
        hybrid_search(store, "x", "c", k=0)


def test_missing_vectors_are_embedded_at_search_and_cache_invalidates(store):
    emb = FakeEmbedder()
    add(store, DOCS[0][0], "Survey")
    hits = hybrid_search(store, "Ysolde metres", "c", k=5, embedder=emb)
    assert hits[0].metadata["dense_rank"] == 1  # embedded lazily
    cid = store.collection_id("c")
    assert store.missing_embeddings(cid, emb.model_id) == []
    _ids1, m1 = store.dense_matrix(cid, emb.model_id)
    _ids2, m2 = store.dense_matrix(cid, emb.model_id)
    assert m1 is m2  # cached
    add(store, DOCS[1][0], "Guide", emb)
    ids3, m3 = store.dense_matrix(cid, emb.model_id)
    assert len(ids3) == 2 and m3 is not m1  # reloaded after the collection changed
    hits = hybrid_search(store, "lighthouse Quillmere", "c", k=5, embedder=emb)
    assert hits[0].title == "Guide"


def test_search_without_lazy_embedding_uses_bm25_for_unembedded(store):
    emb = FakeEmbedder()
    add(store, DOCS[0][0], "Survey")
    hits = hybrid_search(store, "Ysolde", "c", k=5, embedder=emb, embed_missing=False)
    assert [h.title for h in hits] == ["Survey"] and hits[0].metadata["dense_rank"] is None


def test_passages_in_order_and_unknown_id(store):
    add(store, "Alpha text.")
    add(store, "Beta text.")
    p1, p2 = store.collection_passages("c")
    assert [p.text for p in store.passages([p2.id, p1.id])] == ["Beta text.", "Alpha text."]
    assert p1.metadata["char_start"] == 0 and p1.metadata["char_end"] == len("Alpha text.")
    with pytest.raises(NotFoundError):
        store.passages([999])


def test_vectors_must_match_passages(store):
    cid = store.ensure_collection("c")
    chunks = chunk_text("One. Two.")
    with pytest.raises(ValueError):
        store.add_document(
            cid, SourceDocument(text="One. Two."), chunks, np.zeros((2, 4), np.float32), "m"
        )
    assert store.collections()[0]["documents"] == 0


def test_judgment_cache(store):
    assert isinstance(store.cache, JudgmentCache)
    assert store.cache.get("tag", "nli", "h1") is None
    store.cache.put("tag", "nli", "h1", {"label": "support", "p": [0.1, 0.9]}, 12.5)
    assert store.cache.get("tag", "nli", "h1") == {"label": "support", "p": [0.1, 0.9]}
    store.cache.put(
        "tag", "nli", "h1", {"label": "refute"}, 3.0
    )  # same key: replaced, not duplicated
    assert store.cache.get("tag", "nli", "h1") == {"label": "refute"}
    assert store.cache.get("tag", "other-model", "h1") is None
    assert store.cache.count() == 1 and store.cache.count("pairs") == 0


def test_runs(store):
    a = store.save_run("ask", {"q": "x"}, {"answer": "y"}, {"llm": "none"})
    b = store.save_run("score", {"q": "z"}, [1, 2], {})
    assert [r["id"] for r in store.runs()] == [b, a]
    assert [r["id"] for r in store.runs(kind="ask")] == [a]
    assert store.run(a)["output"] == {"answer": "y"}
    with pytest.raises(NotFoundError):
        store.run(999)


def test_delete_collection_and_document(store):
    emb = FakeEmbedder()
    doc = add(store, DOCS[0][0], "Survey", emb)
    add(store, DOCS[1][0], "Guide", emb)
    store.delete_document(doc)
    assert [p.title for p in store.collection_passages("c")] == ["Guide"]
    assert all(
        h.title == "Guide"
        for h in hybrid_search(store, "Ysolde lighthouse", "c", k=5, embedder=emb)
    )
    store.delete_collection("c")
    assert store.collections() == []
    for table in ("documents", "passages", "embeddings", "passages_fts"):
        assert store.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0
