"""Model-measured signals of an evidence set for the CONFLICTS type model (no word lists).

- Agreement structure from the NLI stage of pair detection (both directions' probabilities
  kept on each pair): how much the passages entail, ignore or contradict one another, whether
  the contradiction concentrates on one passage (one against the rest), and whether it grows
  with the time between the two passages (an update rather than a dispute).
- Subjectivity from a linear probe on the passage embeddings (`SubjectivityProbe`), trained
  on opinion sentences against factual statements from public corpora, never on typed cases.
- Spread of the passages' embeddings: passages on different facets of a question sit further
  apart than restatements of one fact.
- Support structure over every retrieved passage the tagger judged on topic (not only the
  packet): how many answers two passages or more hold, how much of the answering is done by
  answers no other passage repeats, whether one lone passage dissents from a repeated answer
  (a planted or mistaken value against a supported one), how alike the passages that share
  an answer are and how alike those that do not (embedding cosine), and how much of the
  on-topic retrieval the NLI found irrelevant to the question's hypothesis.
- Compatibility of the sides (`side_signals`): whether the passages holding different
  answers contradict each other by NLI (a dispute: misinformation, an update) or only give
  different values while staying neutral (different parts or readings: complementary),
  whether a passage holding another answer still entails the leading one, whether one
  distinct answer is contained in another (a part of it, a more precise form), how many
  candidate answers the claim step found over every passage, and how much of the
  answer-bearing sentences share the most repeated value of the question's answer kind
  (numbers for number and date questions, names for entity questions; question words left
  out)."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np

from conflictdesk import vocabulary as vocab
from conflictdesk.analysis import text as tx
from conflictdesk.analysis.types import ConflictPair, PassageTag, Tagging
from conflictdesk.types import Passage

SIGNAL_NAMES = (
    "pair_entailment",
    "pair_neutral",
    "pair_contradiction",
    "contradiction_focus",
    "contradiction_time",
    "probe_subjectivity",
    "probe_subjectivity_max",
    "probe_question",
    "embedding_spread",
)
SUPPORT_NAMES = (
    "supported_answers",
    "singleton_share",
    "lone_dissent",
    "same_answer_cosine",
    "cross_answer_cosine",
    "irrelevant_share",
)
SIDE_NAMES = (
    "cross_answer_contradiction",
    "cross_answer_neutral",
    "dissent_entailment",
    "answer_nested",
    "candidate_count",
    "value_top_share",
)
_POSSESSIVE = re.compile(r"['’]s\b")


@dataclass(frozen=True)
class SubjectivityProbe:
    """P(opinion | embedding) = sigmoid(w · v + b) for unit-length embeddings of the named
    embedder."""

    embedder: str
    weights: np.ndarray
    bias: float

    def score(self, vectors: np.ndarray) -> np.ndarray:
        rows = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
        return 1.0 / (1.0 + np.exp(-(rows @ self.weights + self.bias)))

    def to_json(self) -> dict[str, Any]:
        return {
            "embedder": self.embedder,
            "weights": self.weights.round(6).tolist(),
            "bias": round(float(self.bias), 6),
        }


def probe_from_json(blob: Mapping[str, Any]) -> SubjectivityProbe:
    return SubjectivityProbe(
        str(blob["embedder"]), np.asarray(blob["weights"], dtype=np.float64), float(blob["bias"])
    )


def pair_signals(pairs: Sequence[ConflictPair], dates: Mapping[int, date]) -> dict[str, float]:
    """Agreement structure of the NLI-judged pairs (module docstring)."""
    judged = [p for p in pairs if len(p.nli) == 6]
    if not judged:
        return {
            "pair_entailment": 0.0,
            "pair_neutral": 0.0,
            "pair_contradiction": 0.0,
            "contradiction_focus": 0.0,
            "contradiction_time": 0.0,
        }
    entail = np.array([max(p.nli[0], p.nli[3]) for p in judged])
    neutral = np.array([(p.nli[1] + p.nli[4]) / 2 for p in judged])
    contra = np.array([max(p.nli[2], p.nli[5]) for p in judged])
    return {
        "pair_entailment": float(entail.mean()),
        "pair_neutral": float(neutral.mean()),
        "pair_contradiction": float(contra.mean()),
        "contradiction_focus": _focus(judged, contra),
        "contradiction_time": _time_gap_correlation(judged, contra, dates),
    }


def _focus(judged: Sequence[ConflictPair], contra: np.ndarray) -> float:
    """The largest share of the contradiction mass that touches one passage, rescaled so
    that mass spread evenly over every pair gives 0 and one passage against all gives 1."""
    nodes = sorted({p.i for p in judged} | {p.j for p in judged})
    total = float(contra.sum())
    if len(nodes) < 3 or total <= 1e-9:
        return 0.0
    touching = {n: 0.0 for n in nodes}
    for p, c in zip(judged, contra, strict=True):
        touching[p.i] += float(c)
        touching[p.j] += float(c)
    share = max(touching.values()) / total
    even = 2.0 / len(nodes)
    return float(np.clip((share - even) / (1.0 - even), 0.0, 1.0))


def _time_gap_correlation(
    judged: Sequence[ConflictPair], contra: np.ndarray, dates: Mapping[int, date]
) -> float:
    """Pearson correlation between a pair's contradiction and the years between its two
    passages (dated pairs only; 0 with fewer than three or no variation)."""
    gaps, values = [], []
    for p, c in zip(judged, contra, strict=True):
        if p.i in dates and p.j in dates:
            gaps.append(math.log1p(abs((dates[p.i] - dates[p.j]).days) / 365.25))
            values.append(float(c))
    if len(gaps) < 3 or np.std(gaps) < 1e-9 or np.std(values) < 1e-9:
        return 0.0
    return float(np.corrcoef(gaps, values)[0, 1])


def embedding_signals(
    query_vector: np.ndarray | None,
    passages: Sequence[Passage],
    vectors: Mapping[int, np.ndarray] | None,
    probe: SubjectivityProbe | None,
) -> dict[str, float]:
    """Probe subjectivity of the passages and the question, and the passages' spread."""
    rows = [vectors[p.id] for p in passages if vectors and p.id in vectors]
    if not rows or probe is None:
        return {name: 0.0 for name in SIGNAL_NAMES[5:]}
    matrix = np.vstack(rows).astype(np.float64)
    scores = probe.score(matrix)
    question = float(probe.score(query_vector)[0]) if query_vector is not None else 0.0
    return {
        "probe_subjectivity": float(scores.mean()),
        "probe_subjectivity_max": float(scores.max()),
        "probe_question": question,
        "embedding_spread": _spread(matrix),
    }


