"""A trained ranker of a wh-question's candidate answers: which one leads in `ask`.

The rule of `claims.frame_query` gives each on-topic passage one answer (the span of the asked
kind nearest the question's words in its most query-relevant sentence that holds one) and lets
the answer with most topicality-weighted votes lead. The ranker re-orders those same
candidates; it adds none and changes no passage's answer, so the conflict evidence stays the
rule's. Each candidate is read in the sentences the rule took it from, and FEATURES describe
it: the rule's votes, lead and rank; over its passages, topicality-weighted sums (over the
on-topic total) of the span's closeness to the question's words, the sentence's overlap
with the question, and the NLI's entailment and contradiction of the claim "The answer to the question
Q is C." against the sentence (one batched call, stage "rank"); the best entailment, the
passages' relevance and topicality; the span's kind, length, unit and position; and how many
distinct spans of the kind the on-topic passages' first MAX_SENTENCES stating sentences hold.
A logistic regression scores them, plus a margin for the rule's own leading candidate
(fitted on QACC train and the RAMDocs TRAIN half by `scripts/train_answer_ranker.py`, weights
in models/reader/answer_ranker.json); the best leads and becomes the claim the passages are tagged against (the resolution then orders the
evidence as before; also putting a passage that states it first, for the direct and
consolidate rules, raised RAMDocs' lead answer recall and lowered QACC's, so it was dropped).

Tried and dropped: counting every passage that names a value (a newer passage names the
figure it replaces, so outdated values led) and each candidate's best single sentence alone
(one sentence echoing the question's wording outweighed several passages: the answer changed
with the wording), and shares of passages answering from their most query-relevant sentence
or with the span nearest the question's words (fitted with negative weights against the
votes, they let one passage outvote three). Sentence answers (why/how) and yes/no questions keep the rule. Passages
about another entity than the question's are not on-topic, so they hold no candidate.

Opt-in (`AnalysisOptions(ranker="model")`; the default is the rule). `scripts/eval_ask.py
--ramdocs-half eval --ranker model` against `--ranker rules`: lead answer recall QACC dev
0.349 against 0.327, RAMDocs EVAL half 0.521 against 0.511; answer recall 0.456 against 0.446
and 0.755 both; gold citation precision 0.894 against 0.896 (209 judged sentences against
202) and 0.9605 against 0.9608; conflict F1 0.185 against 0.193 and 0.626 both. Grouped CV
on the training sets: top-1 0.246 against the rule's 0.242."""

from __future__ import annotations

import dataclasses
import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from conflictdesk.analysis import text as tx
from conflictdesk.analysis.calls import nli_batch
from conflictdesk.analysis.claims import (
    answer_claim,
    answer_kind,
    answer_spans,
    states_something,
)
from conflictdesk.analysis.linear import RuleMarginScorer
from conflictdesk.analysis.stated import span_distances
from conflictdesk.analysis.types import ClaimFrame, QueryForm
from conflictdesk.backends.base import NLI, JudgmentCache
from conflictdesk.text import normalise_answer
from conflictdesk.types import NLIScores, Passage

if TYPE_CHECKING:
    from conflictdesk.analysis.tag import Reading

