"""Pair features for the stage-1 detector and a disk cache of embeddings (numpy only)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np


def pair_features(e_i: np.ndarray, e_j: np.ndarray) -> np.ndarray:
    """[e_i; e_j; |e_i - e_j|; e_i * e_j] row-wise, float32 (ConflictRAG §III-B)."""
    e_i = np.asarray(e_i, dtype=np.float32)
    e_j = np.asarray(e_j, dtype=np.float32)
    if e_i.shape != e_j.shape or e_i.ndim != 2:
        raise ValueError(f"embeddings must be two [N, d] arrays, got {e_i.shape} and {e_j.shape}")
    return np.concatenate([e_i, e_j, np.abs(e_i - e_j), e_i * e_j], axis=1).astype(np.float32)


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


class EmbeddingCache:
    """Embeddings by text hash in one .npz file (keys, vectors), filled on demand."""

    def __init__(self, path: Path, embed: Callable[[Sequence[str]], np.ndarray]) -> None:
        self.path = Path(path)
        self.embed_fn = embed
        self.vectors: dict[str, np.ndarray] = {}
        if self.path.exists():
            data = np.load(self.path, allow_pickle=False)
            self.vectors = dict(zip(data["keys"].tolist(), data["vectors"]))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = sorted({t for t in texts if text_key(t) not in self.vectors})
        if missing:
            for start in range(0, len(missing), 2048):
                chunk = missing[start : start + 2048]
                for text, vector in zip(chunk, self.embed_fn(chunk)):
                    self.vectors[text_key(text)] = vector
                self.save()
        return np.stack([self.vectors[text_key(t)] for t in texts]).astype(np.float32)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self.vectors), dtype="U24")
        vectors = np.stack(list(self.vectors.values())) if self.vectors else np.zeros((0, 384))
        tmp = self.path.with_name(self.path.stem + ".tmp.npz")
        np.savez(tmp, keys=keys, vectors=vectors.astype(np.float32))
        tmp.replace(self.path)
