"""Pair pruning before the cross-encoder: a bi-encoder says which claim × document pairs are
worth a cross-encoder call.

Each document's sentences and each claim are embedded once (so the cost grows with claims +
sentences, not with their product); a pair whose best sentence is less similar to the claim
than PRUNE_BELOW is IRRELEVANT without a cross-encoder call. The threshold is measured by
`scripts/eval_pruning.py` on the training cases (RAMDocs TRAIN half, QACC train) as the largest
cosine that keeps at least 99.5% of the pairs the encoder labels SUPPORTS or CONTRADICTS."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from conflictdesk.backends.base import Embedder
from conflictdesk.text import split_sentences

# See the module docstring; re-measure when the embedder changes. Measured: 0.17; at it, no
# conflict or relation F1 is lost on the held-out sets, but only 4% of the pairs of a
# 10-claim x 200-document score are pruned, and embedding every sentence costs more than it
# saves (scripts/bench_pruning.py: 0.6x). Hence opt-in (--prune), not the default.
PRUNE_BELOW = 0.17
Cell = tuple[int, int]


def document_sentences(text: str, max_sentences: int = 200) -> list[str]:
    """The sentences a document is compared by (at most `max_sentences`, the text itself when
    it has none)."""
    sentences = [s for _, _, s in split_sentences(text)][:max_sentences]
    return sentences or [text]


def best_similarity(
    claims: Sequence[str], texts: Sequence[str], cells: Sequence[Cell], embedder: Embedder
) -> dict[Cell, float]:
    """For each (claim, document) cell, the largest cosine between the claim and one of the
    document's sentences; every distinct sentence and claim is embedded once."""
    used_texts = sorted({j for _, j in cells})
    used_claims = sorted({i for i, _ in cells})
    sentences = {j: document_sentences(texts[j]) for j in used_texts}
    unique = list(dict.fromkeys([s for j in used_texts for s in sentences[j]]))
    vectors = _unit(embedder.embed(unique + [claims[i] for i in used_claims]))
    row = {s: k for k, s in enumerate(unique)}
    claim_row = {i: len(unique) + k for k, i in enumerate(used_claims)}
    out = {}
    for i, j in cells:
        rows = [row[s] for s in sentences[j]]
        out[(i, j)] = float((vectors[rows] @ vectors[claim_row[i]]).max())
    return out


def pruned_cells(
    claims: Sequence[str],
    texts: Sequence[str],
    cells: Sequence[Cell],
    embedder: Embedder,
    threshold: float = PRUNE_BELOW,
) -> set[Cell]:
    """The cells to label IRRELEVANT without the cross-encoder."""
    if not cells:
        return set()
    similarity = best_similarity(claims, texts, cells, embedder)
    return {cell for cell, value in similarity.items() if value < threshold}


def _unit(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)