def _spread(matrix: np.ndarray) -> float:
    """1 − the mean cosine between two passages (0 for a single passage)."""
    if len(matrix) < 2:
        return 0.0
    unit = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
    cosines = [float(unit[a] @ unit[b]) for a, b in itertools.combinations(range(len(unit)), 2)]
    return 1.0 - float(np.mean(cosines))


def support_signals(
    answers: Mapping[int, str],
    on_topic_ids: Sequence[int],
    irrelevant_ids: Sequence[int],
    vectors: Mapping[int, np.ndarray] | None,
) -> dict[str, float]:
    """Support structure of the answers held by the on-topic retrieved passages (module
    docstring); `answers` maps a passage id to the answer it holds."""
    counts = Counter(answers.values())
    total = sum(counts.values())
    top = max(counts.values(), default=0)
    dissent = [c for c in counts.values() if c != top]
    lone = top >= 2 and list(counts.values()).count(top) == 1 and dissent and max(dissent) == 1
    same, cross = _answer_cosines(answers, vectors or {})
    return {
        "supported_answers": math.log1p(sum(c >= 2 for c in counts.values())),
        "singleton_share": sum(c for c in counts.values() if c == 1) / total if total else 0.0,
        "lone_dissent": float(bool(lone)),
        "same_answer_cosine": same,
        "cross_answer_cosine": cross,
        "irrelevant_share": len(irrelevant_ids) / max(len(on_topic_ids), 1),
    }


