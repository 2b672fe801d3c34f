"""Measured signals of an evidence set, the inputs of the CONFLICTS type model.

Every feature is computed from what the pipeline has at run time — the packet's passages with
their dates and sources, the NLI tags, κ, the clusters and the judged pairs — never from
phrases: time is read from the passages' publication dates (metadata), disagreement from the
answers and the NLI's mass, subjectivity from closed word classes of English grammar (first
and second person pronouns, modal verbs, degree adverbs, comparative and superlative forms)
and punctuation."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np

from conflictdesk import vocabulary as vocab
from conflictdesk.analysis import text as tx
from conflictdesk.analysis.claims import answer_kind
from conflictdesk.analysis.dates import find_dates, parse_iso
from conflictdesk.analysis.evidence_signals import (
    SIDE_NAMES,
    SIGNAL_NAMES,
    SUPPORT_NAMES,
    SubjectivityProbe,
    embedding_signals,
    pair_signals,
    side_signals,
    support_signals,
)
from conflictdesk.analysis.quantities import quantity
from conflictdesk.analysis.types import (
    Cluster,
    ConflictScore,
    PairDetection,
    PassageTag,
    QueryForm,
    Tagging,
)
from conflictdesk.types import Passage, Tag

# Closed word classes of English grammar (personal pronouns, modal auxiliaries, degree
# adverbs): how a text addresses its reader and hedges or grades a statement.
FIRST_PERSON = frozenset(
    ["i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves"]
)
SECOND_PERSON = frozenset(["you", "your", "yours", "yourself", "yourselves"])
MODALS = frozenset(["should", "must", "ought", "would", "could", "might", "may", "can", "shall"])
DEGREE = frozenset(
    [
        "very",
        "really",
        "quite",
        "too",
        "so",
        "rather",
        "fairly",
        "pretty",
        "extremely",
        "most",
        "least",
    ]
)
PAST_AUXILIARIES = frozenset(["was", "were", "did", "had"])
PRESENT_AUXILIARIES = frozenset(["is", "are", "am", "does", "do", "has", "have"])
_CLAUSE_BREAK = re.compile(
    r"(?:,\s*(?:and\s+)?|\s+and\s+)(?=(?:what|who|whom|whose|when|where|which|why|how)\b)",
    re.IGNORECASE,
)
_GRADED = re.compile(r"\b(?:more|less|most|least)\s+\w+|\b\w{3,}(?:est|ier)\b", re.IGNORECASE)

# How many distinct answers the on-topic passages hold, and how much of the packet is on topic.
ANSWER_STRUCTURE = ("answer_count", "on_topic_share")
FEATURE_NAMES = (
    "yes_no",
    "question_past",
    "lead_share",
    "second_share",
    "dissent_contradiction",
    "dissent_neutral",
    "numeric_spread",
    "kappa",
    "refute_share",
    "contradiction_mean",
    "entailment_mean",
    "conflict_pair_share",
    "dated_share",
    "date_spread",
    "newest_differs",
    "time_separated",
    "text_dates",
    "subjectivity",
    "subjective_share",
    "subjectivity_max",
    "exclaiming_share",
    "source_spread",
    "cluster_count",
    *SIGNAL_NAMES,
    *ANSWER_STRUCTURE,
    *SUPPORT_NAMES,
    *SIDE_NAMES,
)


@dataclass(frozen=True)
class Evidence:
    """The stage results the type is read from (one packet's worth)."""

    query: str
    packet: Sequence[Passage]
    tagging: Tagging
    clusters: Sequence[Cluster]
    score: ConflictScore
    detection: PairDetection
    vectors: Mapping[int, np.ndarray] | None = None  # passage id -> embedding, when known
    query_vector: np.ndarray | None = None


def type_features(ev: Evidence, probe: SubjectivityProbe | None = None) -> dict[str, float]:
    """Every feature of FEATURE_NAMES for one evidence set (module docstring); the probe
    measures subjectivity on the embeddings (`evidence_signals`)."""
    tags = ev.tagging.by_id()
    on_topic = [p for p in ev.packet if tags[p.id].on_topic] or list(ev.packet)
    answers = _answers([p.id for p in on_topic], tags, ev.tagging)
    features = {
        "yes_no": float(ev.tagging.frame.form is not QueryForm.WH),
        **question_features(ev.query),
        **_answer_features(answers),
        **_dissent_features(answers, tags, (ev.tagging.frame.leading or "").lower()),
        **_nli_features(on_topic, tags, ev.score),
        **_pair_features(ev),
        **_time_features(on_topic, answers),
        **_style_features(on_topic),
        "source_spread": _source_spread(on_topic),
        "cluster_count": math.log1p(_clusters_of(on_topic, ev.clusters)),
        **pair_signals(ev.detection.pairs, _dates(ev.packet)),
        **embedding_signals(ev.query_vector, on_topic, ev.vectors, probe),
        "answer_count": math.log1p(len(set(answers.values()))),
        "on_topic_share": sum(tags[p.id].on_topic for p in ev.packet) / max(len(ev.packet), 1),
        **_retrieved_support(ev),
    }
    return {name: float(features[name]) for name in FEATURE_NAMES}


def question_features(query: str) -> dict[str, float]:
    """Whether the question asks in the past tense (its first auxiliary among the first four
    words is a past form, or a past-tense verb follows the question word): a past event's
    answer cannot have changed since. A compound question ("When was X built and how tall
    is it?") is read in the clause that asks for the answer kind of the whole question, so
    the order of its clauses does not change the tense."""
    words = [w.lower() for w in vocab.words(asked_clause(query))]
    auxiliary = next((w for w in words[:4] if w in PAST_AUXILIARIES | PRESENT_AUXILIARIES), "")
    past = auxiliary in PAST_AUXILIARIES or (len(words) > 1 and words[1].endswith("ed"))
    return {"question_past": float(past)}


def asked_clause(query: str) -> str:
    """The clause of a compound wh-question (clauses joined by "and" or a comma before a
    question word) whose answer kind is the whole question's; the query itself otherwise."""
    clauses = [c for c in _CLAUSE_BREAK.split(query) if c.strip()]
    if len(clauses) < 2:
        return query
    kind = answer_kind(query)
    return next((c for c in clauses if answer_kind(c) == kind), query)


def _retrieved_support(ev: Evidence) -> dict[str, float]:
    """`support_signals` and `side_signals` over every passage the tagger judged on topic, in
    the packet or not (the packet keeps a few; a lone dissent shows only against all of
    them)."""
    tags = ev.tagging.by_id()
    on_topic = [t.passage_id for t in ev.tagging.tags if t.on_topic]
    irrelevant = [pid for pid in on_topic if tags[pid].tag is Tag.IRRELEVANT]
    answers = _answers(on_topic, tags, ev.tagging)
    return {
        **support_signals(answers, on_topic, irrelevant, ev.vectors),
        **side_signals(answers, ev.detection.pairs, tags, ev.tagging),
    }


def _answers(
    on_topic: Sequence[int], tags: dict[int, PassageTag], tagging: Tagging
) -> dict[int, str]:
    """The answer each on-topic passage (by id) holds: its candidate answer (wh), else its
    stance (Support / Refute); a passage with neither holds none."""
    wh, leading = tagging.frame.form is QueryForm.WH, (tagging.frame.leading or "").lower()
    held: dict[int, str] = {}
    for pid in on_topic:
        t = tags[pid]
        if wh:
            answer = leading if t.tag is Tag.SUPPORT and leading else (t.answer or "").lower()
        else:
            answer = t.tag.value if t.tag is not Tag.IRRELEVANT else ""
        if answer:
            held[pid] = answer
    return held


def _answer_features(answers: dict[int, str]) -> dict[str, float]:
    counts = Counter(answers.values())
    total = sum(counts.values())
    return {
        "lead_share": counts.most_common(1)[0][1] / total if total else 1.0,
        "second_share": counts.most_common(2)[-1][1] / total if len(counts) > 1 else 0.0,
        "numeric_spread": _numeric_spread(counts),
    }


def _dissent_features(
    answers: dict[int, str], tags: dict[int, PassageTag], leading: str
) -> dict[str, float]:
    """Mean NLI contradiction and neutral probability of the passages that hold another
    answer than the most common one (on a tie the leading answer, then the first in
    alphabetical order, never the order of the packet): a contradicting dissent is a
    conflict, a neutral one may be a compatible answer."""
    counts = Counter(answers.values())
    if len(counts) < 2:
        return {"dissent_contradiction": 0.0, "dissent_neutral": 0.0}
    common = min(counts, key=lambda a: (-counts[a], a != leading, a))
    dissent = [tags[pid] for pid, answer in answers.items() if answer != common]
    n = len(dissent)
    return {
        "dissent_contradiction": sum(t.contradiction for t in dissent) / n,
        "dissent_neutral": sum(t.neutral for t in dissent) / n,
    }


def _numeric_spread(counts: Counter[str]) -> float:
    """log of the ratio of the largest to the smallest numeric answer (0 without two): in
    the dimension's base unit when every one is a quantity of the same dimension ("24
    months" and "10 years"), else as written ("2,841 m" is 2841; a version "2.4.1" is none)."""
    found = [spans[0] for answer in counts if (spans := tx.numbers(answer))]
    stated = [quantity(span) for span in found]
    if stated and all(q is not None for q in stated) and len({q.dimension for q in stated}) == 1:
        values = [abs(q.value) for q in stated if q is not None]
    else:
        values = [float(m.group(0)) for span in found if (m := _LEADING_NUMBER.match(span))]
    values = [v for v in values if v > 0]
    if len(values) < 2:
        return 0.0
    return min(math.log(max(values) / min(values)), 3.0)


# an answer's number without its unit; spans are normalised (no thousands commas) and a
# version ("2.4.1") is no number
_LEADING_NUMBER = re.compile(r"\d+(?:\.\d+)?(?![\d.])")


def _nli_features(
    on_topic: Sequence[Passage], tags: dict[int, PassageTag], score: ConflictScore
) -> dict[str, float]:
    scored = [tags[p.id] for p in on_topic if tags[p.id].on_topic]
    n = max(len(scored), 1)
    polar = score.u_support + score.u_refute
    return {
        "kappa": score.kappa,
        "refute_share": score.u_refute / polar if polar > 0 else 0.0,
        "contradiction_mean": sum(t.contradiction for t in scored) / n,
        "entailment_mean": sum(t.entailment for t in scored) / n,
    }


def _pair_features(ev: Evidence) -> dict[str, float]:
    in_packet = {p.id for p in ev.packet}
    judged = [p for p in ev.detection.pairs if p.i in in_packet and p.j in in_packet]
    conflicting = [p for p in judged if p.conflict]
    return {"conflict_pair_share": len(conflicting) / len(judged) if judged else 0.0}


def _time_features(on_topic: Sequence[Passage], answers: dict[int, str]) -> dict[str, float]:
    dated = _dates(on_topic)
    spread = 0.0
    if len(dated) > 1:
        spread = (max(dated.values()) - min(dated.values())).days / 365.25
    mentions = sum(len(find_dates(p.text)) for p in on_topic)
    return {
        "dated_share": len(dated) / max(len(on_topic), 1),
        "date_spread": math.log1p(max(spread, 0.0)),
        "newest_differs": _newest_differs(dated, answers),
        "time_separated": _time_separated(dated, answers),
        "text_dates": math.log1p(mentions / max(len(on_topic), 1)),
    }


def _dates(passages: Sequence[Passage]) -> dict[int, date]:
    return {p.id: d for p in passages if (d := _date_of(p)) is not None}


def _date_of(passage: Passage) -> date | None:
    """The passage's publication date (its metadata), or None. Dates in the text are left
    out: they date the events a passage tells of ("built in 1890", "born 1950"), not when
    its source wrote it, and passages about different things sharing a name then looked
    like sources from different times (time features from text dates: typed_dev CV 0.544,
    cross-source criterion 0.445; from metadata only: 0.567 and 0.466, docs/type_report.md)."""
    return parse_iso(passage.date)


def _newest_differs(dated: dict[int, date], answers: dict[int, str]) -> float:
    """1 when the newest answering passage's answer is not the one most passages hold (a tie
    for the most counts as not)."""
    answering = [pid for pid in dated if pid in answers]
    counts = Counter(answers.values())
    if len(counts) < 2 or not answering:
        return 0.0
    newest = answers[max(answering, key=lambda pid: dated[pid])]
    top = max(counts.values())
    unique_plurality = counts[newest] == top and list(counts.values()).count(top) == 1
    return float(not unique_plurality)


def _time_separated(dated: dict[int, date], answers: dict[int, str]) -> float:
    """1 when the answers' date ranges do not overlap (two answers or more, each dated)."""
    ranges: dict[str, list[date]] = {}
    for pid, answer in answers.items():
        if pid in dated:
            ranges.setdefault(answer, []).append(dated[pid])
    if len(ranges) < 2:
        return 0.0
    spans = sorted((min(ds), max(ds)) for ds in ranges.values())
    return float(all(a[1] < b[0] for a, b in itertools.pairwise(spans)))


def subjectivity(text: str) -> float:
    """Share of a text's words in the subjective word classes (module docstring), plus
    exclamation and question marks, per word."""
    words = [w.lower() for w in vocab.words(text)]
    if not words:
        return 0.0
    marked = sum(
        w in FIRST_PERSON or w in SECOND_PERSON or w in MODALS or w in DEGREE for w in words
    )
    graded = len(_GRADED.findall(text))
    punct = text.count("!") + text.count("?")
    return (marked + graded + punct) / len(words)


def _style_features(on_topic: Sequence[Passage]) -> dict[str, float]:
    scores = [subjectivity(p.text) for p in on_topic]
    n = max(len(scores), 1)
    return {
        "subjectivity": sum(scores) / n,
        "subjective_share": sum(s >= 0.06 for s in scores) / n,
        "subjectivity_max": max(scores, default=0.0),
        "exclaiming_share": sum("!" in p.text for p in on_topic) / n,
    }


def _source_spread(on_topic: Sequence[Passage]) -> float:
    sources = [p.source or p.url or "" for p in on_topic]
    known = [s for s in sources if s]
    return len(set(known)) / len(known) if known else 0.0


def _clusters_of(on_topic: Sequence[Passage], clusters: Sequence[Cluster]) -> int:
    ids = {p.id for p in on_topic}
    return sum(1 for c in clusters if ids & set(c.members))
