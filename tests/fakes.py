"""Deterministic fakes for the back-end protocols; each records its calls in `.history`."""

from __future__ import annotations

import hashlib
import json
import re
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np

from conflictdesk.backends.base import Backends, Message
from conflictdesk.errors import ModelOutputError
from conflictdesk.types import NLIScores, PairScores

_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_NEGATIONS = {"not", "no", "never", "false", "denies", "myth"}


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class FakeEmbedder:
    """Hashed bag of words: texts sharing words get a high cosine."""

    model_id = "fake-embedder"

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.history: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.history.append(list(texts))
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in zip(rows, texts):
            for word in _words(text):
                bucket = int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim
                row[bucket] += 1.0
            norm = float(np.linalg.norm(row))
            row /= norm if norm else 1.0
        return rows


class FakeNLI:
    """Word-overlap NLI: overlap with a differing number or a negation contradicts,
    overlap otherwise entails, little overlap is neutral. `override` pins pairs."""

    model_id = "fake-nli"

    def __init__(self, override: dict[tuple[str, str], NLIScores] | None = None) -> None:
        self.override = dict(override or {})
        self.history: list[list[tuple[str, str]]] = []

    def classify(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        self.history.append(list(pairs))
        return [self._one(premise, hypothesis) for premise, hypothesis in pairs]

    def _one(self, premise: str, hypothesis: str) -> NLIScores:
        if (premise, hypothesis) in self.override:
            return self.override[(premise, hypothesis)]
        p_words, h_words = set(_words(premise)), set(_words(hypothesis))
        content = {w for w in h_words if len(w) > 3 and not w.isdigit()}
        overlap = len(content & p_words) / max(len(content), 1)
        if overlap < 0.5:
            return NLIScores(0.05, 0.9, 0.05)
        h_numbers, p_numbers = set(_NUMBER.findall(hypothesis)), set(_NUMBER.findall(premise))
        negated = bool(_NEGATIONS & p_words) != bool(_NEGATIONS & h_words)
        if negated or (h_numbers and p_numbers and not h_numbers & p_numbers):
            return NLIScores(0.05, 0.1, 0.85)
        return NLIScores(0.85, 0.1, 0.05)


class FakePairClassifier:
    """P(conflict) from the |e_i - e_j| block of the features; type 'factual' when high."""

    model_id = "fake-pair"

    def __init__(self) -> None:
        self.history: list[np.ndarray] = []

    def classify(self, features: np.ndarray) -> list[PairScores]:
        self.history.append(features)
        dim = features.shape[1] // 4
        out = []
        for row in features:
            distance = float(np.abs(row[2 * dim : 3 * dim]).sum()) / max(dim, 1)
            p = min(max(distance * 4.0, 0.0), 1.0)
            types = (1.0 - p, p, 0.0, 0.0)
            out.append(PairScores(conflict=p, types=types))
        return out


class FakeGenerator:
    """Answers from a queue (`enqueue`), else a fixed default; records every call."""

    model_id = "fake-llm"

    def __init__(self, default: str = "fake answer") -> None:
        self.default = default
        self.queue: deque[Any] = deque()
        self.history: list[dict[str, Any]] = []

    def enqueue(self, *answers: Any) -> None:
        self.queue.extend(answers)

    def _next(self) -> Any:
        return self.queue.popleft() if self.queue else self.default

    def generate(
        self, messages: Sequence[Message], *, max_tokens: int = 512, temperature: float = 0.0
    ) -> str:
        self.history.append({"kind": "generate", "messages": list(messages)})
        return str(self._next())

    def generate_json(
        self, messages: Sequence[Message], schema: dict[str, Any], *, max_tokens: int = 512
    ) -> Any:
        self.history.append({"kind": "json", "messages": list(messages), "schema": schema})
        answer = self._next()
        if isinstance(answer, str):
            try:
                return json.loads(answer)
            except json.JSONDecodeError as exc:
                raise ModelOutputError(f"fake answer is not JSON: {answer!r}") from exc
        return answer

    def score_labels(self, messages: Sequence[Message], labels: Sequence[str]) -> dict[str, float]:
        self.history.append({"kind": "labels", "messages": list(messages), "labels": list(labels)})
        answer = self._next()
        if isinstance(answer, dict):
            total = sum(answer.get(label, 0.0) for label in labels) or 1.0
            return {label: answer.get(label, 0.0) / total for label in labels}
        return {label: 1.0 / len(labels) for label in labels}


class MemoryCache:
    """An in-memory JudgmentCache that counts hits."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str, str], Any] = {}
        self.hits = 0

    def get(self, stage: str, model_id: str, input_hash: str) -> Any | None:
        value = self.rows.get((stage, model_id, input_hash))
        if value is not None:
            self.hits += 1
        return value

    def put(self, stage: str, model_id: str, input_hash: str, output: Any, ms: float) -> None:
        self.rows[(stage, model_id, input_hash)] = output


def fake_backends(with_llm: bool = False) -> Backends:
    return Backends(
        embedder=FakeEmbedder(),
        nli=FakeNLI(),
        pair=FakePairClassifier(),
        llm=FakeGenerator() if with_llm else None,
    )
