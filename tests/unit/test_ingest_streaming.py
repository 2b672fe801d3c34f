"""Streaming ingest: segment-by-segment chunking equals whole-text chunking, and ingesting in
small batches stores what one large batch stores."""

from __future__ import annotations

import random

import numpy as np
import pytest

from conflictdesk.app.ingest import ingest_paths
from conflictdesk.benchmarks.ingest import synthetic_text, write_big_file
from conflictdesk.ingest.chunking import chunk_text, iter_chunks
from conflictdesk.store import Store
from tests.fakes import FakeEmbedder


@pytest.mark.parametrize("seed", range(40))
def test_iter_chunks_equals_chunk_text(seed):
    rng = random.Random(seed)
    text = synthetic_text(rng, rng.randint(0, 150))
    if seed % 3 == 0:
        text = text.replace("\n\n", " ")  # no paragraph breaks
    if seed % 5 == 0:
        text = "y" * rng.randint(1, 2000) + " " + text  # one very long word first
    max_words = rng.randint(1, 50)
    overlap = rng.randint(0, max_words - 1)
    segment = rng.randint(1, 1500)
    expected = chunk_text(text, max_words, overlap)
    got = list(iter_chunks(text, max_words, overlap, segment_chars=segment))
    assert got == expected
    assert all(text[c.start : c.end] == c.text for c in got)


def test_iter_chunks_of_empty_text_is_empty():
    assert list(iter_chunks("   \n ", 10, 2, segment_chars=4)) == []


class CountingEmbedder(FakeEmbedder):
    """Records the largest batch it was asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.largest = 0

    def embed(self, texts):
        self.largest = max(self.largest, len(texts))
        return super().embed(texts)


def stored(store: Store) -> list[tuple[str, int, int, bytes]]:
    return store.conn.execute(
        """SELECT p.text, p.char_start, p.char_end, e.vector FROM passages p
           JOIN embeddings e ON e.passage_id = p.id ORDER BY p.id"""
    ).fetchall()


def test_small_batches_store_what_one_large_batch_stores(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    rng = random.Random(7)
    for i in range(12):
        (folder / f"d{i:02d}.txt").write_text(synthetic_text(rng, 40), "utf-8")
    write_big_file(folder / "big.txt", 0.05, 5_000)
    results = []
    for batch in (3, 10_000):
        embedder = CountingEmbedder()
        with Store.open(tmp_path / f"b{batch}.db") as store:
            report = ingest_paths(store, [folder], "c", embedder, batch_passages=batch)
            assert report.ok and report.documents_added == 13
            results.append((stored(store), embedder.largest))
    (small, small_largest), (large, _) = results
    assert small == large and len(small) > 50
    # a batch is flushed once it reaches `batch_passages`; one document can overshoot it
    assert small_largest < len(small)


def test_vectors_equal_embedding_each_passage_alone(tmp_path):
    (tmp_path / "a.txt").write_text(synthetic_text(random.Random(1), 60), "utf-8")
    with Store.open(tmp_path / "x.db") as store:
        ingest_paths(store, [tmp_path / "a.txt"], "c", FakeEmbedder(), batch_passages=2)
        rows = stored(store)
    for text, _, _, blob in rows:
        alone = FakeEmbedder().embed([text])[0]
        assert np.allclose(np.frombuffer(blob, dtype="<f4"), alone)


class ThreadRecordingEmbedder(FakeEmbedder):
    """Records the thread each call ran on and fails on the call numbered `fail_on`."""

    def __init__(self, fail_on: int | None = None) -> None:
        super().__init__()
        self.threads: list[str] = []
        self.fail_on = fail_on

    def embed(self, texts):
        import threading

        self.threads.append(threading.current_thread().name)
        if len(self.threads) == self.fail_on:
            raise RuntimeError("embedder broke")
        return super().embed(texts)


def test_embedding_runs_ahead_on_a_worker_and_rows_stay_with_their_passages(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    rng = random.Random(11)
    for i in range(12):
        (folder / f"d{i:02d}.txt").write_text(synthetic_text(rng, 25), "utf-8")
    embedder = ThreadRecordingEmbedder()
    with Store.open(tmp_path / "a.db") as store:
        report = ingest_paths(store, [folder], "c", embedder, max_words=40, overlap=5,
                              batch_passages=7)  # fmt: skip
        rows = stored(store)
    assert report.ok and report.passages_added == len(rows) > 20
    assert len(embedder.threads) > 2
    assert all(name.startswith("embed") for name in embedder.threads)
    expected = FakeEmbedder().embed([text for text, *_ in rows])
    got = np.vstack([np.frombuffer(blob, dtype=np.float32) for *_, blob in rows])
    assert np.array_equal(got, expected)


def test_an_embedder_error_ahead_stops_the_ingest_and_keeps_finished_batches(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    rng = random.Random(12)
    for i in range(8):
        (folder / f"d{i}.txt").write_text(synthetic_text(rng, 25), "utf-8")
    with Store.open(tmp_path / "b.db") as store:
        with pytest.raises(RuntimeError, match="embedder broke"):
            ingest_paths(store, [folder], "c", ThreadRecordingEmbedder(fail_on=3),
                         max_words=40, overlap=5, batch_passages=7)  # fmt: skip
        kept = store.conn.execute("SELECT count(*) FROM embeddings").fetchone()[0]
    assert kept >= 7  # the first two batches were stored before the third failed
