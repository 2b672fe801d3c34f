"""Frozen results of every analysis stage; each has `to_json()` for the store, CLI and TUI."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from conflictdesk.types import ConflictType, PairType, Passage, Tag


class Stance(str, Enum):
    """ConRAG's adjudicated stance; DISPUTED when both sides carry mass and neither leads by δ."""

    SUPPORT = "support"
    REFUTE = "refute"
    DISPUTED = "disputed"
    NOT_ENOUGH_INFO = "not_enough_info"


class QueryForm(str, Enum):
    """How the query was turned into a claim to tag against (see analysis/tag.py)."""

    CLAIM = "claim"  # a declarative statement, tagged directly
    YES_NO = "yes_no"  # a polar question, tagged against its declarative form
    WH = "wh"  # an open question, tagged against the leading candidate answer


OFF_TOPIC_METHODS = ("topicality", "subject")


def _r(value: float) -> float:
    return round(float(value), 6)


@dataclass(frozen=True)
class Candidate:
    """One candidate answer to a wh-question, with the passages whose key sentence holds it."""

    text: str
    kind: str  # "number" | "date" | "entity" | "sentence"
    passage_ids: tuple[int, ...]
    score: float  # summed vote weight of the passages holding it and the set-aside ones backing it

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "kind": self.kind,
            "passage_ids": list(self.passage_ids),
            "score": _r(self.score),
        }


@dataclass(frozen=True)
class ClaimFrame:
    """The hypothesis the passages are tagged against, and how it was derived."""

    query: str
    form: QueryForm
    hypothesis: str
    candidates: tuple[Candidate, ...] = ()
    leading: str | None = None  # the leading candidate answer (wh-questions)
    method: str = "rule"  # "rule" | "llm"

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "form": self.form.value,
            "hypothesis": self.hypothesis,
            "candidates": [c.to_json() for c in self.candidates],
            "leading": self.leading,
            "method": self.method,
        }


@dataclass(frozen=True)
class PassageTag:
    """ConRAG A-stage tag t_i with confidence u_i, and the NLI scores it was read from
    (all 0 when `method` is "topicality" or "subject": an off-topic passage, or one about
    another entity than the question's, tagged without the NLI)."""

    passage_id: int
    tag: Tag
    confidence: float
    entailment: float
    neutral: float
    contradiction: float
    key_sentence: str = ""  # the passage's most query-relevant sentence
    answer: str | None = None  # the candidate answer this passage holds (wh-questions)
    topicality: float = 1.0  # similarity to the query over the best passage's, in [0, 1]
    method: str = "nli"  # "nli" | "topicality" | "subject"

    @property
    def on_topic(self) -> bool:
        return self.method not in OFF_TOPIC_METHODS

    def to_json(self) -> dict[str, Any]:
        return {
            "passage_id": self.passage_id,
            "tag": self.tag.value,
            "confidence": _r(self.confidence),
            "scores": {
                "entailment": _r(self.entailment),
                "neutral": _r(self.neutral),
                "contradiction": _r(self.contradiction),
            },
            "key_sentence": self.key_sentence,
            "answer": self.answer,
            "topicality": _r(self.topicality),
            "method": self.method,
        }


@dataclass(frozen=True)
class Tagging:
    """Result of `tag_passages`: the claim frame and one tag per passage (input order)."""

    frame: ClaimFrame
    tags: tuple[PassageTag, ...]
    method: str  # e.g. "nli:<model_id>"

    def by_id(self) -> dict[int, PassageTag]:
        return {t.passage_id: t for t in self.tags}

    def to_json(self) -> dict[str, Any]:
        return {
            "frame": self.frame.to_json(),
            "tags": [t.to_json() for t in self.tags],
            "method": self.method,
        }


@dataclass(frozen=True)
class Cluster:
    """An evidence group: members (passage ids), dominant tag by confidence sum, its share."""

    id: int
    members: tuple[int, ...]
    dominant_tag: Tag
    confidence: float  # mass of the dominant tag / total mass of the cluster, in [0, 1]
    mass: dict[str, float] = field(default_factory=dict, compare=False, hash=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "members": list(self.members),
            "dominant_tag": self.dominant_tag.value,
            "confidence": _r(self.confidence),
            "mass": {k: _r(v) for k, v in self.mass.items()},
        }


