"""What crosses the application layer, typed: requests the front ends build and the records
the Desk hands out and the store keeps. Every type names its JSON form the same way:
`to_json()` and `from_json(value)`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from conflictdesk.analysis.pipeline import AnalysisCancelled
from conflictdesk.analysis.types import Analysis
from conflictdesk.generation.types import Answer
from conflictdesk.types import ConflictType, Passage

Json = dict[str, Any]


class Cancelled(AnalysisCancelled):
    """The caller's cancel flag was set; nothing of the cancelled job is stored, work
    committed before it (files already ingested) is kept."""


def _known(cls: type, value: Json) -> Json:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in value.items() if k in names}


ASK_TIERS = ("fast", "cascade")  # NLI of ask's analysis: the MiniLM alone, or the cascade


@dataclass(frozen=True)
class AskRequest:
    """One question: retrieved from `collection` (top `k`), or answered from inline `documents`
    (whose ids are their indices). `id` is echoed by batch output; `use_cache` and `echo_id`
    are not stored."""

    query: str
    collection: str | None = None
    documents: tuple[Passage, ...] | None = None
    k: int = 20
    strategy: str | None = None
    gold_type: ConflictType | None = None
    check_parametric: bool = True
    ranker: str = "rules"  # who picks the leading answer: "rules" or "model" (opt-in)
    reader: str = "rules"  # who reads each passage's answer span: "rules" or "model" (opt-in)
    # the conflict call: "pairs" (the type classifier's, or a pair flagged conflicting), "type"
    # (the type classifier's alone) or "model" (the verdict model's)
    verdict: str = "pairs"
    # NLI of the analysis: "fast" (the MiniLM; statements of yes/no and declarative questions
    # still go to the labelling cascade) or "cascade" (everywhere, opt-in)
    tiers: str = "fast"
    id: Any = None
    use_cache: bool = True  # read and write stored judgments (benchmarks turn it off)
    echo_id: bool = True  # the record echoes `id` (a batch's, null too); else it gets the run id

    def to_json(self) -> Json:
        """The run input the store keeps (the shape `ask` has always stored)."""
        source: Json = (
            {"documents": [_document_json(p) for p in self.documents]}
            if self.documents is not None
            else {"collection": self.collection, "k": self.k}
        )
        gold = self.gold_type.value if self.gold_type else None
        opt_in = {k: v for k, v in (("ranker", self.ranker), ("reader", self.reader),
                                    ("verdict", self.verdict),
                                    ("tiers", self.tiers))
                  if v != getattr(AskRequest, k)}  # fmt: skip
        return {"id": self.id, "query": self.query, **source, "strategy": self.strategy,
                "gold_type": gold, **opt_in}  # fmt: skip

    @classmethod
    def from_json(cls, value: Json) -> AskRequest:
        documents = value.get("documents")
        inline = None
        if documents is not None:
            inline = tuple(
                Passage(id=i, text=d["text"], document_id=i, title=d.get("title"),
                        date=d.get("date"), source=d.get("source"), url=d.get("url"))
                for i, d in enumerate(documents)
            )  # fmt: skip
        gold = value.get("gold_type")
        return cls(query=value["query"], collection=value.get("collection"), documents=inline,
                   k=int(value.get("k") or 20), strategy=value.get("strategy"),
                   gold_type=ConflictType(gold) if gold else None, id=value.get("id"),
                   ranker=value.get("ranker") or "rules",
                   reader=value.get("reader") or "rules",
                   verdict=value.get("verdict") or "pairs",
                   tiers=value.get("tiers") or "fast")  # fmt: skip


def _document_json(p: Passage) -> Json:
    pairs = (("text", p.text), ("title", p.title), ("date", p.date), ("source", p.source),
             ("url", p.url))  # fmt: skip
    return {k: v for k, v in pairs if v is not None}


@dataclass(frozen=True)
class AskOutcome:
    """A finished ask: its analysis, answer, the batch record and the stored run's id."""

    request: AskRequest
    analysis: Analysis
    answer: Answer
    record: Json
    run_id: int

    def render(self) -> str:
        """The readable report `conflictdesk ask` prints."""
        from conflictdesk.generation.report import render_report

        return render_report(self.analysis, self.answer) + f"\n(saved as run {self.run_id})"

    def output_json(self) -> Json:
        """The run output the store keeps."""
        return {"record": self.record, "analysis": self.analysis.to_json(),
                "answer": self.answer.to_json()}  # fmt: skip