def _answer_cosines(
    answers: Mapping[int, str], vectors: Mapping[int, np.ndarray]
) -> tuple[float, float]:
    """Mean embedding cosine of the passage pairs that hold the same answer, and of those
    that hold different answers (0 where there is no such pair)."""
    ids = [pid for pid in answers if pid in vectors]
    same: list[float] = []
    cross: list[float] = []
    for a, b in itertools.combinations(ids, 2):
        cosine = float(_unit(vectors[a]) @ _unit(vectors[b]))
        (same if answers[a] == answers[b] else cross).append(cosine)
    return (float(np.mean(same)) if same else 0.0, float(np.mean(cross)) if cross else 0.0)


def _unit(vector: np.ndarray) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float64)
    return v / max(float(np.linalg.norm(v)), 1e-9)


def side_signals(
    answers: Mapping[int, str],
    pairs: Sequence[ConflictPair],
    tags: Mapping[int, PassageTag],
    tagging: Tagging,
) -> dict[str, float]:
    """Compatibility of the answers' sides (module docstring); `answers` maps an on-topic
    passage id to the answer it holds, `pairs` are the NLI-judged packet pairs. The common
    answer is the most held one (a tie goes to the leading answer, then the alphabet)."""
    held = {pid: _plain(answer) for pid, answer in answers.items()}
    counts = Counter(held.values())
    cross = [p for p in pairs if len(p.nli) == 6 and _differ(held, p.i, p.j)]
    leading = _plain(tagging.frame.leading or "")
    common = min(counts, key=lambda a: (-counts[a], a != leading, a)) if counts else ""
    dissent = [tags[pid] for pid, answer in held.items() if answer != common]
    distinct = [a for a in counts if a]
    nested = [a in b or b in a for a, b in itertools.combinations(distinct, 2)]
    return {
        "cross_answer_contradiction": _mean([max(p.nli[2], p.nli[5]) for p in cross]),
        "cross_answer_neutral": _mean([(p.nli[1] + p.nli[4]) / 2 for p in cross]),
        "dissent_entailment": _mean([t.entailment for t in dissent]),
        "answer_nested": _mean([float(n) for n in nested]),
        "candidate_count": math.log1p(len(tagging.frame.candidates)),
        "value_top_share": value_top_share(tagging),
    }


def value_top_share(tagging: Tagging) -> float:
    """Share of the answer-bearing sentences (every passage's key sentence holding a value of
    the question's answer kind) that hold the most repeated value; 0 for other questions."""
    candidates = tagging.frame.candidates
    kind = candidates[0].kind if candidates else ""
    if kind not in ("number", "date", "entity"):
        return 0.0
    asked = {w.lower() for w in vocab.words(tagging.frame.query)}
    held = [_values(t.key_sentence, kind, asked) for t in tagging.tags]
    held = [values for values in held if values]
    if not held:
        return 0.0
    counts = Counter(v for values in held for v in values)
    return counts.most_common(1)[0][1] / len(held)


def _values(sentence: str, kind: str, asked: set[str]) -> set[str]:
    """Values of one answer kind in a sentence: digits of its numbers, or its names that
    share no word with the question."""
    if kind in ("number", "date"):
        digits = {re.sub(r"[^\d.]", "", n).strip(".") for n in tx.numbers(sentence)}
        return {d for d in digits if d}
    names = {_plain(e) for e in tx.entities(sentence)}
    return {name for name in names if name and not set(name.split()) & asked}


def _plain(answer: str) -> str:
    """An answer compared as a value: lower case, possessive ending and punctuation dropped."""
    text = _POSSESSIVE.sub("", answer.lower())
    return " ".join(re.sub(r"[^\w.\s]", " ", text.replace(",", "")).split())


def _differ(held: Mapping[int, str], a: int, b: int) -> bool:
    return a in held and b in held and held[a] != held[b]


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else 0.0
