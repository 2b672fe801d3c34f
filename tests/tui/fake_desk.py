"""A deterministic in-memory Desk for the TUI tests: canned results, recorded calls,
optional gates (to hold a job mid-way) and injected failures. History rows and the models
report are built from the application layer's wire types, as the real engine builds them."""

from __future__ import annotations

import copy
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conflictdesk.app import (
    CollectionInfo,
    DocumentInfo,
    ModelRow,
    ModelsReport,
    RunSummary,
    StageRow,
)
from conflictdesk.app.bench import BenchStatus, Score
from conflictdesk.tui.desk import ASK_STAGES, Cancelled

PASSAGES = [
    {
        "id": 11,
        "document_id": 1,
        "title": "Endocrine Society 2011",
        "date": "2011-06-01",
        "text": "Adults should take 1500 to 2000 IU of vitamin D daily to keep levels above "
        "30 ng/mL.",
        "relevance": 0.91,
    },
    {
        "id": 12,
        "document_id": 1,
        "title": "Endocrine Society 2011",
        "date": "2011-06-01",
        "text": "Higher intakes up to 4000 IU are safe for most adults.",
        "relevance": 0.55,
    },
    {
        "id": 21,
        "document_id": 2,
        "title": "IOM report 2010",
        "date": "2010-11-30",
        "text": "An intake of 600 IU per day covers the needs of 97.5 percent of adults.",
        "relevance": 0.88,
    },
    {
        "id": 22,
        "document_id": 2,
        "title": "IOM report 2010",
        "date": "2010-11-30",
        "text": "Levels of 20 ng/mL are sufficient for bone health.",
        "relevance": 0.61,
    },
    {
        "id": 31,
        "document_id": 3,
        "title": "Sunlight blog",
        "date": "2019-02-14",
        "text": "Ten minutes of midday sun is pleasant in winter.",
        "relevance": 0.20,
    },
]

DOCUMENTS = {
    1: DocumentInfo(
        1, "vitamin-d", "Endocrine Society 2011", "docs/endo.txt", date="2011-06-01", passages=2
    ),
    2: DocumentInfo(
        2, "vitamin-d", "IOM report 2010", "docs/iom.txt", date="2010-11-30", passages=2
    ),
    3: DocumentInfo(3, "vitamin-d", "Sunlight blog", "docs/sun.md", date="2019-02-14", passages=1),
}


def _tag(pid: int, tag: str, conf: float, key: str) -> dict[str, Any]:
    return {
        "passage_id": pid,
        "tag": tag,
        "confidence": conf,
        "key_sentence": key,
        "scores": {
            "entailment": conf if tag == "support" else 0.05,
            "neutral": 0.1,
            "contradiction": conf if tag == "refute" else 0.05,
        },
    }


ASK_PARTIALS: dict[str, dict[str, Any]] = {
    "retrieval": {"passages": PASSAGES},
    "tagging": {
        "tagging": {
            "frame": {"hypothesis": "Adults need 1500 IU of vitamin D daily.", "form": "wh"},
            "method": "nli:fake-nli",
            "tags": [
                _tag(11, "support", 0.93, "Adults should take 1500 to 2000 IU daily."),
                _tag(12, "support", 0.71, "Higher intakes up to 4000 IU are safe."),
                _tag(21, "refute", 0.88, "An intake of 600 IU per day covers the needs."),
                _tag(22, "refute", 0.64, "Levels of 20 ng/mL are sufficient."),
                _tag(31, "irrelevant", 0.90, "Ten minutes of midday sun is pleasant."),
            ],
        }
    },
    "clusters": {
        "clusters": [
            {"id": 0, "members": [11, 12], "dominant_tag": "support", "confidence": 0.95},
            {"id": 1, "members": [21, 22], "dominant_tag": "refute", "confidence": 0.90},
            {"id": 2, "members": [31], "dominant_tag": "irrelevant", "confidence": 1.0},
        ]
    },
    "kappa": {
        "score": {
            "kappa": 0.74,
            "cluster_kappa": 0.8,
            "stance": "disputed",
            "u_support": 1.64,
            "u_refute": 1.52,
            "margin": 0.06,
            "delta": 0.1,
        },
        "packet": {"passage_ids": [11, 21, 12, 22], "mode": "balanced", "tau": 0.5, "kappa": 0.74},
    },
    "pairs": {
        "detection": {
            "tau_c": 0.8,
            "method": "mlp:fake-pair+nli:fake-nli",
            "pairs": [
                {
                    "i": 11,
                    "j": 21,
                    "conflict_prob": 0.91,
                    "conflict": True,
                    "type": "factual",
                    "stage": "mlp",
                },
                {
                    "i": 12,
                    "j": 22,
                    "conflict_prob": 0.34,
                    "conflict": False,
                    "type": "none",
                    "stage": "nli",
                },
            ],
        }
    },
    "type": {
        "verdict": {
            "type": "conflicting_opinions",
            "method": "rules",
            "rationale": "Two expert bodies recommend different daily doses.",
        },
        "resolution": {
            "rule": "viewpoints",
            "ranking": [11, 21, 12, 22],
            "rationale": "Both positions are presented with their sources.",
        },
    },
    "answer": {
        "answer": {
            "stance": "disputed",
            "sentences": [
                {"sent": "The Endocrine Society advises 1500 to 2000 IU daily.", "cites": [11, 12]},
                {"sent": "The IOM finds 600 IU enough for most adults.", "cites": [21]},
            ],
            "conflict": "Expert bodies disagree on the daily dose.",
            "method": {"generation": "extractive:viewpoints"},
        }
    },
}

