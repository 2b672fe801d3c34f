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


# -- hand-built analyses (generation, metrics and CLI tests) -----------------------------------

RULE_OF_TYPE = {
    "no_conflict": "direct",
    "complementary": "consolidate",
    "conflicting_opinions": "viewpoints",
    "outdated": "recency",
    "misinformation": "entropy_topsis",
}


def build_analysis(
    query: str,
    texts: Sequence[str],
    tags: Sequence[tuple[str, float]],
    *,
    clusters: Sequence[Sequence[int]] | None = None,
    packet: Sequence[int] | None = None,
    conflict_type: str = "no_conflict",
    ranking: Sequence[int] | None = None,
    answers: dict[int, str] | None = None,
    dates: dict[int, str] | None = None,
    conflicting_pairs: Sequence[tuple[int, int]] = (),
    leading: str | None = None,
) -> Any:
    """An `analysis.types.Analysis` written by hand: passage i has text texts[i] and tag
    tags[i] = (tag value, confidence); its key sentence is its first sentence. Clusters
    default to one per passage, the packet and the ranking to every passage in order."""
    from conflictdesk.analysis.kappa import conflict_score
    from conflictdesk.analysis.types import (
        Analysis,
        ClaimFrame,
        Cluster,
        ConflictPair,
        ConflictVerdict,
        Packet,
        PairDetection,
        PassageTag,
        QueryForm,
        Resolution,
        Tagging,
    )
    from conflictdesk.types import ConflictType, PairType, Passage, Tag

    answers, dates = answers or {}, dates or {}
    passages = tuple(
        Passage(id=i, text=t, title=f"doc {i}", date=dates.get(i), relevance=1.0 - i / 100)
        for i, t in enumerate(texts)
    )
    passage_tags = tuple(
        PassageTag(
            i,
            Tag(tag),
            conf,
            conf if tag == "support" else 0.0,
            0.0,
            conf if tag == "refute" else 0.0,
            key_sentence=re.split(r"(?<=[.!?])\s+", texts[i])[0],
            answer=answers.get(i),
        )
        for i, (tag, conf) in enumerate(tags)
    )
    groups = clusters if clusters is not None else [[i] for i in range(len(texts))]
    cluster_objs = tuple(
        Cluster(n, tuple(members), passage_tags[members[0]].tag, 1.0)
        for n, members in enumerate(groups)
    )
    score = conflict_score(passage_tags, cluster_objs)
    ids = tuple(packet) if packet is not None else tuple(range(len(texts)))
    pairs = tuple(
        ConflictPair(i, j, 0.9, True, PairType.FACTUAL, "mlp", 0.9, 0.9)
        for i, j in conflicting_pairs
    )
    return Analysis(
        query=query,
        passages=passages,
        tagging=Tagging(
            ClaimFrame(query, QueryForm.CLAIM, query, leading=leading), passage_tags, "fake"
        ),
        clusters=cluster_objs,
        score=score,
        packet=Packet(ids, "balanced" if score.kappa >= 0.5 else "relevance", score.kappa, {}),
        detection=PairDetection(pairs, 0.7, "fake"),
        verdict=ConflictVerdict(ConflictType(conflict_type), "hand-built", "rules"),
        resolution=Resolution(
            RULE_OF_TYPE[conflict_type],
            tuple(ranking) if ranking is not None else ids,
            "hand-built",
            dates=dict(dates),
        ),
        methods={"tag": "fake"},
        timings={"tag": 1.0},
    )


# -- a fake llama.cpp engine (runtime tests of LlamaCppGenerator) ------------------------------


class FakeLlamaEngine:
    """The `llama_cpp.Engine` protocol over a word-level vocabulary: `render` joins
    "role: content" lines, `next_logits` returns `logits` (token id → value, others 0) and
    counts a prefix shared with the previous call as reused, `complete` pops `enqueue`d texts."""

    def __init__(self, n_ctx: int = 512, vocab_size: int = 4096) -> None:
        self.n_ctx, self.vocab_size = n_ctx, vocab_size
        self.vocab: dict[str, int] = {}
        self.logits: dict[int, float] = {}
        self.answers: deque[str] = deque()
        self.cached: list[int] = []
        self.history: list[dict[str, Any]] = []

    def token(self, word: str) -> int:
        return self.vocab.setdefault(word, len(self.vocab) + 1)

    def tokenize(self, text: str) -> list[int]:
        return [self.token(word) for word in text.split()]

    def detokenize(self, tokens: Sequence[int]) -> str:
        words = {v: k for k, v in self.vocab.items()}
        return " ".join(words[t] for t in tokens)

    def render(self, messages: Sequence[Message]) -> list[int]:
        lines = [f"{m['role']}: {m['content']}" for m in messages] + ["assistant:"]
        return self.tokenize(" ".join(lines))

    def _reuse(self, tokens: Sequence[int]) -> int:
        common = 0
        for a, b in zip(self.cached, tokens[:-1]):
            if a != b:
                break
            common += 1
        self.cached = list(tokens)
        return common

    def next_logits(self, tokens: Sequence[int]) -> tuple[np.ndarray, int]:
        self.history.append({"kind": "logits", "tokens": list(tokens)})
        logits = np.zeros(self.vocab_size, dtype=np.float32)
        for token, value in self.logits.items():
            logits[token] = value
        return logits, self._reuse(tokens)

    def complete(
        self, tokens: Sequence[int], *, max_tokens: int, temperature: float, schema: Any = None
    ) -> tuple[str, int]:
        self.history.append({"kind": "complete", "tokens": list(tokens), "schema": schema})
        return self.answers.popleft(), self._reuse(tokens)


def tiny_nli_rows():
    """Eight NLI rows (three times over) and four held out: a training recipe's rows in
    miniature, for the MPNet training tests."""
    from conflictdesk.training.nli_data import NLIExample
    from conflictdesk.training.nli_recipe import RecipeRows

    words = ["river", "bridge", "stone", "city", "tower", "market", "north", "winter"]
    train = [NLIExample(f"The {a} is near the {b}.", f"The {b} is {n} old.", n % 3, "pool")
             for n, (a, b) in enumerate(zip(words, words[1:] + words[:1]))]  # fmt: skip
    return RecipeRows(train * 3, train[:4])
