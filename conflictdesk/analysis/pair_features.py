"""The stage-1 pair features: one function for training and inference.

ConflictRAG eq. 3 builds f_ij = [e_i; e_j; |e_i − e_j|; e_i ⊙ e_j] from passage embeddings
(layout "emb4"). Layout "emb4+nli6" adds the NLI cross-encoder's probabilities in both
directions on the two passages (each clipped to its first `NLI_WORDS` words, so one pair is
one window): [f_ij; nli(i→j); nli(j→i)]. The model's config names its layout."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from conflictdesk.types import NLIScores

NLI_WORDS = 60
EMBEDDING_LAYOUT = "emb4"
NLI_LAYOUT = "emb4+nli6"


def clip_for_nli(passage: str) -> str:
    """The first NLI_WORDS words of a passage, as the NLI feature reads it."""
    words = passage.split()
    return passage if len(words) <= NLI_WORDS else " ".join(words[:NLI_WORDS])


def nli_inputs(passage_i: str, passage_j: str) -> list[tuple[str, str]]:
    """The two (premise, hypothesis) pairs of one passage pair: i→j, then j→i."""
    a, b = clip_for_nli(passage_i), clip_for_nli(passage_j)
    return [(a, b), (b, a)]


def nli_matrix(scores: Sequence[NLIScores]) -> np.ndarray:
    """[N, 3] entailment / neutral / contradiction probabilities."""
    return np.array(
        [[s.entailment, s.neutral, s.contradiction] for s in scores], dtype=np.float32
    ).reshape(-1, 3)


def pair_features(
    e_i: np.ndarray,
    e_j: np.ndarray,
    nli_ij: np.ndarray | None = None,
    nli_ji: np.ndarray | None = None,
) -> np.ndarray:
    """[e_i; e_j; |e_i − e_j|; e_i ⊙ e_j] row-wise (ConflictRAG eq. 3), then, when given,
    the [N, 3] NLI probabilities i→j and j→i; float32."""
    e_i = np.asarray(e_i, dtype=np.float32)
    e_j = np.asarray(e_j, dtype=np.float32)
    if e_i.shape != e_j.shape or e_i.ndim != 2:
        raise ValueError(f"embeddings must be two [N, d] arrays, got {e_i.shape} and {e_j.shape}")
    blocks = [e_i, e_j, np.abs(e_i - e_j), e_i * e_j]
    if (nli_ij is None) != (nli_ji is None):
        raise ValueError("NLI features need both directions")
    if nli_ij is not None and nli_ji is not None:
        for block in (nli_ij, nli_ji):
            if np.shape(block) != (e_i.shape[0], 3):
                raise ValueError(f"NLI features must be [N, 3], got {np.shape(block)}")
        blocks += [np.asarray(nli_ij, np.float32), np.asarray(nli_ji, np.float32)]
    return np.concatenate(blocks, axis=1).astype(np.float32)
