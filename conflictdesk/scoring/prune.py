"""Pair pruning before the cross-encoder: a bi-encoder says which claim × document pairs are
worth a cross-encoder call.

Each claim and each distinct document sentence is embedded once per call, and a document's
sentence vectors are kept in the judgment cache (stage "embed-sentences", float16) so a
later call reuses them; a pair whose best sentence is less similar to the claim than
PRUNE_BELOW is IRRELEVANT without a cross-encoder call. The threshold is measured by
`scripts/eval_pruning.py` on the training cases (RAMDocs TRAIN half, QACC train) as the largest
cosine that keeps at least 99.5% of the pairs the encoder labels SUPPORTS or CONTRADICTS."""

from __future__ import annotations

import base64
import time
from collections.abc import Sequence

import numpy as np

from conflictdesk.backends.base import Embedder
from conflictdesk.scoring.cache import Ledger
from conflictdesk.text import split_sentences

# See the module docstring; re-measure when the embedder changes. Measured: 0.17 (0.18 when
# re-measured with the batched embedding; both lose no conflict F1 on the held-out sets, and
# against labelling every pair with no gate the loss is at most 0.001 macro-F1). Pruning stays
# opt-in (--prune): on 10 claims x 200 documents the gate alone already spares 1664 of 2000
# pairs and pruning 87 more, while embedding the remaining documents' sentences costs about
# as much as the cross-encoder calls it saves unless their vectors are stored (measured by
# `conflictdesk.benchmarks.scoring`: 0.8x the gate alone cold, 1.3x with stored vectors; 5x
# and 8x labelling every pair).
PRUNE_BELOW = 0.17
EMBED_STAGE = "embed-sentences"
Cell = tuple[int, int]


def document_sentences(text: str, max_sentences: int = 200) -> list[str]:
    """The sentences a document is compared by (at most `max_sentences`, the text itself when
    it has none)."""
    sentences = [s for _, _, s in split_sentences(text)][:max_sentences]
    return sentences or [text]


def sentence_vectors(
    texts: Sequence[str], embedder: Embedder, ledger: Ledger | None = None
) -> list[np.ndarray]:
    """Unit sentence vectors of each text (rows = `document_sentences(text)`): cached texts
    from the ledger, the others' distinct sentences embedded in one call and then stored."""
    ledger = ledger or Ledger()
    keys = [Ledger.key(EMBED_STAGE, text) for text in texts]
    found: dict[str, np.ndarray] = {}
    for key in dict.fromkeys(keys):
        stored = ledger.get(EMBED_STAGE, embedder.model_id, key)
        if stored is not None:
            found[key] = decode_matrix(stored)
    missing = {key: text for key, text in zip(keys, texts, strict=True) if key not in found}
    if missing:
        found |= _embed_documents(missing, embedder, ledger)
    return [found[key] for key in keys]


def _embed_documents(
    missing: dict[str, str], embedder: Embedder, ledger: Ledger
) -> dict[str, np.ndarray]:
    sentences = {key: document_sentences(text) for key, text in missing.items()}
    unique = list(dict.fromkeys(s for rows in sentences.values() for s in rows))
    start = time.perf_counter()
    vectors = unit_rows(embedder.embed(unique)) if unique else np.zeros((0, 1), np.float32)
    ms = (time.perf_counter() - start) * 1000 / max(len(missing), 1)
    row = {s: k for k, s in enumerate(unique)}
    out = {}
    for key, rows in sentences.items():
        out[key] = vectors[[row[s] for s in rows]]
        ledger.put(EMBED_STAGE, embedder.model_id, key, encode_matrix(out[key]), ms)
    return out


def best_similarity(
    claims: Sequence[str],
    texts: Sequence[str],
    cells: Sequence[Cell],
    embedder: Embedder,
    ledger: Ledger | None = None,
) -> dict[Cell, float]:
    """For each (claim, document) cell, the largest cosine between the claim and one of the
    document's sentences; every claim and every document is embedded once."""
    if not cells:
        return {}
    used_texts = sorted({j for _, j in cells})
    used_claims = sorted({i for i, _ in cells})
    documents = dict(zip(used_texts, sentence_vectors([texts[j] for j in used_texts], embedder,
                                                       ledger), strict=True))  # fmt: skip
    claim_rows = dict(zip(used_claims, unit_rows(embedder.embed([claims[i] for i in used_claims])),
                          strict=True))  # fmt: skip
    claim_matrix = np.stack([claim_rows[i] for i in used_claims])
    column = {i: k for k, i in enumerate(used_claims)}
    best = {j: (documents[j].astype(np.float32) @ claim_matrix.T).max(axis=0) for j in used_texts}
    return {(i, j): float(best[j][column[i]]) for i, j in cells}


def pruned_cells(
    claims: Sequence[str],
    texts: Sequence[str],
    cells: Sequence[Cell],
    embedder: Embedder,
    threshold: float = PRUNE_BELOW,
    ledger: Ledger | None = None,
) -> set[Cell]:
    """The cells to label IRRELEVANT without the cross-encoder."""
    similarity = best_similarity(claims, texts, cells, embedder, ledger)
    return {cell for cell, value in similarity.items() if value < threshold}


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length, as float32."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


def encode_matrix(matrix: np.ndarray) -> dict[str, object]:
    """A float matrix as JSON: its shape and its float16 bytes in base64."""
    data = np.ascontiguousarray(matrix, dtype="<f2")
    return {"shape": list(data.shape), "f16": base64.b64encode(data.tobytes()).decode("ascii")}


def decode_matrix(value: dict[str, object]) -> np.ndarray:
    """The inverse of `encode_matrix` (float16 values, returned as float32)."""
    raw = base64.b64decode(str(value["f16"]))
    shape = tuple(int(n) for n in value["shape"])  # type: ignore[attr-defined]
    return np.frombuffer(raw, dtype="<f2").reshape(shape).astype(np.float32)
