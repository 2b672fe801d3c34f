"""Frozen data types shared by every stage of the engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Relation(str, Enum):
    """ConflictScore's claim × document label."""

    SUPPORTS = "SUPPORTS"
    CONTRADICTS = "CONTRADICTS"
    IRRELEVANT = "IRRELEVANT"


class Tag(str, Enum):
    """ConRAG's passage tag against a query."""

    SUPPORT = "support"
    REFUTE = "refute"
    IRRELEVANT = "irrelevant"


class ConflictType(str, Enum):
    """The CONFLICTS taxonomy (Cattan et al.), five types."""

    NO_CONFLICT = "no_conflict"
    COMPLEMENTARY = "complementary"
    CONFLICTING_OPINIONS = "conflicting_opinions"
    OUTDATED = "outdated"
    MISINFORMATION = "misinformation"


class PairType(str, Enum):
    """ConflictRAG's stage-1 pair types (Head 2)."""

    NONE = "none"
    FACTUAL = "factual"
    TEMPORAL = "temporal"
    OPINION = "opinion"


PAIR_TYPES: tuple[PairType, ...] = (
    PairType.NONE,
    PairType.FACTUAL,
    PairType.TEMPORAL,
    PairType.OPINION,
)


@dataclass(frozen=True)
class Document:
    """A grounding document as given inline or loaded from a collection."""

    text: str
    title: str | None = None
    date: str | None = None  # ISO 8601 date (YYYY-MM-DD, YYYY-MM or YYYY) when known
    source: str | None = None
    url: str | None = None

    @classmethod
    def from_json(cls, value: Any) -> Document:
        """Build from a string or a `{"text", "title"?, "date"?, "source"?, "url"?}` object."""
        from conflictdesk.errors import InputError

        if isinstance(value, str):
            if not value.strip():
                raise InputError("empty document")
            return cls(text=value)
        if isinstance(value, dict):
            text = value.get("text")
            if not isinstance(text, str) or not text.strip():
                raise InputError("document without text")
            return cls(
                text=text,
                title=_opt_str(value.get("title")),
                date=_opt_str(value.get("date")),
                source=_opt_str(value.get("source")),
                url=_opt_str(value.get("url")),
            )
        raise InputError(f"a document must be a string or an object, not {type(value).__name__}")

    def to_json(self) -> dict[str, str]:
        """The object form `from_json` reads, without unset fields."""
        pairs = (("text", self.text), ("title", self.title), ("date", self.date),
                 ("source", self.source), ("url", self.url))  # fmt: skip
        return {k: v for k, v in pairs if v is not None}


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True)
class Passage:
    """A retrievable unit of text; `id` is an index into inline documents or a stored id."""

    id: int
    text: str
    document_id: int | None = None
    title: str | None = None
    date: str | None = None
    source: str | None = None
    url: str | None = None
    relevance: float = 0.0  # retrieval score, higher is better (fused or cosine)
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class NLIScores:
    """Calibrated probabilities of one (premise, hypothesis) pair."""

    entailment: float
    neutral: float
    contradiction: float

    @property
    def label(self) -> str:
        best = max(
            ("entailment", self.entailment),
            ("neutral", self.neutral),
            ("contradiction", self.contradiction),
            key=lambda item: item[1],
        )
        return best[0]

    def to_json(self) -> dict[str, float]:
        return {
            "entailment": self.entailment,
            "neutral": self.neutral,
            "contradiction": self.contradiction,
        }


@dataclass(frozen=True)
class PairScores:
    """Stage-1 pair detector output: P(conflict) and a distribution over PAIR_TYPES."""

    conflict: float
    types: tuple[float, float, float, float]

    @property
    def confidence(self) -> float:
        """Binary-head confidence, max(p, 1 - p): ConflictRAG routes pairs below τ_c."""
        return max(self.conflict, 1.0 - self.conflict)

    @property
    def pair_type(self) -> PairType:
        return PAIR_TYPES[max(range(4), key=lambda i: self.types[i])]


@dataclass(frozen=True)
class ModelCall:
    """One model call as recorded by the store: also the judgment cache's row."""

    stage: str
    model_id: str
    input_hash: str
    output: Any
    ms: float