@dataclass(frozen=True)
class ConflictScore:
    """ConRAG's κ at passage and cluster level, the U sums and the δ stance rule's outcome."""

    kappa: float  # passage level (drives the packet)
    cluster_kappa: float
    u_support: float
    u_refute: float
    u_irrelevant: float
    cluster_u_support: float
    cluster_u_refute: float
    margin: float  # (U_sup - U_ref) / (U_sup + U_ref + ε): the normalised gap compared with δ
    stance: Stance
    delta: float = 0.1

    def to_json(self) -> dict[str, Any]:
        return {
            "kappa": _r(self.kappa),
            "cluster_kappa": _r(self.cluster_kappa),
            "u_support": _r(self.u_support),
            "u_refute": _r(self.u_refute),
            "u_irrelevant": _r(self.u_irrelevant),
            "cluster_u_support": _r(self.cluster_u_support),
            "cluster_u_refute": _r(self.cluster_u_refute),
            "margin": _r(self.margin),
            "stance": self.stance.value,
            "delta": self.delta,
        }


@dataclass(frozen=True)
class Packet:
    """ConRAG's evidence packet P′ (ids in selection order) and how it was chosen."""

    passage_ids: tuple[int, ...]
    mode: str  # "relevance" (κ < τ) | "balanced" (κ ≥ τ)
    kappa: float
    budgets: dict[str, int]  # {"support", "refute", "irrelevant"}; empty in relevance mode
    k_prime: int = 8
    tau: float = 0.5
    max_per_cluster: int = 2

    def to_json(self) -> dict[str, Any]:
        return {
            "passage_ids": list(self.passage_ids),
            "mode": self.mode,
            "kappa": _r(self.kappa),
            "budgets": dict(self.budgets),
            "k_prime": self.k_prime,
            "tau": self.tau,
            "max_per_cluster": self.max_per_cluster,
        }


@dataclass(frozen=True)
class ConflictPair:
    """One passage pair judged by ConflictRAG's detector; `stage` says who decided it."""

    i: int  # passage id
    j: int  # passage id
    conflict_prob: float  # P(conflict) from the deciding stage
    conflict: bool
    pair_type: PairType
    stage: str  # "mlp" | "llm" | "nli"
    stage1_prob: float | None  # the MLP's P(conflict), kept when stage 2 decided; None: no MLP
    stage1_confidence: float | None
    rationale: str = ""
    # NLI stage 2: (entailment, neutral, contradiction) forward then backward; () otherwise
    nli: tuple[float, ...] = field(default=(), compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "i": self.i,
            "j": self.j,
            "conflict_prob": _r(self.conflict_prob),
            "conflict": self.conflict,
            "type": self.pair_type.value,
            "stage": self.stage,
            "stage1_prob": None if self.stage1_prob is None else _r(self.stage1_prob),
            "stage1_confidence": (
                None if self.stage1_confidence is None else _r(self.stage1_confidence)
            ),
            "rationale": self.rationale,
            "nli": [_r(x) for x in self.nli],
        }


@dataclass(frozen=True)
class PairDetection:
    """Result of `detect_pairs`: every judged pair, τ_c and the stage counts."""

    pairs: tuple[ConflictPair, ...]
    tau_c: float
    method: str  # e.g. "mlp:<id>+nli:<id>" or "mlp:<id>+llm:<id>" or "nli:<id>" (no MLP)

    @property
    def conflicting(self) -> tuple[ConflictPair, ...]:
        return tuple(p for p in self.pairs if p.conflict)

    def to_json(self) -> dict[str, Any]:
        return {
            "pairs": [p.to_json() for p in self.pairs],
            "tau_c": self.tau_c,
            "method": self.method,
        }


@dataclass(frozen=True)
class ConflictVerdict:
    """The evidence set's type in the CONFLICTS taxonomy, why, and which method decided."""

    type: ConflictType
    rationale: str
    method: str  # "llm:<id>" (Figure 2 prompt) | "model:<id>" | "rules"
    signals: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    confidence: float | None = None  # the type model's probability of `type`
    uncertain: bool = False  # confidence below the model's threshold: a reviewer should look

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type.value,
            "rationale": self.rationale,
            "method": self.method,
            "signals": dict(self.signals),
            "confidence": None if self.confidence is None else _r(self.confidence),
            "uncertain": self.uncertain,
        }