MAX_SENTENCES = 3
KINDS = ("date", "number", "entity")
FEATURES = (
    "rule_votes", "rule_lead", "rule_rank", "closeness", "overlap",
    "entailment", "contradiction", "best_entailment", "relevance", "topicality", "kind_match",
    "is_date", "is_number", "is_entity", "words", "has_unit", "year_as_number", "position",
    "candidates",
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
    method = frame.method.split("+reader:", 1)[0]  # the span reader keeps the kind
    if method.startswith("rule:any"):
        return "any"
    kind = answer_kind(frame.query)
    return None if kind == "sentence" or method != "rule" else kind


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
    """(the rule's candidate keys, feature matrix in FEATURES order, their mentions). Only the
    rule's candidates are ranked, each read in the sentences the rule took it from: a passage
    that merely names a value (the one a newer figure replaced) does not count for it. Most
    features are sums over those passages weighted by topicality, over the on-topic total,
    so support from several passages adds up; the NLI reads the claim "The answer to the
    question Q is C." against each of those sentences."""
    by_key: dict[str, list[Mention]] = defaultdict(list)
    for mention in found:
        by_key[mention.key].append(mention)
    rule_order = [normalise_answer(c.text) for c in frame.candidates]
    surfaces = {k: {normalise_answer(m.surface) for m in ms} for k, ms in by_key.items()}
    rule_rank = {k: _rule_rank(rule_order, surfaces[k]) for k in by_key}
    spread = 1.0 / len(by_key)
    keys = [k for k in by_key if rule_rank[k] > 0]
    chosen = {k: _answering(by_key[k], answers, surfaces[k]) for k in keys}
    pairs = [(m.sentence, answer_claim(frame.query, m.surface)) for k in keys for m in chosen[k]]
    judged = iter(nli_batch(nli, pairs, stage="rank", cache=cache))
    context = _Context(
        reading.on_topic,
        sum(reading.on_topic.values()) or 1.0,
        _relevance(passages),
        set(tx.content_words(reading.query)),
        kind,
    )
    rows = []
    for key in keys:
        scores = [next(judged) for _ in chosen[key]]
        lead = float(normalise_answer(frame.leading or "") in surfaces[key])
        rows.append(context.row(key, chosen[key], scores, [lead, rule_rank[key]], spread))
    matrix = np.array(rows, dtype=np.float64).reshape(len(keys), len(FEATURES))
    return keys, matrix, chosen


@dataclass(frozen=True)
class _Context:
    weight: Mapping[int, float]
    total: float
    relevance: Mapping[int, float]
    query_words: set[str]
    kind: str

    def support(self, ms: Sequence[Mention], values: Sequence[float]) -> float:
        """Σ topicality × value over the mentions' passages (each passage once, its best
        value), over the on-topic total."""
        best: dict[int, float] = {}
        for m, v in zip(ms, values, strict=True):
            best[m.passage_id] = max(best.get(m.passage_id, 0.0), v)
        return sum(self.weight[p] * v for p, v in best.items()) / self.total

    def row(
        self,
        key: str,
        ms: Sequence[Mention],
        scores: Sequence[NLIScores],
        rule: list[float],
        spread: float,
    ) -> list[float]:
        pids = {m.passage_id for m in ms}
        surface, span_kind = ms[0].surface, ms[0].kind
        closeness = [1.0 / (1 + m.distance / 20) if m.distance is not None else 0.0 for m in ms]
        return [
            self.support(ms, [1.0] * len(ms)),
            *rule,
            self.support(ms, closeness),
            self.support(ms, [_overlap(self.query_words, m.sentence) for m in ms]),
            self.support(ms, [s.entailment for s in scores]),
            self.support(ms, [s.contradiction for s in scores]),
            max(s.entailment for s in scores),
            max(self.relevance[p] for p in pids),
            max(self.weight[p] for p in pids),
            float(self.kind == "any" or span_kind == self.kind),
            *(float(span_kind == k) for k in KINDS),
            math.log1p(len(surface.split())),
            float(span_kind == "number" and any(c.isalpha() for c in surface)),
            float(span_kind == "number" and _year_like(key)),
            min(m.position for m in ms),
            spread,
        ]


def _answering(
    ms: list[Mention], answers: Mapping[int, tuple[str, str]], surfaces: set[str]
) -> list[Mention]:
    """The mentions in the sentences the rule took this candidate from (all when none)."""
    own = [
        m
        for m in ms
        if m.passage_id in answers
        and m.sentence == answers[m.passage_id][1]
        and normalise_answer(answers[m.passage_id][0]) in surfaces
    ]
    return own or ms


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
class AnswerRanker(RuleMarginScorer):
    """Logistic regression over standardised FEATURES: score = w · (x − mean) / scale + b,
    plus the margin for the rule's leading candidate."""

    FEATURES: ClassVar[tuple[str, ...]] = FEATURES
    RULE_FEATURE: ClassVar[str] = "rule_lead"
    KIND: ClassVar[str] = "answer ranker"

    model_id: str = MODEL_NAME

    def rerank(
        self,
        frame: ClaimFrame,
        answers: Mapping[int, tuple[str, str]],
        passages: Sequence[Passage],
        reading: Reading,
        nli: NLI,
        cache: JudgmentCache | None = None,
    ) -> ClaimFrame:
        """The frame with the rule's candidates in the ranker's order, the best one leading
        (candidates the ranker cannot see keep the rule's order, after the others). The
        passages keep the rule's answers."""
        kind = frame_kind(frame)
        found = mentions(frame.query, kind, passages, reading, answers) if kind else []
        if not found:
            return frame
        keys, matrix, by_key = candidate_features(
            frame, kind, found, answers, passages, reading, nli, cache
        )
        scores = self.scores(matrix)
        best: dict[str, float] = {}
        for key, score in zip(keys, scores, strict=True):
            for surface in {normalise_answer(m.surface) for m in by_key[key]}:
                best[surface] = max(best.get(surface, -math.inf), float(score))
        scored = [(best.get(normalise_answer(c.text), -math.inf), c) for c in frame.candidates]
        order = sorted(range(len(scored)), key=lambda i: (-scored[i][0], i))
        candidates = tuple(
            dataclasses.replace(scored[i][1], score=scored[i][0])
            if math.isfinite(scored[i][0])
            else scored[i][1]
            for i in order
        )
        lead = candidates[0]
        return dataclasses.replace(
            frame,
            hypothesis=answer_claim(frame.query, lead.text),
            candidates=candidates,
            leading=lead.text,
            method=f"{frame.method}+ranker:{self.model_id}",
        )


def load_answer_ranker(models_dir: Path) -> AnswerRanker:
    """The shipped ranker, verified against models/manifest.json."""
    from conflictdesk.backends.manifest import Manifest

    entry = Manifest.load(models_dir / "manifest.json").get(MODEL_NAME)
    entry.verify(models_dir)
    blob = json.loads(entry.resolve(models_dir).read_text(encoding="utf-8"))
    return AnswerRanker.from_json(blob, entry.model_id)
