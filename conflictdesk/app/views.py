"""What the front ends show, typed: an ask as it streams in or as it was stored, a scored (or
regenerated) response, an import's counts and a reopened run. The TUI's widgets read these
fields; its test fake builds the same types.

A stored run keeps the shape the CLI writes (ask → {"record", "analysis", "answer"}; score →
the ScoreResult JSON; regenerate → the Regeneration JSON, each beside its input); the
`from_run` constructors read that shape back."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from conflictdesk.analysis.types import (
    Analysis,
    Cluster,
    ConflictScore,
    ConflictVerdict,
    Packet,
    PairDetection,
    Resolution,
    Tagging,
)
from conflictdesk.analysis.wording import asked_question
from conflictdesk.app.wire import Json, RunSummary
from conflictdesk.generation.report import short_answer, short_answer_basis, shown_short_answer
from conflictdesk.generation.types import Answer
from conflictdesk.stages import ANSWER, EMBED, RETRIEVE, SHOWN_AS
from conflictdesk.types import Document, Passage, Relation


@dataclass(frozen=True)
class AskView:
    """An ask: empty parts are the stages that have not run yet (or were cancelled)."""

    query: str
    collection: str | None = None
    passages: tuple[Passage, ...] = ()
    tagging: Tagging | None = None
    clusters: tuple[Cluster, ...] = ()
    score: ConflictScore | None = None
    packet: Packet | None = None
    detection: PairDetection | None = None
    verdict: ConflictVerdict | None = None
    resolution: Resolution | None = None
    answer: Answer | None = None
    # the question the stages read when they reworded the query (`Analysis.reworded`)
    reworded: str = ""

    @classmethod
    def start(cls, query: str, collection: str | None = None) -> AskView:
        """The view before any stage has run; it already says how the query will be read
        (`analysis.wording.asked_question`, what `analyze` runs first)."""
        asked = asked_question(query)
        return cls(query, collection, reworded=asked if asked != query else "")

    def after(self, event: str, value: Any) -> AskView:
        """This view with one `Desk.ask` event's result added (events not shown leave it)."""
        if event == RETRIEVE:
            return replace(self, passages=tuple(value.passages))
        if event == EMBED:
            return replace(self, passages=tuple(value[0]))
        if event == ANSWER:
            return replace(self, answer=value)
        if event not in SHOWN_AS:
            return self
        part = SHOWN_AS[event][1]
        return replace(self, **{part: tuple(value) if part == "clusters" else value})

    @classmethod
    def of(cls, analysis: Analysis, answer: Answer, collection: str | None) -> AskView:
        return cls(analysis.query, collection, analysis.passages, analysis.tagging,
                   analysis.clusters, analysis.score, analysis.packet, analysis.detection,
                   analysis.verdict, analysis.resolution, answer,
                   analysis.reworded)  # fmt: skip

    @classmethod
    def from_run(cls, run_input: Json, output: Json) -> AskView:
        """A stored ask. Passages of inline documents lose their document id: it is an index
        into the request's list, not a stored document."""
        analysis = Analysis.from_json(output["analysis"])
        view = cls.of(analysis, Answer.from_json(output["answer"]), run_input.get("collection"))
        view = replace(view, query=run_input.get("query") or analysis.query)
        if "documents" in run_input:
            view = replace(view, passages=tuple(replace(p, document_id=None)
                                                for p in view.passages))  # fmt: skip
        return view

    def passage(self, passage_id: int) -> Passage | None:
        return next((p for p in self.passages if p.id == passage_id), None)

    @property
    def leading(self) -> dict[str, Any] | None:
        """The short answer `ask --json` reports (`generation.report.short_answer`), once the
        answer stage has run; None before, or for a question that is not a wh-question."""
        if self.tagging is None or self.resolution is None or self.answer is None:
            return None
        return short_answer(self.tagging, self.resolution.rule, self.answer.sentences)

    @property
    def shown_leading(self) -> dict[str, Any] | None:
        """The short answer the TUI shows: `leading`, unless it is a whole sentence."""
        short = self.leading
        return short if shown_short_answer(short) else None

    @property
    def leading_basis(self) -> str:
        """What the short answer rests on, in words ("the newest source", ...); "" without one."""
        short = self.leading
        return "" if short is None else short_answer_basis(short, self.resolution.rule)

    @property
    def disputed(self) -> bool:
        """The rule of `generation.report.is_disputed`: κ at or above the packet's τ with mass
        on both sides (κ is 1 when nothing supports or refutes, which is no dispute)."""
        if self.score is None:
            return False
        tau = self.packet.tau if self.packet is not None else 0.5
        both_sides = self.score.u_support > 0 and self.score.u_refute > 0
        return both_sides and self.score.kappa >= tau


