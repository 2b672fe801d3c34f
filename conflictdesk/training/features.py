"""Disk caches for stage-1 pair features (numpy only): embeddings by text and NLI
probabilities by (premise, hypothesis), so feature extraction is resumable. The feature
layout itself is `conflictdesk.analysis.pair_features.pair_features`, shared with inference."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from conflictdesk.analysis.pair_features import nli_matrix

__all__ = ["EmbeddingCache", "NLICache", "text_key"]

SAVE_EVERY = 1024


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


class EmbeddingCache:
    """Vectors by text hash in one .npz file (keys, vectors), filled on demand."""

    def __init__(self, path: Path, embed: Callable[[Sequence[str]], np.ndarray]) -> None:
        self.path = Path(path)
        self.embed_fn = embed
        self.vectors: dict[str, np.ndarray] = {}
        if self.path.exists():
            data = np.load(self.path, allow_pickle=False)
            self.vectors = dict(zip(data["keys"].tolist(), data["vectors"]))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = sorted({t for t in texts if text_key(t) not in self.vectors})
        for start in range(0, len(missing), SAVE_EVERY):
            chunk = missing[start : start + SAVE_EVERY]
            for text, vector in zip(chunk, self.embed_fn(chunk)):
                self.vectors[text_key(text)] = vector
            self.save()
        return np.stack([self.vectors[text_key(t)] for t in texts]).astype(np.float32)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self.vectors), dtype="U24")
        vectors = np.stack(list(self.vectors.values())) if self.vectors else np.zeros((0, 1))
        tmp = self.path.with_name(self.path.stem + ".tmp.npz")
        np.savez(tmp, keys=keys, vectors=vectors.astype(np.float32))
        tmp.replace(self.path)


class NLICache:
    """NLI probabilities [N, 3] of (premise, hypothesis) pairs, cached like embeddings."""

    SEP = "\x00"

    def __init__(self, path: Path, classify: Callable) -> None:
        self.classify = classify
        self.cache = EmbeddingCache(path, self._score)

    def _score(self, joined: Sequence[str]) -> np.ndarray:
        return nli_matrix(self.classify([tuple(j.split(self.SEP, 1)) for j in joined]))

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        if not pairs:
            return np.zeros((0, 3), dtype=np.float32)
        return self.cache.embed([a + self.SEP + b for a, b in pairs])
