"""Exact dense search over an in-memory matrix of L2-normalised rows."""

from __future__ import annotations

import numpy as np


def top_k_cosine(matrix: np.ndarray, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices and cosines of the `k` rows most similar to `query`, best first.

    Rows and query must already be L2-normalised (the Embedder contract), so the dot
    product is the cosine. argpartition keeps this O(n) rather than a full sort."""
    if matrix.ndim != 2:
        raise ValueError("matrix must be 2-D")
    query = np.asarray(query, dtype=np.float32).reshape(-1)
    if matrix.shape[0] and query.shape[0] != matrix.shape[1]:
        raise ValueError(f"query has {query.shape[0]} dims, matrix rows have {matrix.shape[1]}")
    n = matrix.shape[0]
    if n == 0 or k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    scores = matrix @ query
    k = min(k, n)
    if k < n:
        part = np.argpartition(-scores, k - 1)[:k]
    else:
        part = np.arange(n)
    order = part[np.lexsort((part, -scores[part]))]  # by score desc, then index asc
    return order.astype(np.int64), scores[order].astype(np.float32)
