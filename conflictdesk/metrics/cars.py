"""ConflictRAG's Conflict-Aware RAG Score and the components it combines.

CARS = 0.35·AC + 0.25·CDA + 0.25·RA + 0.15·SF (ConflictRAG eq. 5), each component in [0, 1].
The paper rates AC and RA with an LLM judge; offline we compute:

- AC, answer correctness: the share of questions whose answer contains a gold answer string
  after SQuAD-style normalisation (lower case, no punctuation or articles, single spaces) —
  the inclusion test CONFLICTS §4 calls answer recall.
- CDA, conflict detection: question-level F1 of "the evidence conflicts" against gold.
- RA, resolution appropriateness: the share of questions with a gold conflict type whose
  answer applied the resolution rule that type calls for (CONFLICTS §2 expected behaviour:
  no conflict → direct, complementary → consolidate, opinions → viewpoints, outdated →
  recency (newest first), misinformation → entropy_topsis (most credible first); the rule
  names are those of `analysis.types.Resolution.rule`).
- SF, source fidelity: citation precision — the share of citations that point to a passage
  supporting the sentence they are attached to (by gold labels where a data set has them,
  else by NLI, see `metrics.citations`)."""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from conflictdesk.types import ConflictType

CARS_WEIGHTS: dict[str, float] = {"ac": 0.35, "cda": 0.25, "ra": 0.25, "sf": 0.15}

# CONFLICTS §2: the expected behaviour of each conflict type, named by the rule that yields it.
EXPECTED_RULE: dict[ConflictType, str] = {
    ConflictType.NO_CONFLICT: "direct",
    ConflictType.COMPLEMENTARY: "consolidate",
    ConflictType.CONFLICTING_OPINIONS: "viewpoints",
    ConflictType.OUTDATED: "recency",
    ConflictType.MISINFORMATION: "entropy_topsis",
}


@dataclass(frozen=True)
class CarsComponents:
    ac: float
    cda: float
    ra: float
    sf: float

    def __post_init__(self) -> None:
        for name in CARS_WEIGHTS:
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"CARS component {name.upper()} must lie in [0, 1], not {value}")


def cars(components: CarsComponents) -> float:
    """CARS (ConflictRAG eq. 5): 0.35·AC + 0.25·CDA + 0.25·RA + 0.15·SF."""
    return sum(weight * getattr(components, name) for name, weight in CARS_WEIGHTS.items())


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation + "‘’“”–—")


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, punctuation and articles removed, spaces collapsed."""
    text = text.lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def answer_contains(answer_text: str, gold_answers: Iterable[str]) -> bool:
    """True when some non-empty normalised gold answer occurs in the normalised answer
    as whole words."""
    answer = f" {normalize_answer(answer_text)} "
    for gold in gold_answers:
        needle = normalize_answer(gold)
        if needle and f" {needle} " in answer:
            return True
    return False


@dataclass(frozen=True)
class PRF:
    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int
    tn: int


def detection_prf(predicted: Sequence[bool], gold: Sequence[bool]) -> PRF:
    """Precision, recall and F1 of the positive class (conflict); 0 where undefined."""
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} predictions for {len(gold)} gold labels")
    tp = sum(p and g for p, g in zip(predicted, gold))
    fp = sum(p and not g for p, g in zip(predicted, gold))
    fn = sum(g and not p for p, g in zip(predicted, gold))
    tn = len(gold) - tp - fp - fn
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PRF(precision, recall, f1, tp, fp, fn, tn)


def resolution_appropriate(applied_rule: str, gold_type: ConflictType) -> bool:
    """RA for one question: did the answer apply the rule the gold type calls for?"""
    return applied_rule == EXPECTED_RULE[gold_type]
