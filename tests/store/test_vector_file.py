"""The memory-mapped vector file beside the database: written atomically, verified against
the store, rebuilt when stale, and searches give the same passages with or without it."""

from __future__ import annotations

import json

import numpy as np

from conflictdesk.ingest import SourceDocument, chunk_text
from conflictdesk.retrieval.hybrid import hybrid_search
from conflictdesk.store import Store
from conflictdesk.store.vectors import Fingerprint, read_vectors, vector_dir, write_vectors
from tests.fakes import FakeEmbedder

TEXTS = [
    "Mount Ysolde rises to 2,841 metres above sea level in the Vellmark range.",
    "The Quillmere lighthouse was first lit in 1887 and stands 34 metres tall.",
    "Orvane Systems appointed Tobiah Renn as chief executive officer in 2024.",
]
PRINT = Fingerprint(generation=3, id_min=1, id_max=2)


def add(store: Store, text: str, embedder: FakeEmbedder) -> None:
    cid = store.ensure_collection("c")
    chunks = chunk_text(text)
    vectors = embedder.embed([c.text for c in chunks])
    store.add_document(cid, SourceDocument(text=text), chunks, vectors, embedder.model_id)


def test_write_then_read_maps_the_same_matrix(tmp_path):
    ids, matrix = np.array([1, 2]), np.arange(8, dtype=np.float32).reshape(2, 4)
    write_vectors(tmp_path, 1, "m@1", ids, matrix, PRINT)
    got_ids, got = read_vectors(tmp_path, 1, "m@1", PRINT)
    assert isinstance(got, np.memmap) and np.array_equal(got, matrix)
    assert got_ids.tolist() == [1, 2]
    assert not [p for p in tmp_path.iterdir() if ".tmp" in p.name]  # temporaries renamed


def test_stale_or_damaged_files_are_not_used(tmp_path):
    ids, matrix = np.array([1, 2]), np.ones((2, 4), dtype=np.float32)
    write_vectors(tmp_path, 1, "m@1", ids, matrix, PRINT)
    assert read_vectors(tmp_path, 1, "m@1", Fingerprint(4, 1, 2)) is None  # generation
    assert read_vectors(tmp_path, 1, "m@1", Fingerprint(3, 1, 3)) is None  # other ids
    assert read_vectors(tmp_path, 1, "other@1", PRINT) is None
    manifest = tmp_path / "c1-m_1.json"
    body = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**body, "version": 999}))
    assert read_vectors(tmp_path, 1, "m@1", PRINT) is None  # another format version
    manifest.write_text(json.dumps(body))
    (tmp_path / "c1-m_1.ids.npy").write_bytes(b"garbage")
    assert read_vectors(tmp_path, 1, "m@1", PRINT) is None


def test_a_failed_write_leaves_the_previous_set_readable(tmp_path, monkeypatch):
    ids, matrix = np.array([1, 2]), np.ones((2, 4), dtype=np.float32)
    write_vectors(tmp_path, 1, "m@1", ids, matrix, PRINT)

    def broken_save(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np, "save", broken_save)
    newer = Fingerprint(4, 1, 2)
    try:
        write_vectors(tmp_path, 1, "m@1", ids, matrix * 2, newer)
    except OSError:
        pass
    monkeypatch.undo()
    assert read_vectors(tmp_path, 1, "m@1", newer) is None
    assert np.array_equal(read_vectors(tmp_path, 1, "m@1", PRINT)[1], matrix)


def test_search_writes_the_file_and_a_new_store_maps_it(tmp_path):
    embedder, path = FakeEmbedder(), tmp_path / "db.sqlite"
    with Store.open(path) as store:
        for text in TEXTS[:2]:
            add(store, text, embedder)
        first = [p.id for p in hybrid_search(store, "lighthouse metres", "c", 2, embedder)]
    assert list(vector_dir(str(path)).glob("*.npy"))
    with Store.open(path) as store:
        ids, matrix = store.dense_matrix(store.collection_id("c"), embedder.model_id)
        assert isinstance(matrix, np.memmap) and len(ids) == 2
        again = [p.id for p in hybrid_search(store, "lighthouse metres", "c", 2, embedder)]
        assert again == first
        add(store, TEXTS[2], embedder)  # the file is now stale: rebuilt, three rows
        ids, matrix = store.dense_matrix(store.collection_id("c"), embedder.model_id)
        assert len(ids) == 3 and matrix.shape[0] == 3
    with Store.open(path) as store:
        ids, _ = store.dense_matrix(store.collection_id("c"), embedder.model_id)
        assert len(ids) == 3


def test_in_memory_store_has_no_vector_file():
    assert vector_dir(":memory:") is None
