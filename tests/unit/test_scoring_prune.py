"""Pair pruning: the bi-encoder keeps the cross-encoder off pairs far from the claim."""

from __future__ import annotations

import numpy as np

from conflictdesk.scoring.cache import Ledger
from conflictdesk.scoring.label import label_claims
from conflictdesk.scoring.prune import (
    EMBED_STAGE,
    best_similarity,
    decode_matrix,
    encode_matrix,
    pruned_cells,
)
from conflictdesk.types import Document, Relation
from tests.fakes import FakeEmbedder, FakeNLI, fake_backends

CLAIMS = ["The Quarry Bridge opened in 1931.", "The mill burned down in 1902."]


class DictCache:
    def __init__(self):
        self.entries = {}

    def get(self, stage, model_id, input_hash):
        return self.entries.get((stage, model_id, input_hash))

    def put(self, stage, model_id, input_hash, output, ms):
        self.entries[(stage, model_id, input_hash)] = output


TEXTS = [
    "Weather was mild. The Quarry Bridge opened in 1931 after two years of work.",
    "The mill burned down in 1902 and was never rebuilt.",
    "Quarry workers ate lunch by the river every day.",
]


def test_each_sentence_and_claim_is_embedded_once():
    embedder = FakeEmbedder()
    cells = [(i, j) for i in range(2) for j in range(3)]
    similarity = best_similarity(CLAIMS, TEXTS, cells, embedder)
    embedded = [text for call in embedder.history for text in call]
    assert len(embedded) == len(set(embedded)) == 4 + 2
    assert similarity[(0, 0)] > 0.7 and similarity[(1, 1)] > 0.7
    assert similarity[(0, 1)] < similarity[(0, 0)]


def test_pruned_cells_are_the_far_ones():
    cells = [(i, j) for i in range(2) for j in range(3)]
    pruned = pruned_cells(CLAIMS, TEXTS, cells, FakeEmbedder(), threshold=0.5)
    assert (0, 0) not in pruned and (1, 1) not in pruned
    assert (1, 0) in pruned and (1, 2) in pruned
    assert pruned_cells(CLAIMS, TEXTS, [], FakeEmbedder()) == set()


def test_label_claims_with_prune_skips_the_cross_encoder_and_says_so():
    backends = fake_backends()
    nli = FakeNLI()
    backends = type(backends)(**{**backends.__dict__, "nli": nli, "embedder": FakeEmbedder()})
    docs = [Document(t) for t in TEXTS]
    pruned = label_claims(CLAIMS, docs, backends, prune=True, gate=False)
    full = label_claims(CLAIMS, docs, backends, prune=False, gate=False)
    assert "pruned:" in pruned.method and "pruned:" not in full.method
    labels = [j.labeller for row in pruned.judgments for j in row]
    assert "pruned" in labels
    for row_p, row_f in zip(pruned.judgments, full.judgments):
        for jp, jf in zip(row_p, row_f):
            assert jp.relation == jf.relation or jp.relation is Relation.IRRELEVANT


def test_stored_sentence_vectors_are_reused_and_give_the_same_similarity():
    cache = DictCache()
    cells = [(i, j) for i in range(2) for j in range(3)]
    first_embedder, second_embedder = FakeEmbedder(), FakeEmbedder()
    first = best_similarity(CLAIMS, TEXTS, cells, first_embedder, Ledger(cache))
    second = best_similarity(CLAIMS, TEXTS, cells, second_embedder, Ledger(cache))
    assert sorted(text for call in second_embedder.history for text in call) == sorted(CLAIMS)
    assert len([k for k in cache.entries if k[0] == EMBED_STAGE]) == 3
    for cell in cells:  # float16 storage: equal to three decimals
        assert abs(first[cell] - second[cell]) < 1e-3


def test_matrix_encoding_round_trips_in_float16():
    matrix = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    back = decode_matrix(encode_matrix(matrix))
    assert back.shape == (3, 4) and back.dtype == np.float32
    assert np.allclose(back, matrix, atol=1e-3)
