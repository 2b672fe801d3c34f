"""A deterministic in-memory Desk for the TUI tests: canned results, recorded calls,
optional gates (to hold a job mid-way) and injected failures. Every result is built from the
types the real engine hands out (`conflictdesk.app` views over the engine's own types)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from conflictdesk.analysis.types import (
    ClaimFrame,
    Cluster,
    ConflictPair,
    ConflictScore,
    ConflictVerdict,
    Packet,
    PairDetection,
    PassageTag,
    QueryForm,
    Resolution,
    Stance,
    Tagging,
)
from conflictdesk.app import (
    AskView,
    CollectionInfo,
    DocumentInfo,
    IngestSummary,
    ModelRow,
    ModelsReport,
    OpenedRun,
    Regeneration,
    RunSummary,
    ScoredClaim,
    ScoreView,
    StageRow,
)
from conflictdesk.app.bench import BenchStatus, Score
from conflictdesk.generation.types import Answer, AnswerSentence, EvidenceTable
from conflictdesk.stages import ANSWER, RETRIEVE, SHOWN_AS
from conflictdesk.tui.desk import ASK_STAGES, Cancelled
from conflictdesk.types import ConflictType, Document, PairType, Passage, Relation, Tag

QUESTION = "How much vitamin D should adults take?"

PASSAGES = (
    Passage(11, "Adults should take 1500 to 2000 IU of vitamin D daily to keep levels above "
            "30 ng/mL.", 1, "Endocrine Society 2011", "2011-06-01", relevance=0.91),
    Passage(12, "Higher intakes up to 4000 IU are safe for most adults.", 1,
            "Endocrine Society 2011", "2011-06-01", relevance=0.55),
    Passage(21, "An intake of 600 IU per day covers the needs of 97.5 percent of adults.", 2,
            "IOM report 2010", "2010-11-30", relevance=0.88),
    Passage(22, "Levels of 20 ng/mL are sufficient for bone health.", 2, "IOM report 2010",
            "2010-11-30", relevance=0.61),
    Passage(31, "Ten minutes of midday sun is pleasant in winter.", 3, "Sunlight blog",
            "2019-02-14", relevance=0.20),
)  # fmt: skip

DOCUMENTS = {
    1: DocumentInfo(1, "vitamin-d", "Endocrine Society 2011", "docs/endo.txt",
                    date="2011-06-01", passages=2),
    2: DocumentInfo(2, "vitamin-d", "IOM report 2010", "docs/iom.txt", date="2010-11-30",
                    passages=2),
    3: DocumentInfo(3, "vitamin-d", "Sunlight blog", "docs/sun.md", date="2019-02-14",
                    passages=1),
}  # fmt: skip


def _tag(pid: int, tag: Tag, conf: float, key: str) -> PassageTag:
    entailment = conf if tag is Tag.SUPPORT else 0.05
    contradiction = conf if tag is Tag.REFUTE else 0.05
    return PassageTag(pid, tag, conf, entailment, 0.1, contradiction, key_sentence=key)


TAGGING = Tagging(
    ClaimFrame(QUESTION, QueryForm.WH, "Adults need 1500 IU of vitamin D daily."),
    (
        _tag(11, Tag.SUPPORT, 0.93, "Adults should take 1500 to 2000 IU daily."),
        _tag(12, Tag.SUPPORT, 0.71, "Higher intakes up to 4000 IU are safe."),
        _tag(21, Tag.REFUTE, 0.88, "An intake of 600 IU per day covers the needs."),
        _tag(22, Tag.REFUTE, 0.64, "Levels of 20 ng/mL are sufficient."),
        _tag(31, Tag.IRRELEVANT, 0.90, "Ten minutes of midday sun is pleasant."),
    ),
    "nli:fake-nli",
)
CLUSTERS = (
    Cluster(0, (11, 12), Tag.SUPPORT, 0.95),
    Cluster(1, (21, 22), Tag.REFUTE, 0.90),
    Cluster(2, (31,), Tag.IRRELEVANT, 1.0),
)
SCORE = ConflictScore(0.74, 0.8, 1.64, 1.52, 0.9, 1.64, 1.52, 0.06, Stance.DISPUTED)
PACKET = Packet((11, 21, 12, 22), "balanced", 0.74, {"support": 2, "refute": 2, "irrelevant": 0})
DETECTION = PairDetection(
    (
        ConflictPair(11, 21, 0.91, True, PairType.FACTUAL, "mlp", None, None),
        ConflictPair(12, 22, 0.34, False, PairType.NONE, "nli", None, None),
    ),
    0.8,
    "mlp:fake-pair+nli:fake-nli",
)
VERDICT = ConflictVerdict(
    ConflictType.CONFLICTING_OPINIONS, "Two expert bodies recommend different daily doses.", "rules"
)
RESOLUTION = Resolution("viewpoints", (11, 21, 12, 22),
                        "Both positions are presented with their sources.")  # fmt: skip
ANSWER_SENTENCES = (
    AnswerSentence("The Endocrine Society advises 1500 to 2000 IU daily.", (11, 12)),
    AnswerSentence("The IOM finds 600 IU enough for most adults.", (21,)),
)
ANSWER_RESULT = Answer(QUESTION, Stance.DISPUTED, EvidenceTable(), ANSWER_SENTENCES,
                       "Expert bodies disagree on the daily dose.",
                       {"generation": "extractive:viewpoints"})  # fmt: skip


def full_ask(query: str) -> AskView:
    return AskView(query, "vitamin-d", PASSAGES, TAGGING, CLUSTERS, SCORE, PACKET, DETECTION,
                   VERDICT, RESOLUTION, replace(ANSWER_RESULT, query=query),
                   AskView.start(query).reworded)  # fmt: skip


def stage_view(view: AskView, stage: str, full: AskView) -> AskView:
    """`view` with the parts of the shown `stage` taken from `full` (stages.SHOWN_AS)."""
    parts = {part for _, (shown, part) in SHOWN_AS.items() if shown == stage}
    parts |= {RETRIEVE: {"passages"}, ANSWER: {"answer"}}.get(stage, set())
    return replace(view, **{part: getattr(full, part) for part in parts})


DOCS = (Document("...", title="Endocrine Society 2011"), Document("...", title="IOM report 2010"),
        Document("...", title="Sunlight blog"))  # fmt: skip
S, C, I = Relation.SUPPORTS, Relation.CONTRADICTS, Relation.IRRELEVANT
SCORE_RESULT = ScoreView(
    "Take 600 IU daily. Sunlight alone is never enough. Doses above 4000 IU harm.",
    DOCS,
    (
        ScoredClaim("Take 600 IU daily.", (C, S, I), (0.81, 0.9, 0.7), True),
        ScoredClaim("Sunlight alone is never enough.", (I, I, I), (0.6, 0.7, 0.55), False),
        ScoredClaim("Doses above 4000 IU harm.", (S, I, I), (0.66, 0.8, 0.9), False),
    ),
    0.333,
    0.5,
    "variant=full; claims=sentences; labels=nli:fake-nli",
)

BENCH_RUNS = (
    BenchStatus(2, "ragability", "examples/ragability.tsv", ("ask:no-llm", "gguf:smollm2"),
                "offline:nli", "2026-11-24T01:00:00+00:00", None, 40, 23, 22),
    BenchStatus(1, "conflicts", "typed_dev/cases.jsonl", ("ask:no-llm",), "rule-check",
                "2026-11-23T22:00:00+00:00", "2026-11-23T22:01:00+00:00", 150, 150, 150),
)  # fmt: skip
BENCH_SCORES = {
    2: [Score("correct_answer_all", "ask:no-llm", "", 15, 20),
        Score("correct_answer_all", "gguf:smollm2", "", 1, 2)],
    1: [Score("expected_behaviour", "ask:no-llm", "", 90, 150),
        Score("answer_recall", "ask:no-llm", "", 70, 120),
        Score("type_accuracy", "ask:no-llm", "", 80, 150)],
}  # fmt: skip

HISTORY = [
    RunSummary(2, "score", "2026-11-20 09:14", "Take 600 IU daily…"),
    RunSummary(1, "ask", "2026-11-20 09:02", QUESTION),
]


class FakeDesk:
    """Implements conflictdesk.tui.desk.Desk from the canned data above.

    `gate` (an Event) makes ask/ingest wait after their first step until it is set;
    `fail` maps a method name to the exception it raises."""

    def __init__(self, *, collections: bool = True, llm: bool = True) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.gate: threading.Event | None = None
        self.fail: dict[str, BaseException] = {}
        self.llm = llm
        self._collections = (
            [CollectionInfo("vitamin-d", 3, 5), CollectionInfo("empty", 0, 0)]
            if collections else []
        )  # fmt: skip
        self.runs: dict[int, OpenedRun] = {
            1: OpenedRun(HISTORY[1], full_ask(QUESTION)),
            2: OpenedRun(HISTORY[0], SCORE_RESULT),
        }
        self.bench: list[BenchStatus] = list(BENCH_RUNS)

    def _check(self, name: str) -> None:
        if name in self.fail:
            raise self.fail[name]

    def _wait(self, cancel: threading.Event) -> None:
        """Hold until `gate` is set or the job is cancelled."""
        if self.gate is not None:
            while not self.gate.wait(0.01) and not cancel.is_set():
                pass

    def collections(self) -> list[CollectionInfo]:
        self.calls.append(("collections", None))
        self._check("collections")
        return list(self._collections)

    def ingest(self, paths: Sequence[str], collection: str, on_progress,
               cancel) -> IngestSummary:  # fmt: skip
        self.calls.append(("ingest", (list(paths), collection)))
        self._check("ingest")
        files = sorted(str(p) for root in paths for p in _expand(Path(root)))
        added = failed = 0
        for done, path in enumerate(files, start=1):
            if cancel.is_set():
                return IngestSummary(collection, added, 0, failed, cancelled=True)
            error = "unsupported file type .bin" if path.endswith(".bin") else None
            added, failed = added + (error is None), failed + (error is not None)
            on_progress(done, len(files), path, error)
            if done == 1:
                self._wait(cancel)
        return IngestSummary(collection, added, 0, failed)

    def documents(self, collection: str) -> list[DocumentInfo]:
        self.calls.append(("documents", collection))
        return list(DOCUMENTS.values()) if collection == "vitamin-d" else []

    def passages(self, document_id: int) -> list[Passage]:
        self.calls.append(("passages", document_id))
        return [p for p in PASSAGES if p.document_id == document_id]

    def ask(self, query: str, collection: str, on_event, cancel) -> tuple[int | None, AskView]:
        self.calls.append(("ask", (query, collection)))
        self._check("ask")
        full, view = full_ask(query), AskView.start(query, collection)
        for n, stage in enumerate(ASK_STAGES):
            if cancel.is_set():
                raise Cancelled()
            view = stage_view(view, stage, full)
            on_event(stage, view)
            if n == 1:
                self._wait(cancel)
                if cancel.is_set():
                    raise Cancelled()
        run_id = max(self.runs) + 1
        self.runs[run_id] = OpenedRun(RunSummary(run_id, "ask", "2026-11-21 10:00", query), full)
        return run_id, full

    def score(self, response: str, documents: Sequence[Document],
              cancel) -> tuple[int | None, ScoreView]:  # fmt: skip
        self.calls.append(("score", (response, list(documents))))
        self._check("score")
        return 3, replace(SCORE_RESULT, response=response)

    def can_regenerate(self) -> bool:
        return self.llm

    def regenerate(self, question: str, response: str, documents: Sequence[Document],
                   cancel) -> tuple[int | None, ScoreView]:  # fmt: skip
        self.calls.append(("regenerate", (question, response)))
        self._check("regenerate")
        revised = "Take 600 to 2000 IU daily, depending on the guideline."
        claim = ScoredClaim(revised, (S, S, I), (0.8, 0.8, 0.9), False)
        return 4, replace(SCORE_RESULT, response=revised, claims=(claim,), cs_c=0.0, cs_r=0.0,
                          question=question,
                          regeneration=Regeneration(True, response, 0.333, 0.5))  # fmt: skip

    def history(self, limit: int = 100) -> list[RunSummary]:
        self.calls.append(("history", limit))
        rows = sorted(self.runs.values(), key=lambda r: -r.summary.id)
        return [row.summary for row in rows[:limit]]

    def run(self, run_id: int) -> OpenedRun:
        self.calls.append(("run", run_id))
        return self.runs[run_id]

    def models(self, verify: bool = False) -> ModelsReport:
        self.calls.append(("models", verify))
        self._check("models")
        status = "verified" if verify else "present"
        rows = (ModelRow("minilm-l6-embedder-int8", "embedder", "models/embedder", status,
                         "models/embedder"),
                ModelRow("conflictdesk-nli-minilm-int8", "nli", "models/nli", status,
                         "models/nli"),
                ModelRow("conflictdesk-pair-mlp-int8", "pair", "models/pair", "missing",
                         "run scripts/train_pair.py"))  # fmt: skip
        stages = (StageRow("retrieval", "bm25 + minilm-l6-embedder-int8", False),
                  StageRow("tagging", "nli:conflictdesk-nli-minilm-int8", False),
                  StageRow("type", "llm:qwen" if self.llm else "rules", self.llm))  # fmt: skip
        report = ModelsReport(manifest="models/manifest.json", device="cpu",
                              llm="/models/qwen.gguf" if self.llm else None, llm_ready=self.llm,
                              models=rows, stages=stages)  # fmt: skip
        return report

    # bench: `bench` holds the stored runs (newest first); a test may replace one with more
    # checks to stand for a run going on in another process
    def bench_runs(self) -> list[BenchStatus]:
        self.calls.append(("bench_runs", None))
        self._check("bench_runs")
        return list(self.bench)

    def bench_scores(self, run_id: int) -> list[Score]:
        self.calls.append(("bench_scores", run_id))
        return list(BENCH_SCORES.get(run_id, []))


def _expand(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
