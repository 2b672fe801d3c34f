"""Train the subjectivity probe of the type model on public corpora (never on typed cases).

Opinion side: PERSPECTRUM's debate claims and perspective sentences (argued positions).
Factual side: the claims and evidence sentences of FEVER and Fool Me Twice (verifiable
statements about the world, true or false). Both sides are embedded with the shipped
embedder; an L2-regularised logistic regression on the unit vectors is the probe. The
PERSPECTRUM dev split and a held-out share of the factual sentences measure it."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.analysis.evidence_signals import SubjectivityProbe, probe_from_json
from conflictdesk.analysis.text import sentences
from conflictdesk.training.features import EmbeddingCache

PER_SIDE = 4000
MIN_WORDS, MAX_WORDS = 5, 40


@dataclass(frozen=True)
class ProbeData:
    """Texts and labels (1 = opinion) of the training and held-out parts."""

    train_texts: tuple[str, ...]
    train_labels: np.ndarray
    test_texts: tuple[str, ...]
    test_labels: np.ndarray


def _jsonl(path: Path) -> Iterator[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            yield json.loads(line)


def _usable(text: str) -> bool:
    return MIN_WORDS <= len(text.split()) <= MAX_WORDS


def opinion_texts(root: Path, split: str) -> list[str]:
    """Unique PERSPECTRUM claims and perspectives of one split."""
    seen: dict[str, None] = {}
    for row in _jsonl(root / "perspectrum" / f"pairs_{split}.jsonl.gz"):
        for text in (row["question"], row["passage_a"], row["passage_b"]):
            if _usable(text):
                seen.setdefault(text.strip(), None)
    return list(seen)


def factual_texts(root: Path) -> list[str]:
    """Unique FEVER and Fool Me Twice claims and evidence sentences."""
    seen: dict[str, None] = {}
    files = [root / "fever_rte" / "dev.jsonl.gz", root / "fm2" / "dev.jsonl.gz"]
    for path in files:
        for row in _jsonl(path):
            for text in [row["hypothesis"], *sentences(row["premise"])]:
                if _usable(text):
                    seen.setdefault(text.strip(), None)
    return list(seen)


def probe_data(root: Path, seed: int = 0) -> ProbeData:
    """PER_SIDE training texts per side (PERSPECTRUM train; factual sentences), and a test
    part (PERSPECTRUM dev; other factual sentences)."""
    rng = np.random.default_rng(seed)
    pool = factual_texts(root)
    factual = [pool[i] for i in rng.permutation(len(pool))]
    opinion_train = opinion_texts(root, "train")
    opinion_test = opinion_texts(root, "dev")
    pick = rng.permutation(len(opinion_train))[:PER_SIDE]
    train_op = [opinion_train[i] for i in pick]
    train_fa, test_fa = factual[:PER_SIDE], factual[PER_SIDE : PER_SIDE + len(opinion_test)]
    return ProbeData(
        tuple(train_op + train_fa),
        np.array([1] * len(train_op) + [0] * len(train_fa)),
        tuple(opinion_test + test_fa),
        np.array([1] * len(opinion_test) + [0] * len(test_fa)),
    )


def fit_logistic(x: np.ndarray, y: np.ndarray, *, l2: float = 1.0, steps: int = 2000):
    """Weights and bias of an L2-regularised logistic regression (full-batch gradient)."""
    n, d = x.shape
    w, b = np.zeros(d), 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w + b)))
        grad = (p - y) / n
        w -= 2.0 * (x.T @ grad + l2 * w / n)
        b -= 2.0 * float(grad.sum())
    return w, b


def train_probe(
    data: ProbeData, embed: Callable[[Sequence[str]], np.ndarray], embedder_id: str
) -> tuple[SubjectivityProbe, float]:
    """The probe and its accuracy on the held-out part."""
    x = np.asarray(embed(list(data.train_texts)), dtype=np.float64)
    w, b = fit_logistic(x, data.train_labels.astype(np.float64))
    probe = SubjectivityProbe(embedder_id, w, b)
    test = np.asarray(embed(list(data.test_texts)), dtype=np.float64)
    accuracy = float(((probe.score(test) >= 0.5) == data.test_labels).mean())
    return probe, accuracy


def cached_probe(embedder: Any, root: Path, work: Path) -> tuple[SubjectivityProbe, float]:
    """The probe for `embedder` from `work/probe.json` when it was trained for that embedder,
    else trained (its texts' embeddings cached in `work`) and saved there."""
    path = work / "probe.json"
    name = embedder.model_id.partition("@")[0]
    if path.exists():
        blob = json.loads(path.read_text(encoding="utf-8"))
        if blob["probe"]["embedder"] == name and blob.get("per_side") == PER_SIDE:
            return probe_from_json(blob["probe"]), float(blob["accuracy"])
    cache = EmbeddingCache(work / "probe_embeddings.npz", embedder.embed)
    probe, accuracy = train_probe(probe_data(root), cache.embed, name)
    blob = {"probe": probe.to_json(), "accuracy": accuracy, "per_side": PER_SIDE}
    path.write_text(json.dumps(blob), encoding="utf-8")
    return probe, accuracy
