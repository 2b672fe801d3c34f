"""The papers' other evaluations through the bench runner, on a Desk: the CONFLICTS
expected-behaviour evaluation and ConflictScore §6 on TruthfulQA. Each is a `Suite` (cases,
testees, a check function) that `run_suite` runs, stores and reports like a Ragability run:
resumable, every response and check kept, listed by `bench list`."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conflictdesk.app.bench import BenchResult, load_generator, run_key, write_reports
from conflictdesk.app.desk import ALL_ROLES, Desk
from conflictdesk.app.scoring import ScoringOptions
from conflictdesk.app.wire import AskRequest
from conflictdesk.backends.base import Generator
from conflictdesk.bench import conflicts, truthfulqa
from conflictdesk.bench.metrics import mcnemar_all
from conflictdesk.bench.report import ReportData, suite_tsv
from conflictdesk.bench.runner import CheckFunction, OnStep, run_bench
from conflictdesk.bench.testees import Reply, Testee, parse_testee_spec
from conflictdesk.errors import CapabilityError, UsageError
from conflictdesk.store.bench import BenchStore

TYPED_DEV = Path("typed_dev") / "cases.jsonl"
TRUTHFULQA = Path("truthfulqa") / "TruthfulQA.csv"


@dataclass(frozen=True)
class Suite:
    """One evaluation ready to run: what the runner, the store and the report need."""

    name: str
    source: Path
    cases: Sequence[Any]
    testees: Sequence[Testee]
    judge: str
    check_with: CheckFunction
    metrics: tuple[str, ...]
    breakdown: tuple[str, ...]
    notes: tuple[str, ...] = ()
    config: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Judge:
    """The runner keys checks by a checker's name; a suite's check function does the work."""

    name: str


def run_suite(
    desk: Desk,
    suite: Suite,
    out: Path | None = None,
    on_step: OnStep | None = None,
    on_total: Callable[[int], None] | None = None,
) -> BenchResult:
    """Run (or resume) a suite and write report.md, report.html and responses.tsv."""
    names = [t.name for t in suite.testees]
    digest = hashlib.sha256(suite.source.read_bytes() + suite.name.encode()).hexdigest()
    key = run_key(digest, [c.case_id for c in suite.cases], names)
    config = {"suite": suite.name, "testees": names, "checker": suite.judge,
              "cases": len(suite.cases), **suite.config}  # fmt: skip
    recorder = BenchStore.open_run(desk.store, key, str(suite.source), config)
    for testee in suite.testees:
        if hasattr(testee, "stored"):
            testee.stored = recorder.reply  # reuse the run's own earlier answers
    before = recorder.counts()
    if on_total is not None:
        on_total(len(suite.cases) * len(suite.testees))
    outcomes = run_bench(suite.cases, suite.testees, _Judge(suite.judge), recorder,  # type: ignore[arg-type]
                         on_step=on_step, check_with=suite.check_with)  # fmt: skip
    recorder.finish()
    after = recorder.counts()
    title = f"{suite.name} run {recorder.run_id} on {suite.source}"
    data = ReportData(title, suite.judge, outcomes, mcnemar_all(outcomes, suite.metrics[0]),
                      "", suite.metrics, suite.breakdown, suite.metrics[0], suite.notes)  # fmt: skip
    folder = out or Path("bench-reports") / f"run-{recorder.run_id}"
    files = write_reports(folder, data, None)
    rows = [(t.name, c.case_id, c.tags, recorder.reply(t.name, c.case_id),
             recorder.check(t.name, c.case_id, suite.judge))
            for t in suite.testees for c in suite.cases]  # fmt: skip
    (folder / "responses.tsv").write_text(suite_tsv(rows), "utf-8")  # type: ignore[arg-type]
    files["tsv"] = str(folder / "responses.tsv")
    return BenchResult(recorder.run_id, after[0] - before[0], after[1] - before[1], before[0],
                       data, files)  # fmt: skip


def _llm(llm: Generator | None) -> Generator:
    if llm is None:
        raise CapabilityError("this evaluation needs a GGUF: pass --llm PATH")
    return llm


def data_file(desk: Desk, given: Path | None, default: Path) -> Path:
    """`given`, else `default` under the settings' data folder (CONFLICTDESK_DATA)."""
    if given is not None:
        return given
    if desk.settings.data_dir is None:
        raise UsageError(f"name the file, or set CONFLICTDESK_DATA to a folder holding {default}")
    return desk.settings.data_dir / default


# -- CONFLICTS ---------------------------------------------------------------------------------


class AskConflictsTestee:
    """The ask pipeline (through `Desk.ask`, no history run saved) on a case's documents; it
    states its type and applied resolution rule, which the rule check reads."""

    def __init__(self, desk: Desk) -> None:
        self.desk = desk
        llm = desk.backends(ALL_ROLES).llm
        self.name = f"ask:{llm.model_id if llm else 'no-llm'}"

    def respond(self, case: conflicts.ConflictsCase) -> Reply:
        request = AskRequest(case.query, documents=case.documents, check_parametric=False)
        outcome = self.desk.ask(request, save_run=False)
        detail = {"rule": outcome.analysis.resolution.rule,
                  "conflict_type": outcome.analysis.verdict.type.value,
                  "stance": outcome.answer.stance.value}  # fmt: skip
        return Reply(outcome.answer.text, f"[ask] {case.query}", detail=detail)


