"""Retrieval helpers, pure functions: FTS query sanitising, dense top-k, reciprocal rank fusion.

The store runs the queries; these functions decide what to ask and how to combine answers."""

from conflictdesk.retrieval.dense import top_k_cosine
from conflictdesk.retrieval.fusion import RRF_K, reciprocal_rank_fusion
from conflictdesk.retrieval.lexical import fts_query

__all__ = ["RRF_K", "fts_query", "reciprocal_rank_fusion", "top_k_cosine"]