@dataclass(frozen=True)
class ScoredClaim:
    """One claim of a scored response: its relation to each document, in document order."""

    text: str
    relations: tuple[Relation, ...]
    confidences: tuple[float | None, ...] = ()
    conflict: bool = False  # ConflictScore: at least one SUPPORTS and one CONTRADICTS

    @classmethod
    def from_json(cls, value: Json) -> ScoredClaim:
        relations = tuple(Relation(r) for r in value.get("relations") or ())
        both = Relation.SUPPORTS in relations and Relation.CONTRADICTS in relations
        return cls(value.get("text", ""), relations, tuple(value.get("confidences") or ()),
                   bool(value.get("conflict", both)))  # fmt: skip


@dataclass(frozen=True)
class Regeneration:
    """What a regeneration did: `regenerated` is False when no claim was both supported and
    contradicted; `original` is the response it started from, with its CS-C and CS-R."""

    regenerated: bool
    original: str
    cs_c_before: float | None = None
    cs_r_before: float | None = None
    selected_claim: str | None = None


@dataclass(frozen=True)
class ScoreView:
    """A response scored with ConflictScore against its documents (CS-C, CS-R None when
    undefined); after a regeneration, the revised response with `regeneration` set."""

    response: str
    documents: tuple[Document, ...]
    claims: tuple[ScoredClaim, ...] = ()
    cs_c: float | None = None
    cs_r: float | None = None
    method: str = ""
    question: str | None = None
    regeneration: Regeneration | None = None

    @classmethod
    def from_run(cls, run_input: Json, output: Json) -> ScoreView:
        """A stored score run (the ScoreResult JSON)."""
        return cls(run_input.get("response", ""), _documents(run_input.get("documents")),
                   tuple(ScoredClaim.from_json(c) for c in output.get("claims") or ()),
                   output.get("cs_c"), output.get("cs_r"), output.get("method") or "")  # fmt: skip

    @classmethod
    def from_regeneration(cls, run_input: Json, output: Json) -> ScoreView:
        """A stored regenerate run: the revised response and its scores, or the original when
        nothing was regenerated."""
        before, after = output.get("before") or {}, output.get("after")
        regenerated = bool(output.get("regenerated")) and bool(after)
        original = run_input.get("response", "")
        shown = cls.from_run(run_input, after if regenerated else before)
        response = (output.get("revised_response") or "") if regenerated else original
        regeneration = Regeneration(regenerated, original, before.get("cs_c"),
                                    before.get("cs_r"), output.get("selected_claim"))  # fmt: skip
        return replace(shown, response=response, method=output.get("method") or "",
                       question=run_input.get("question"), regeneration=regeneration)  # fmt: skip


def _documents(raw: Any) -> tuple[Document, ...]:
    return tuple(Document.from_json(d) for d in raw or ())


@dataclass(frozen=True)
class IngestSummary:
    """An import's counts (files already imported stay when it was cancelled or failed)."""

    collection: str
    added: int = 0
    skipped: int = 0
    failed: int = 0
    passages: int = 0
    cancelled: bool = False
    error: str | None = None


View = AskView | ScoreView


@dataclass(frozen=True)
class OpenedRun:
    """A stored run reopened: its History row and what its screen shows (None for kinds
    that have no screen, e.g. detect)."""

    summary: RunSummary
    view: View | None

    @classmethod
    def of(cls, summary: RunSummary, kind: str, run_input: Any, output: Any) -> OpenedRun:
        readers = {"ask": AskView.from_run, "score": ScoreView.from_run,
                   "regenerate": ScoreView.from_regeneration}  # fmt: skip
        reader = readers.get(kind)
        if reader is None or not isinstance(run_input, dict) or not isinstance(output, dict):
            return cls(summary, None)
        return cls(summary, reader(run_input, output))
