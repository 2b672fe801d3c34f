"""A trained ranker of a wh-question's candidate answers (the leading answer of `ask`).

The rule of `claims.frame_query` gives each on-topic passage one answer, the span of the asked
kind nearest the question's words in its most query-relevant sentence, and lets the answer
with most topicality-weighted votes lead. The ranker widens the candidates to every span of
the kind the frame used in each on-topic passage's first MAX_SENTENCES sentences that state
something (`claims.answer_spans`, the same spans and keys), describes each candidate by the
FEATURES below (support across passages, the rule's own votes, sentence rank and overlap with
the question, distance to the question's words, kind, form) and scores it with a logistic
regression fitted on QACC train and the RAMDocs TRAIN half (`scripts/train_answer_ranker.py`,
weights in models/reader/answer_ranker.json). The best candidate leads: it becomes the
claim's answer, and every passage that states it takes it as its answer, with the sentence
that states it as its key sentence. Sentence answers (why/how questions) are left to the
rule. Passages about another entity than the question's are not on-topic, so they hold no
candidate."""

from __future__ import annotations

import dataclasses
import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from conflictdesk.analysis import text as tx
from conflictdesk.analysis.calls import nli_batch
from conflictdesk.analysis.claims import (
    answer_claim,
    answer_kind,
    answer_spans,
    span_distances,
    states_something,
)
from conflictdesk.analysis.types import Candidate, ClaimFrame, QueryForm
from conflictdesk.backends.base import NLI, JudgmentCache
from conflictdesk.text import normalise_answer
from conflictdesk.types import Passage

if TYPE_CHECKING:
    from conflictdesk.analysis.tag import Reading

MAX_SENTENCES = 3
KINDS = ("date", "number", "entity")
FEATURES = (
    "votes", "votes_to_best", "passages", "rule_votes", "rule_lead", "top_sentence",
    "best_rank", "nearest", "closeness", "overlap", "relevance", "topicality", "kind_match",
    "is_date", "is_number", "is_entity", "words", "has_unit", "year_as_number", "position",
    "candidates", "rule_rank", "entailment", "contradiction",
)  # fmt: skip
MODEL_NAME = "conflictdesk-answer-ranker-lr"


@dataclass(frozen=True)
class Mention:
    """One span of the asked kind in one sentence of one passage."""

    passage_id: int
    rank: int  # the sentence's rank among the passage's sentences that state something
    key: str
    surface: str
    kind: str
    sentence: str
    distance: int | None  # characters to the question's nearest word; None: none there
    nearest: bool  # the span `claims.nearest_span` would pick in this sentence
    position: float  # start of the span over the sentence length


def frame_kind(frame: ClaimFrame) -> str | None:
    """The span kind the rule's frame was built with; None for sentence answers and
    questions the rule left without candidates."""
    if frame.form is not QueryForm.WH or not frame.candidates:
        return None
    if frame.method.startswith("rule:any"):
        return "any"
    kind = answer_kind(frame.query)
    return None if kind == "sentence" or frame.method != "rule" else kind


def mentions(
    query: str,
    kind: str,
    passages: Sequence[Passage],
    reading: Reading,
    answers: Mapping[int, tuple[str, str]],
) -> list[Mention]:
    """Every span of `kind` in the on-topic passages' first MAX_SENTENCES stating sentences
    and in the sentence the rule took each passage's answer from."""
    out = []
    for passage in passages:
        if passage.id not in reading.on_topic:
            continue
        known = tx.midsentence_capitals(passage.text)
        stating = [s for s in reading.ranked[passage.id] if states_something(s)]
        chosen = set(stating[:MAX_SENTENCES])
        if passage.id in answers:
            chosen.add(answers[passage.id][1])
        for rank, sentence in enumerate(stating):
            if sentence not in chosen:
                continue
            spans = answer_spans(sentence, kind, query, known)
            if not spans:
                continue
            distances = span_distances(sentence, spans, query) or [None] * len(spans)
            closest = min((d for d in distances if d is not None), default=None)
            for (start, key, surface, span_kind), d in zip(spans, distances, strict=True):
                nearest = d is not None and d == closest
                position = start / max(1, len(sentence))
                out.append(Mention(passage.id, rank, key, surface, span_kind, sentence, d,
                                   nearest, position))  # fmt: skip
    return out


