"""Frozen results of the G-stage: the evidence table, the stance and the cited answer."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

from conflictdesk.analysis.types import Stance
from conflictdesk.types import Tag

__all__ = [
    "Answer",
    "AnswerSentence",
    "EvidenceRow",
    "EvidenceTable",
    "ParametricCheck",
    "SentenceRole",
    "Stance",
    "Strategy",
]


class SentenceRole(str, Enum):
    """What an answer sentence does; only CLAIM sentences carry factual information
    (CONFLICTS §4 leaves "no factual information" sentences out of factual grounding)."""

    CLAIM = "claim"
    CONFLICT = "conflict"  # states the disagreement; cites both sides
    ABSTAIN = "abstain"  # says the evidence does not settle the question


class Strategy(str, Enum):
    """How the answer is generated: the CONFLICTS prompting strategies, or extractive."""

    EXTRACTIVE = "extractive"
    VANILLA = "vanilla"
    PIPELINE = "pipeline"
    TAXONOMY_AWARE = "taxonomy-aware"
    ORACLE = "oracle"


@dataclass(frozen=True)
class EvidenceRow:
    """One line of ConRAG's evidence table (Step 1: Sort)."""

    passage_id: int
    tag: Tag
    confidence: float
    rationale: str


@dataclass(frozen=True)
class EvidenceTable:
    support: tuple[EvidenceRow, ...] = ()
    refute: tuple[EvidenceRow, ...] = ()
    irrelevant: tuple[EvidenceRow, ...] = ()

    def rows(self) -> tuple[EvidenceRow, ...]:
        return self.support + self.refute + self.irrelevant


@dataclass(frozen=True)
class AnswerSentence:
    """One answer sentence bound to the passage ids it cites (ConRAG Step 3: Cite)."""

    text: str
    cites: tuple[int, ...]
    role: SentenceRole = SentenceRole.CLAIM

    def as_json(self) -> dict[str, Any]:
        return {"sent": self.text, "cites": list(self.cites)}


@dataclass(frozen=True)
class ParametricCheck:
    """ConflictRAG's parametric–contextual comparison; `ran` is False without an LLM."""

    ran: bool
    status: str  # "agree" | "disagree" | "not run: <reason>"
    closed_book: str | None = None
    open_book: str | None = None
    explanation: str | None = None


@dataclass(frozen=True)
class Answer:
    """The G-stage output for one query; `method` names what produced each part."""

    query: str
    stance: Stance
    evidence: EvidenceTable
    sentences: tuple[AnswerSentence, ...]
    conflict: str
    method: dict[str, Any] = field(default_factory=dict)
    parametric: ParametricCheck | None = None
    predicted_type: str | None = None  # the LLM's own type under pipeline / taxonomy-aware

    @property
    def text(self) -> str:
        return " ".join(sentence.text for sentence in self.sentences)

    def to_json(self) -> dict[str, Any]:
        """A full, JSON-ready record (roles included) for storage and reopening."""
        data = asdict(self)
        data["stance"] = self.stance.value
        data["sentences"] = [
            {"sent": s.text, "cites": list(s.cites), "role": s.role.value} for s in self.sentences
        ]
        data["evidence"] = {
            name: [
                {
                    "id": r.passage_id,
                    "tag": r.tag.value,
                    "confidence": r.confidence,
                    "rationale": r.rationale,
                }
                for r in getattr(self.evidence, name)
            ]
            for name in ("support", "refute", "irrelevant")
        }
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Answer:
        """The inverse of `to_json`: a stored answer reopened without recomputing."""
        evidence = EvidenceTable(
            **{
                name: tuple(
                    EvidenceRow(r["id"], Tag(r["tag"]), float(r["confidence"]), r["rationale"])
                    for r in data["evidence"][name]
                )
                for name in ("support", "refute", "irrelevant")
            }
        )
        sentences = tuple(
            AnswerSentence(s["sent"], tuple(s["cites"]), SentenceRole(s.get("role", "claim")))
            for s in data["sentences"]
        )
        parametric = data.get("parametric")
        return cls(
            query=data["query"],
            stance=Stance(data["stance"]),
            evidence=evidence,
            sentences=sentences,
            conflict=data["conflict"],
            method=dict(data.get("method", {})),
            parametric=ParametricCheck(**parametric) if parametric else None,
            predicted_type=data.get("predicted_type"),
        )