@dataclass(frozen=True)
class ViewPoint:
    """One side of a disagreement: a cluster's passages, for opinion resolution."""

    cluster_id: int
    passage_ids: tuple[int, ...]
    tag: Tag

    def to_json(self) -> dict[str, Any]:
        return {
            "cluster_id": self.cluster_id,
            "passage_ids": list(self.passage_ids),
            "tag": self.tag.value,
        }


@dataclass(frozen=True)
class Resolution:
    """How the packet is ordered for the answer, by the rule the conflict type calls for."""

    rule: str  # "direct" | "consolidate" | "viewpoints" | "recency" | "entropy_topsis"
    ranking: tuple[int, ...]  # passage ids, best / newest / most relevant first
    rationale: str
    criteria: tuple[str, ...] = ()  # TOPSIS criteria names, column order
    weights: tuple[float, ...] = ()  # entropy weights w_j
    scores: dict[int, float] = field(default_factory=dict)  # closeness (topsis) per passage
    matrix: dict[int, tuple[float, ...]] = field(default_factory=dict)  # raw criteria per passage
    dates: dict[int, str] = field(default_factory=dict)  # date used per passage (recency)
    viewpoints: tuple[ViewPoint, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "ranking": list(self.ranking),
            "rationale": self.rationale,
            "criteria": list(self.criteria),
            "weights": [_r(w) for w in self.weights],
            "scores": {str(k): _r(v) for k, v in self.scores.items()},
            "matrix": {str(k): [_r(x) for x in v] for k, v in self.matrix.items()},
            "dates": {str(k): v for k, v in self.dates.items()},
            "viewpoints": [v.to_json() for v in self.viewpoints],
        }


@dataclass(frozen=True)
class Analysis:
    """Everything the A-stage found for one query; the generation stage consumes it."""

    query: str
    passages: tuple[Passage, ...]
    tagging: Tagging
    clusters: tuple[Cluster, ...]
    score: ConflictScore
    packet: Packet
    detection: PairDetection
    verdict: ConflictVerdict
    resolution: Resolution
    methods: dict[str, str] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)  # stage -> milliseconds
    # the question the stages read when the query was reworded (`wording.asked_question`;
    # "" when they read `query` as typed)
    reworded: str = ""

    @property
    def tags(self) -> tuple[PassageTag, ...]:
        return self.tagging.tags

    @property
    def asked(self) -> str:
        """The question as the analysis read it: `query` as typed, or its rewording."""
        return self.reworded or self.query

    @property
    def kappa(self) -> float:
        return self.score.kappa

    @property
    def pairs(self) -> tuple[ConflictPair, ...]:
        return self.detection.pairs

    @property
    def stance(self) -> Stance:
        return self.score.stance

    def passage(self, passage_id: int) -> Passage:
        for p in self.passages:
            if p.id == passage_id:
                return p
        raise KeyError(passage_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "passages": [passage_to_json(p) for p in self.passages],
            "tagging": self.tagging.to_json(),
            "clusters": [c.to_json() for c in self.clusters],
            "score": self.score.to_json(),
            "packet": self.packet.to_json(),
            "detection": self.detection.to_json(),
            "verdict": self.verdict.to_json(),
            "resolution": self.resolution.to_json(),
            "methods": dict(self.methods),
            "timings": {k: _r(v) for k, v in self.timings.items()},
            **({"reworded": self.reworded} if self.reworded else {}),
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Analysis:
        """The inverse of `to_json` (conflictdesk.analysis.serial); InputError when malformed."""
        from conflictdesk.analysis.serial import analysis_from_json

        return analysis_from_json(value)


def passage_to_json(p: Passage) -> dict[str, Any]:
    """A Passage as JSON (the shared type has no `to_json`)."""
    return {
        "id": p.id,
        "text": p.text,
        "document_id": p.document_id,
        "title": p.title,
        "date": p.date,
        "source": p.source,
        "url": p.url,
        "relevance": _r(p.relevance),
    }