SCORE_RESULT: dict[str, Any] = {
    "response": "Take 600 IU daily. Sunlight alone is never enough. Doses above 4000 IU harm.",
    "documents": [
        {"title": "Endocrine Society 2011", "text": "..."},
        {"title": "IOM report 2010", "text": "..."},
        {"title": "Sunlight blog", "text": "..."},
    ],
    "claims": [
        {
            "text": "Take 600 IU daily.",
            "relations": ["CONTRADICTS", "SUPPORTS", "IRRELEVANT"],
            "confidences": [0.81, 0.9, 0.7],
            "conflict": True,
        },
        {
            "text": "Sunlight alone is never enough.",
            "relations": ["IRRELEVANT", "IRRELEVANT", "IRRELEVANT"],
            "confidences": [0.6, 0.7, 0.55],
            "conflict": False,
        },
        {
            "text": "Doses above 4000 IU harm.",
            "relations": ["SUPPORTS", "IRRELEVANT", "IRRELEVANT"],
            "confidences": [0.66, 0.8, 0.9],
            "conflict": False,
        },
    ],
    "cs_c": 0.333,
    "cs_r": 0.5,
    "method": "variant=full; claims=sentences; labels=nli:fake-nli",
}

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
    RunSummary(1, "ask", "2026-11-20 09:02", "How much vitamin D should adults take?"),
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
            if collections
            else []
        )
        self.runs: dict[int, dict[str, Any]] = {
            1: {
                **HISTORY[1].to_json(),
                "result": self._full_ask("How much vitamin D should adults take?"),
            },
            2: {**HISTORY[0].to_json(), "result": copy.deepcopy(SCORE_RESULT)},
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

    def ingest(self, paths: Sequence[str], collection: str, on_progress, cancel) -> dict:
        self.calls.append(("ingest", (list(paths), collection)))
        self._check("ingest")
        files = sorted(str(p) for root in paths for p in _expand(Path(root)))
        added = failed = 0
        for done, path in enumerate(files, start=1):
            if cancel.is_set():
                return {"added": added, "skipped": 0, "failed": failed, "cancelled": True}
            error = "unsupported file type .bin" if path.endswith(".bin") else None
            added, failed = added + (error is None), failed + (error is not None)
            on_progress(done, len(files), path, error)
            if done == 1:
                self._wait(cancel)
        return {"added": added, "skipped": 0, "failed": failed, "cancelled": False}

    def documents(self, collection: str) -> list[DocumentInfo]:
        self.calls.append(("documents", collection))
        return list(DOCUMENTS.values()) if collection == "vitamin-d" else []

    def passages(self, document_id: int) -> list[dict[str, Any]]:
        self.calls.append(("passages", document_id))
        rows = [p for p in PASSAGES if p["document_id"] == document_id]
        return [{**p, "ord": n} for n, p in enumerate(rows)]

    def _full_ask(self, query: str) -> dict[str, Any]:
        result: dict[str, Any] = {"query": query, "collection": "vitamin-d"}
        for stage in ASK_STAGES:
            result.update(copy.deepcopy(ASK_PARTIALS[stage]))
        result["timings"] = {stage: 10.0 for stage in ASK_STAGES}
        return result

    def ask(self, query: str, collection: str, on_event, cancel) -> tuple[int | None, dict]:
        self.calls.append(("ask", (query, collection)))
        self._check("ask")
        for n, stage in enumerate(ASK_STAGES):
            if cancel.is_set():
                raise Cancelled()
            on_event(stage, copy.deepcopy(ASK_PARTIALS[stage]))
            if n == 1:
                self._wait(cancel)
                if cancel.is_set():
                    raise Cancelled()
        run_id = max(self.runs) + 1
        result = self._full_ask(query)
        summary = RunSummary(run_id, "ask", "2026-11-21 10:00", query)
        self.runs[run_id] = {**summary.to_json(), "result": result}
        return run_id, copy.deepcopy(result)

    def score(self, response: str, documents, cancel) -> tuple[int | None, dict]:
        self.calls.append(("score", (response, list(documents))))
        self._check("score")
        result = {**copy.deepcopy(SCORE_RESULT), "response": response}
        return 3, result

    def can_regenerate(self) -> bool:
        return self.llm

    def regenerate(
        self, question: str, response: str, documents, cancel
    ) -> tuple[int | None, dict]:
        self.calls.append(("regenerate", (question, response)))
        self._check("regenerate")
        result = copy.deepcopy(SCORE_RESULT)
        result["response"] = "Take 600 to 2000 IU daily, depending on the guideline."
        result["claims"] = [
            {
                "text": result["response"],
                "relations": ["SUPPORTS", "SUPPORTS", "IRRELEVANT"],
                "confidences": [0.8, 0.8, 0.9],
                "conflict": False,
            }
        ]
        result.update(
            cs_c=0.0,
            cs_r=0.0,
            regenerated_from=response,
            question=question,
            before={"cs_c": 0.333, "cs_r": 0.5},
        )
        return 4, result

    def history(self, limit: int = 100) -> list[RunSummary]:
        self.calls.append(("history", limit))
        rows = sorted(self.runs.values(), key=lambda r: -r["id"])
        return [RunSummary.from_json(row) for row in rows[:limit]]

    def run(self, run_id: int) -> dict[str, Any]:
        self.calls.append(("run", run_id))
        return copy.deepcopy(self.runs[run_id])

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