@dataclass(frozen=True)
class CollectionInfo:
    """A stored collection and its counts."""

    name: str
    documents: int
    passages: int
    created: str | None = None

    def to_json(self) -> Json:
        return asdict(self)

    @classmethod
    def from_json(cls, value: Json) -> CollectionInfo:
        return cls(**_known(cls, value))


@dataclass(frozen=True)
class DocumentInfo:
    """A stored document (its passages are counted, not carried)."""

    id: int
    collection: str
    title: str | None = None
    source: str | None = None
    url: str | None = None
    date: str | None = None
    sha256: str = ""
    metadata: Json = field(default_factory=dict)
    added: str | None = None
    passages: int = 0

    @property
    def label(self) -> str:
        """What a list shows: the title, else the source, else the id."""
        return self.title or self.source or f"document {self.id}"

    def to_json(self) -> Json:
        return asdict(self)

    @classmethod
    def from_json(cls, value: Json) -> DocumentInfo:
        return cls(**_known(cls, value))


@dataclass(frozen=True)
class RunRecord:
    """A stored run (`kind` is ask, score, detect or regenerate) as the store keeps it."""

    id: int
    kind: str
    created: str
    input: Any
    output: Any
    method: Any = None

    def to_json(self) -> Json:
        return asdict(self)

    @classmethod
    def from_json(cls, value: Json) -> RunRecord:
        return cls(**_known(cls, {**value, "created": str(value.get("created", ""))}))

    def summary(self) -> RunSummary:
        data = self.input if isinstance(self.input, dict) else {}
        text = data.get("query") or data.get("question") or data.get("response") or ""
        text = " ".join(str(text).split())
        short = text if len(text) <= 80 else text[:79] + "…"
        return RunSummary(self.id, self.kind, self.created[:16], short)


@dataclass(frozen=True)
class RunSummary:
    """A History row: what the run was about, in one line."""

    id: int
    kind: str
    created: str
    summary: str

    def to_json(self) -> Json:
        return asdict(self)

    @classmethod
    def from_json(cls, value: Json) -> RunSummary:
        return cls(**_known(cls, value))


@dataclass(frozen=True)
class ModelRow:
    """One manifest entry (or the configured GGUF) and its state: status is "verified",
    "present", "missing", "mismatch" or "server" (an OpenAI-compatible server: no files)."""

    name: str
    role: str
    path: str
    status: str
    detail: str
    files: int = 0
    licence: str = ""
    source: str = ""
    rebuild: str = ""
    sha256: dict[str, str] = field(default_factory=dict)  # file → digest, from the manifest
    model_id: str = ""  # name@version, what judgment caches are keyed by

    @property
    def present(self) -> bool:
        return self.status in ("present", "verified", "server")

    def to_json(self) -> Json:
        return {**asdict(self), "present": self.present}

    @classmethod
    def from_json(cls, value: Json) -> ModelRow:
        return cls(**_known(cls, value))


@dataclass(frozen=True)
class StageRow:
    """The method one stage runs with what is configured; `llm` when it uses the GGUF."""

    stage: str
    method: str
    llm: bool

    def to_json(self) -> Json:
        return asdict(self)

    @classmethod
    def from_json(cls, value: Json) -> StageRow:
        return cls(**_known(cls, value))


@dataclass(frozen=True)
class ModelsReport:
    """The one models report, for `conflictdesk models` and the TUI's Models screen."""

    manifest: str
    device: str
    llm: str | None
    llm_ready: bool
    models: tuple[ModelRow, ...]
    stages: tuple[StageRow, ...]
    notes: tuple[str, ...] = ()
    capabilities: Json = field(default_factory=dict)

    def to_json(self) -> Json:
        return {"manifest": self.manifest, "device": self.device, "llm": self.llm,
                "llm_ready": self.llm_ready, "notes": list(self.notes),
                "models": [m.to_json() for m in self.models],
                "stages": [s.to_json() for s in self.stages],
                "capabilities": self.capabilities}  # fmt: skip

    @classmethod
    def from_json(cls, value: Json) -> ModelsReport:
        return cls(
            manifest=value.get("manifest", ""), device=value["device"], llm=value.get("llm"),
            llm_ready=bool(value.get("llm_ready")), notes=tuple(value.get("notes") or ()),
            models=tuple(ModelRow.from_json(m) for m in value.get("models") or ()),
            stages=tuple(StageRow.from_json(s) for s in value.get("stages") or ()),
            capabilities=dict(value.get("capabilities") or {}),
        )  # fmt: skip
