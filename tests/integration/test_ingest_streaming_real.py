"""Streaming ingest with the real embedder: the example folder and a big file ingested in
batches of 4 passages store the passages of whole-text chunking, with vectors matching
those of each passage embedded on its own."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conflictdesk.app.ingest import ingest_paths
from conflictdesk.benchmarks.ingest import write_big_file
from conflictdesk.ingest.chunking import chunk_text
from conflictdesk.ingest.readers import discover, read_file
from conflictdesk.store import Store

pytestmark = pytest.mark.integration
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "docs"


def test_folder_and_big_file_in_small_batches(tmp_path, backends):
    big = write_big_file(tmp_path / "big.txt", 0.03, 20_000)
    expected = [
        chunk.text
        for path, _ in discover([EXAMPLES, big])
        for doc in read_file(path).documents
        for chunk in chunk_text(doc.text)
    ]
    with Store.open(tmp_path / "s.db") as store:
        report = ingest_paths(store, [EXAMPLES, big], "c", backends.embedder, batch_passages=4)
        rows = store.conn.execute(
            """SELECT p.text, e.vector FROM passages p JOIN embeddings e ON e.passage_id = p.id
               ORDER BY p.id"""
        ).fetchall()
    assert report.ok
    assert sorted(text for text, _ in rows) == sorted(set(expected))
    sample = rows[:: max(len(rows) // 12, 1)]
    alone = backends.embedder.embed([text for text, _ in sample])
    stored = np.stack([np.frombuffer(blob, dtype="<f4") for _, blob in sample])
    assert (np.sum(alone * stored, axis=1) > 0.99).all()  # int8 activations: not bit-equal