class GgufConflictsTestee:
    """A GGUF answering from the numbered sources (a plain RAG prompt)."""

    def __init__(self, generator: Any) -> None:
        self.generator = generator
        self.name = f"gguf:{generator.model_id}"

    def respond(self, case: conflicts.ConflictsCase) -> Reply:
        messages = conflicts.rag_messages(case)
        text = self.generator.generate(messages, max_tokens=256, temperature=0.0)
        return Reply(text.strip(), messages[0]["content"])


def conflicts_judge(desk: Desk, spec: str | None) -> Any:
    """`gguf:PATH`, `rules`, or None: the configured GGUF (--llm) when there is one."""
    if spec == "rules" or (spec is None and desk.settings.llm_path is None):
        return conflicts.RuleBehaviourCheck()
    if spec is None:
        return conflicts.LlmBehaviourJudge(_llm(desk.backends(("llm",)).llm))
    kind, _, target = spec.partition(":")
    if kind != "gguf" or not target:
        raise UsageError(f"unknown judge {spec!r}; use rules or gguf:PATH")
    return conflicts.LlmBehaviourJudge(load_generator(target, desk.settings))


def conflicts_suite(
    desk: Desk, cases_path: Path | None, testees: Sequence[str], judge_spec: str | None,
    limit: int | None = None,
) -> Suite:  # fmt: skip
    """The CONFLICTS expected-behaviour evaluation (default cases: typed_dev)."""
    path = data_file(desk, cases_path, TYPED_DEV)
    cases = conflicts.read_cases(path, limit)
    judge = conflicts_judge(desk, judge_spec)
    made: list[Testee] = []
    for spec in (parse_testee_spec(t) for t in testees or ["ask"]):
        if spec.kind == "ask":
            made.append(AskConflictsTestee(desk))
        elif spec.kind == "gguf":
            made.append(GgufConflictsTestee(load_generator(spec.target, desk.settings)))
        else:
            raise UsageError("the CONFLICTS evaluation takes ask and gguf:PATH testees")
    note = (
        "Expected behaviour judged by an LLM with the paper's definitions (zero-shot)."
        if isinstance(judge, conflicts.LlmBehaviourJudge)
        else "Expected behaviour by the RULE CHECK (no LLM judge configured): the applied "
        "resolution rule against the type's rule; only testees that state a rule are scored, "
        "and for the ask pipeline, whose rule follows from its type, it equals type accuracy."
    )
    return Suite("conflicts", path, cases, made, judge.name,
                 lambda case, reply: conflicts.check_case(case, reply, judge),
                 conflicts.METRICS, conflicts.TYPE_TAGS, (note,))  # fmt: skip


# -- ConflictScore §6 on TruthfulQA ------------------------------------------------------------


def truthfulqa_suite(
    desk: Desk, csv_path: Path | None, judge_spec: str | None, limit: int | None = None
) -> Suite:
    """RAG, Control-RAG and Regenerated-RAG with the Desk's GGUF (--llm) on TruthfulQA."""
    path = data_file(desk, csv_path, TRUTHFULQA)
    cases = truthfulqa.read_truthfulqa(path, limit)
    options = ScoringOptions()
    backends = desk.scoring_backends("regenerate", options)  # refuses without a GGUF

    def regenerate(question: str, response: str, documents: tuple[str, ...]) -> Any:
        from conflictdesk.scoring.regenerate import regenerate as feedback

        return feedback(question, response, list(documents), backends, cache=desk.store.cache)

    llm = _llm(backends.llm)
    rag = truthfulqa.PromptTestee(llm, "rag")
    testees: list[Testee] = [rag, truthfulqa.PromptTestee(llm, "control-rag"),
                             truthfulqa.RegeneratedTestee(rag, regenerate)]  # fmt: skip
    if judge_spec in (None, "offline"):
        judge: Any = truthfulqa.OfflineTruthJudge(desk.backends(("nli",)).nli)
        note = ("Judged OFFLINE (no judge GGUF): NLI entailment of correct vs incorrect "
                "reference answers, not the paper's LLM judge.")  # fmt: skip
    else:
        kind, _, target = judge_spec.partition(":")
        if kind != "gguf" or not target:
            raise UsageError(f"unknown judge {judge_spec!r}; use offline or gguf:PATH")
        judge = truthfulqa.LlmTruthJudge(load_generator(target, desk.settings))
        note = "Judged by an LLM with the paper's Tables 17-18 prompts."
    notes = (note, "Documents: each question's reference answers stand in for web results.")
    categories = tuple(dict.fromkeys(t for c in cases for t in c.tags))
    return Suite("truthfulqa", path, cases, testees, judge.name,
                 lambda case, reply: truthfulqa.check_answer(case, reply, judge),
                 truthfulqa.METRICS, categories, notes)  # fmt: skip