def candidate_features(
    frame: ClaimFrame,
    kind: str,
    found: Sequence[Mention],
    answers: Mapping[int, tuple[str, str]],
    passages: Sequence[Passage],
    reading: Reading,
    nli: NLI,
    cache: JudgmentCache | None = None,
) -> tuple[list[str], np.ndarray, dict[str, list[Mention]]]:
    """(candidate keys, feature matrix in FEATURES order, mentions by key). The NLI reads
    the claim "The answer to the question Q is C." against each candidate's first sentence
    (its best-ranked mention in its most topical passage)."""
    by_key: dict[str, list[Mention]] = defaultdict(list)
    for mention in found:
        by_key[mention.key].append(mention)
    keys = list(by_key)
    firsts = [_first(by_key[k], reading) for k in keys]
    judged = nli_batch(
        nli,
        [(m.sentence, answer_claim(frame.query, m.surface)) for m in firsts],
        stage="rank",
        cache=cache,
    )
    rule_order = [normalise_answer(c.text) for c in frame.candidates]
    weight = reading.on_topic
    total = sum(weight.values()) or 1.0
    relevance = _relevance(passages)
    query_words = set(tx.content_words(reading.query))
    rule_lead = normalise_answer(frame.leading or "")
    votes = {k: sum(weight[p] for p in {m.passage_id for m in ms}) for k, ms in by_key.items()}
    best_votes = max(votes.values(), default=1.0) or 1.0
    rows = []
    for key in keys:
        ms = by_key[key]
        pids = {m.passage_id for m in ms}
        surfaces = {normalise_answer(m.surface) for m in ms}
        rule = [p for p in pids if p in answers and normalise_answer(answers[p][0]) in surfaces]
        surface = ms[0].surface
        rows.append([
            votes[key] / total,
            votes[key] / best_votes,
            len(pids) / max(1, len(weight)),
            sum(weight[p] for p in rule) / total,
            float(bool(rule_lead) and rule_lead in surfaces),
            len({m.passage_id for m in ms if m.rank == 0}) / len(pids),
            max(1.0 / (1 + m.rank) for m in ms),
            len({m.passage_id for m in ms if m.nearest}) / len(pids),
            max(1.0 / (1 + m.distance / 20) if m.distance is not None else 0.0 for m in ms),
            max(_overlap(query_words, m.sentence) for m in ms),
            max(relevance[p] for p in pids),
            max(weight[p] for p in pids),
            float(kind == "any" or ms[0].kind == kind),
            *(float(ms[0].kind == k) for k in KINDS),
            math.log1p(len(surface.split())),
            float(ms[0].kind == "number" and any(c.isalpha() for c in surface)),
            float(ms[0].kind == "number" and _year_like(key)),
            min(m.position for m in ms),
            1.0 / len(by_key),
            _rule_rank(rule_order, surfaces),
            judged[len(rows)].entailment,
            judged[len(rows)].contradiction,
        ])  # fmt: skip
    matrix = np.array(rows, dtype=np.float64).reshape(len(keys), len(FEATURES))
    return keys, matrix, by_key


def _first(ms: Sequence[Mention], reading: Reading) -> Mention:
    return max(ms, key=lambda m: (reading.on_topic[m.passage_id], -m.rank))


def _rule_rank(order: Sequence[str], surfaces: set[str]) -> float:
    """1 / (1 + the candidate's position in the rule's order); 0 when the rule lacks it."""
    return next((1.0 / (1 + i) for i, text in enumerate(order) if text in surfaces), 0.0)


def _relevance(passages: Sequence[Passage]) -> dict[int, float]:
    top = max((p.relevance for p in passages), default=0.0)
    return {p.id: max(p.relevance, 0.0) / top if top > 0 else 1.0 for p in passages}


def _overlap(query_words: set[str], sentence: str) -> float:
    return len(query_words & set(tx.content_words(sentence))) / max(1, len(query_words))


def _year_like(key: str) -> bool:
    value = key.partition(":")[2]
    return value.isdigit() and len(value) == 4 and value[:2] in ("18", "19", "20")


@dataclass(frozen=True)
class AnswerRanker:
    """Logistic regression over standardised FEATURES: score = w · (x − mean) / scale + b."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    model_id: str = MODEL_NAME

    @classmethod
    def from_json(cls, blob: Mapping[str, object], model_id: str = MODEL_NAME) -> AnswerRanker:
        if list(blob["features"]) != list(FEATURES):  # type: ignore[call-overload]
            raise ValueError("answer ranker features differ from this version's FEATURES")
        arrays = [np.asarray(blob[k], dtype=np.float64) for k in ("mean", "scale", "weights")]
        return cls(*arrays, float(blob["bias"]), model_id)  # type: ignore[arg-type]

    def to_json(self) -> dict[str, object]:
        return {
            "features": list(FEATURES),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "weights": self.weights.tolist(),
            "bias": self.bias,
        }

    def scores(self, matrix: np.ndarray) -> np.ndarray:
        return ((matrix - self.mean) / self.scale) @ self.weights + self.bias

    def rerank(
        self,
        frame: ClaimFrame,
        answers: Mapping[int, tuple[str, str]],
        passages: Sequence[Passage],
        reading: Reading,
        nli: NLI,
        cache: JudgmentCache | None = None,
    ) -> tuple[ClaimFrame, dict[int, tuple[str, str]]]:
        """The frame with candidates in the ranker's order and the best one leading, and the
        passages' answers with the leading one taken by every passage that states it."""
        kind = frame_kind(frame)
        found = mentions(frame.query, kind, passages, reading, answers) if kind else []
        if not found:
            return frame, dict(answers)
        keys, matrix, by_key = candidate_features(
            frame, kind, found, answers, passages, reading, nli, cache
        )
        scores = self.scores(matrix)
        order = sorted(range(len(keys)), key=lambda i: (-scores[i], i))
        candidates = tuple(_candidate(by_key[keys[i]], reading, float(scores[i])) for i in order)
        lead = candidates[0]
        updated = dict(answers)
        for mention in sorted(by_key[keys[order[0]]], key=lambda m: m.rank, reverse=True):
            updated[mention.passage_id] = (lead.text, mention.sentence)
        ranked = dataclasses.replace(
            frame,
            hypothesis=answer_claim(frame.query, lead.text),
            candidates=candidates,
            leading=lead.text,
            method=f"{frame.method}+ranker:{self.model_id}",
        )
        return ranked, updated


def _candidate(ms: Sequence[Mention], reading: Reading, score: float) -> Candidate:
    """The candidate with the surface of its most topical passage's mention."""
    best = _first(ms, reading)
    pids = tuple(dict.fromkeys(m.passage_id for m in ms))
    return Candidate(best.surface, best.kind, pids, score)


def load_answer_ranker(models_dir: Path) -> AnswerRanker:
    """The shipped ranker, verified against models/manifest.json."""
    from conflictdesk.backends.manifest import Manifest

    entry = Manifest.load(models_dir / "manifest.json").get(MODEL_NAME)
    entry.verify(models_dir)
    blob = json.loads(entry.resolve(models_dir).read_text(encoding="utf-8"))
    return AnswerRanker.from_json(blob, entry.model_id)
