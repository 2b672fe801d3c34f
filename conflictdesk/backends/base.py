"""The protocols every model back-end implements; fakes need no base class."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from conflictdesk.types import NLIScores, PairScores

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": str}


@runtime_checkable
class Embedder(Protocol):
    """A sentence encoder: texts in, L2-normalised float32 rows out."""

    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class NLI(Protocol):
    """An NLI cross-encoder over (premise, hypothesis) pairs; premises longer than the
    window are split and aggregated by the back-end's named rule."""

    model_id: str

    def classify(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]: ...


@runtime_checkable
class PairClassifier(Protocol):
    """ConflictRAG stage 1: features [e_i; e_j; |e_i - e_j|; e_i * e_j] in, two heads out."""

    model_id: str

    def classify(self, features: np.ndarray) -> list[PairScores]: ...


@runtime_checkable
class Generator(Protocol):
    """A local generative LLM (a GGUF model through llama.cpp)."""

    model_id: str

    def generate(
        self, messages: Sequence[Message], *, max_tokens: int = 512, temperature: float = 0.0
    ) -> str: ...

    def generate_json(
        self, messages: Sequence[Message], schema: dict[str, Any], *, max_tokens: int = 512
    ) -> Any:
        """Schema-constrained JSON, validated; one retry, then ModelOutputError."""
        ...

    def score_labels(self, messages: Sequence[Message], labels: Sequence[str]) -> dict[str, float]:
        """A distribution over `labels` read from one forward pass (sums to 1)."""
        ...


@runtime_checkable
class JudgmentCache(Protocol):
    """Where model judgments are kept, keyed by (stage, model id, input hash).

    The store implements it; the engine only sees this protocol."""

    def get(self, stage: str, model_id: str, input_hash: str) -> Any | None: ...

    def put(self, stage: str, model_id: str, input_hash: str, output: Any, ms: float) -> None: ...


@dataclass
class Backends:
    """The models one analysis runs on; `llm` is None when no GGUF is configured."""

    embedder: Embedder
    nli: NLI
    pair: PairClassifier | None = None
    llm: Generator | None = None
    fusion: Any = None  # conflictdesk.scoring.fusion.FusionModel, loaded with the nli role

    def methods(self) -> dict[str, str]:
        """Which model serves each role, for the `method` field of outputs."""
        return {
            "embedder": self.embedder.model_id,
            "nli": self.nli.model_id,
            "pair": self.pair.model_id if self.pair else "none",
            "llm": self.llm.model_id if self.llm else "none",
            "fusion": self.fusion.model_id if self.fusion else "none",
        }
