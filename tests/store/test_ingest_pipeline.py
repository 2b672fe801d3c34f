"""ingest_paths on real SQLite: formats, bad inputs (database stays consistent), resume."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conflictdesk.app.ingest import ingest_paths
from conflictdesk.store import Store
from tests.fakes import FakeEmbedder
from tests.unit.test_ingest_readers import minimal_pdf

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "docs"


def consistent(store: Store) -> None:
    """Every document has passages, every passage is indexed, no orphan vectors."""
    q = lambda sql: store.conn.execute(sql).fetchone()[0]
    assert (
        q(
            "SELECT count(*) FROM documents d WHERE NOT EXISTS "
            "(SELECT 1 FROM passages p WHERE p.document_id = d.id)"
        )
        == 0
    )
    assert q("SELECT count(*) FROM passages") == q("SELECT count(*) FROM passages_fts")
    assert (
        q(
            "SELECT count(*) FROM embeddings e WHERE NOT EXISTS "
            "(SELECT 1 FROM passages p WHERE p.id = e.passage_id)"
        )
        == 0
    )
    assert q("PRAGMA integrity_check") == "ok"


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path / "t.db") as s:
        yield s


def test_examples_folder_every_format(store):
    emb = FakeEmbedder()
    report = ingest_paths(store, [EXAMPLES], "ex", emb)
    assert report.ok, report.failures
    suffixes = {Path(d["metadata"]["file"]).suffix for d in store.documents("ex")}
    assert suffixes == {".txt", ".md", ".html", ".json", ".jsonl", ".csv"}
    docs = store.documents("ex")
    assert len(docs) == report.documents_added == 15
    by_title = {d["title"]: d for d in docs}
    assert by_title["Tobiah Renn takes over at Orvane Systems"]["date"] == "2024-01-22"
    assert by_title["Orvane Systems names new chief executive"]["date"] == "2018-03-12"
    assert by_title["Mount Ysolde"]["source"] == "Vellmark Geographic Survey"  # CSV row
    assert (
        store.conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == report.passages_added
    )
    consistent(store)
    again = ingest_paths(store, [EXAMPLES], "ex", emb)
    assert (again.documents_added, again.documents_skipped) == (0, 15)


def test_bad_inputs_reported_batch_goes_on(store, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "good.txt").write_text("A good document about the harbour.")
    (src / "bin.txt").write_bytes(b"\x00\x01\x02")
    (src / "empty.md").write_bytes(b"")
    (src / "latin.txt").write_bytes("caf\xe9".encode("latin-1"))
    (src / "broken.pdf").write_bytes(b"%PDF-1.7 garbage")
    (src / "ok.pdf").write_bytes(minimal_pdf("Ferry leaves at noon"))
    (src / "recs.jsonl").write_text('{"text": "record one"}\n{"title": "no text"}\n')
    (src / "big.txt").write_text("x " * 5000)
    report = ingest_paths(
        store, [src, tmp_path / "absent.txt"], "c", FakeEmbedder(), max_bytes=4000
    )
    reasons = {Path(f["path"]).name: f["reason"] for f in report.failures}
    assert len(report.failures) == len(reasons) == 7
    assert reasons["bin.txt"].startswith("binary file")
    assert reasons["empty.md"] == "empty file"
    assert reasons["latin.txt"].startswith("not valid UTF-8")
    assert reasons["broken.pdf"].startswith("corrupt PDF")
    assert reasons["recs.jsonl"] == "line 2: record without text"
    assert "over the" in reasons["big.txt"]
    assert reasons["absent.txt"] == "no such file or folder"
    assert sorted(p.text for p in store.collection_passages("c")) == [
        "A good document about the harbour.",
        "Ferry leaves at noon",
        "record one",
    ]
    consistent(store)


class DyingEmbedder(FakeEmbedder):
    """Fails on the n-th call, as a process killed mid-ingest would stop."""

    def __init__(self, die_on: int) -> None:
        super().__init__()
        self.die_on = die_on

    def embed(self, texts):
        if len(self.history) + 1 == self.die_on:
            self.history.append(list(texts))
            raise KeyboardInterrupt("killed")
        return super().embed(texts)


def test_killed_ingest_keeps_committed_documents_and_rerun_adds_no_duplicates(store, tmp_path):
    src = tmp_path / "many"
    src.mkdir()
    records = [
        {"text": f"Document number {i} " + "word " * 600, "title": f"d{i}"} for i in range(30)
    ]
    (src / "a.jsonl").write_text("\n".join(json.dumps(r) for r in records[:15]))
    (src / "b.jsonl").write_text("\n".join(json.dumps(r) for r in records[15:]))
    with pytest.raises(KeyboardInterrupt):
        ingest_paths(store, [src], "c", DyingEmbedder(die_on=2))
    partial = len(store.documents("c"))
    assert 0 < partial < 30
    consistent(store)
    report = ingest_paths(store, [src], "c", FakeEmbedder())
    assert report.documents_skipped == partial
    assert report.documents_added == 30 - partial
    titles = [d["title"] for d in store.documents("c")]
    assert sorted(titles) == sorted(f"d{i}" for i in range(30))
    consistent(store)
    assert store.missing_embeddings(store.collection_id("c"), "fake-embedder") == []


def test_no_embed_stores_no_vectors(store):
    shutil_copy = EXAMPLES / "quillmere_lighthouse.txt"
    report = ingest_paths(store, [shutil_copy], "c", None)
    assert report.embedded_with is None and report.passages_added == 1
    assert store.conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 0


def test_same_text_twice_in_one_batch_is_stored_once(store, tmp_path):
    (tmp_path / "a.txt").write_text("Identical content.")
    shutil.copy(tmp_path / "a.txt", tmp_path / "b.md")
    report = ingest_paths(store, [tmp_path / "a.txt", tmp_path / "b.md"], "c", FakeEmbedder())
    assert (report.documents_added, report.documents_skipped) == (1, 1)
