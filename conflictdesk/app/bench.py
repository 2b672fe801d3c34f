"""The bench use case (Ragability): corpus → cases → testees × cases (resumable, stored) →
checks → report files. The CLI (and later the TUI) call these functions with a Desk."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conflictdesk.app.desk import ALL_ROLES, Desk
from conflictdesk.app.scale import replies_on_ray
from conflictdesk.app.wire import AskRequest
from conflictdesk.bench import conflicts, truthfulqa
from conflictdesk.bench.calibration import CheckerAccuracy, checker_accuracy, read_sample
from conflictdesk.bench.cases import METRICS, generate_cases
from conflictdesk.bench.checkers import Checker, GgufChecker, OfflineChecker
from conflictdesk.bench.corpus import corpus_digest, read_corpus, write_corpus
from conflictdesk.bench.importer import Skipped, import_record
from conflictdesk.bench.metrics import Score, mcnemar_all, score_table
from conflictdesk.bench.report import (
    BREAKDOWN_TAGS,
    Checked,
    ReportData,
    html_report,
    markdown_report,
    tsv_export,
)
from conflictdesk.bench.runner import OnStep, run_bench
from conflictdesk.bench.testees import Testee, openai_testee, parse_testee_spec
from conflictdesk.bench.testees.desk import AskTestee
from conflictdesk.bench.testees.gguf import GeneratorTestee
from conflictdesk.config import Settings
from conflictdesk.errors import InputError, UsageError
from conflictdesk.scale import RayOptions
from conflictdesk.store.bench import BenchRun, BenchStore, get_run, list_runs, run_outcomes


def load_generator(path: str, settings: Settings) -> Any:
    """A GGUF through llama.cpp, loaded on first use; tests replace `make_generator`."""
    from conflictdesk.backends.llama_cpp import LlamaCppGenerator

    file = Path(path).expanduser()
    if not file.is_file():
        raise UsageError(f"no GGUF file at {path}")
    layers = 0 if settings.device == "cpu" else settings.n_gpu_layers
    return LlamaCppGenerator(file, n_ctx=settings.n_ctx, threads=settings.threads,
                             n_gpu_layers=layers)  # fmt: skip


make_generator = load_generator


def load_server_generator(target: str, settings: Settings) -> Any:
    """`URL` or `URL#MODEL` of an OpenAI-compatible server (the `openai:` testee and
    checker); tests replace `make_server_generator`."""
    import dataclasses

    from conflictdesk.backends.registry import build_server_llm

    url, _, model = target.partition("#")
    chosen = dataclasses.replace(settings, llm_url=url, llm_model=model or settings.llm_model)
    return build_server_llm(chosen)


make_server_generator = load_server_generator


@dataclass(frozen=True)
class BenchOptions:
    corpus: Path
    testees: Sequence[str] = ("ask",)
    checker: str = "offline"
    limit: int | None = None
    tags: Sequence[str] = ()
    out: Path | None = None
    sample: Path | None = None
    ray: RayOptions | None = None  # replies made on a Ray cluster (conflictdesk/app/scale.py)


@dataclass(frozen=True)
class BenchResult:
    run_id: int
    responses_new: int
    checks_new: int
    responses_resumed: int
    data: ReportData
    files: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run_id, "responses_new": self.responses_new,
            "checks_new": self.checks_new, "responses_resumed": self.responses_resumed,
            "checker": self.data.checker, "checker_accuracy": self.data.checker_accuracy,
            "scores": [
                {"metric": s.metric, "testee": s.testee, "accuracy": s.accuracy, "n": s.n,
                 "ci95": list(s.interval)}
                for s in self.data.scores()
            ],
            "mcnemar": [
                {"first": m.first, "second": m.second, "n10": m.n10, "n01": m.n01,
                 "chi2": m.chi2, "p": m.p}
                for m in self.data.comparisons
            ],
            "files": self.files,
        }  # fmt: skip


def desk_ask(desk: Desk) -> Any:
    """The ask pipeline through the Desk, as the AskTestee's `ask` callable; the bench keeps
    its own records, so no history run is saved."""

    def ask(query: str, passages: Sequence[Any]) -> tuple[Any, Any]:
        request = AskRequest(query, documents=tuple(passages), check_parametric=False)
        outcome = desk.ask(request, save_run=False)
        return outcome.analysis, outcome.answer

    return ask


def make_testees(desk: Desk, specs: Sequence[str]) -> list[Testee]:
    testees: list[Testee] = []
    for spec in (parse_testee_spec(text) for text in specs or ["ask"]):
        if spec.kind == "ask":
            llm = desk.backends(ALL_ROLES).llm
            testees.append(AskTestee(desk_ask(desk), llm.model_id if llm else "no-llm"))
        elif spec.kind == "gguf":
            testees.append(GeneratorTestee(make_generator(spec.target, desk.settings)))
        else:
            testees.append(openai_testee(make_server_generator(spec.target, desk.settings)))
    names = [t.name for t in testees]
    if len(set(names)) != len(names):
        raise UsageError(f"the same testee twice: {names}")
    return testees


def make_checker(desk: Desk, spec: str) -> Checker:
    kind, _, target = spec.partition(":")
    if kind == "gguf" and target:
        return GgufChecker(make_generator(target, desk.settings))
    if kind == "openai" and target:
        generator = make_server_generator(target, desk.settings)
        return GgufChecker(generator, name=generator.model_id)
    if kind != "offline" or target:
        raise UsageError(f"unknown checker {spec!r}; use offline, gguf:PATH or openai:URL")
    return OfflineChecker(desk.backends(("nli",)).nli)


def run_key(digest: str, case_ids: Sequence[str], testees: Sequence[str]) -> str:
    """A run is its corpus, cases and testees; another checker re-checks the same responses."""
    body = json.dumps([digest, list(case_ids), list(testees)])
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:20]


def bench_run(
    desk: Desk,
    options: BenchOptions,
    on_step: OnStep | None = None,
    on_total: Callable[[int], None] | None = None,
) -> BenchResult:
    """Run (or resume) a benchmark and write its report files; `on_total` hears the number
    of steps before the first, `on_step` each step."""
    entries = read_corpus(options.corpus)
    cases = generate_cases(entries, tags=options.tags, limit=options.limit)
    if not cases:
        raise InputError(f"no test case carries every tag in {list(options.tags)}")
    testees = make_testees(desk, options.testees)
    checker = make_checker(desk, options.checker)
    names = [t.name for t in testees]
    config = {"testees": names, "checker": checker.name, "tags": list(options.tags),
              "limit": options.limit, "cases": len(cases)}  # fmt: skip
    key = run_key(corpus_digest(entries), [c.case_id for c in cases], names)
    recorder = BenchStore.open_run(desk.store, key, str(options.corpus), config)
    before = recorder.counts()
    if on_total is not None:
        on_total(len(cases) * len(testees))
    if options.ray is not None:
        replies_on_ray(desk, cases, list(zip(options.testees or ["ask"], names)), recorder,
                       options.ray)  # fmt: skip
    outcomes = run_bench(cases, testees, checker, recorder, on_step=on_step)
    recorder.finish()
    after = recorder.counts()
    checked = [
        Checked(t.name, c, recorder.reply(t.name, c.case_id),  # type: ignore[arg-type]
                recorder.check(t.name, c.case_id, checker.name))  # type: ignore[arg-type]
        for t in testees for c in cases
    ]  # fmt: skip
    accuracy = _accuracy_line(options.sample, checker)
    title = f"Ragability run {recorder.run_id} on {options.corpus}"
    data = ReportData(title, checker.name, outcomes, mcnemar_all(outcomes), accuracy)
    out = options.out or Path("bench-reports") / f"run-{recorder.run_id}"
    files = write_reports(out, data, checked)
    return BenchResult(recorder.run_id, after[0] - before[0], after[1] - before[1], before[0],
                       data, files)  # fmt: skip


def _accuracy_line(sample: Path | None, checker: Checker) -> str:
    if sample is None or not Path(sample).is_file():
        return "not measured (no hand-labelled sample)"
    return checker_accuracy(read_sample(sample), checker).summary(str(sample))


def write_reports(out: Path, data: ReportData, checked: list[Checked] | None) -> dict[str, str]:
    """report.md, report.html and (with `checked`) responses.tsv under `out`."""
    out.mkdir(parents=True, exist_ok=True)
    files = {"markdown": out / "report.md", "html": out / "report.html"}
    files["markdown"].write_text(markdown_report(data), "utf-8")
    files["html"].write_text(html_report(data), "utf-8")
    if checked is not None:
        files["tsv"] = out / "responses.tsv"
        files["tsv"].write_text(tsv_export(checked), "utf-8")
    return {name: str(path) for name, path in files.items()}


def bench_report(desk: Desk, run_id: int, checker: str | None, out: Path | None) -> BenchResult:
    """Rewrite a stored run's report from the database alone (no model loads)."""
    run = get_run(desk.store, run_id)
    name = checker or run.config.get("checker", "")
    outcomes = run_outcomes(desk.store, run.id, name)
    if not outcomes:
        raise UsageError(f"run {run.id} has no checks by {name!r}")
    suite = run.config.get("suite", "ragability")
    metrics = SUITE_METRICS.get(suite, METRICS)
    title = f"{suite} run {run.id} on {run.corpus}"
    breakdown = BREAKDOWN_TAGS if metrics == METRICS else tuple(
        dict.fromkeys(t for o in outcomes for t in o.tags))  # fmt: skip
    data = ReportData(title, name, outcomes, mcnemar_all(outcomes, metrics[0]),
                      "see the run's own report", metrics, breakdown, metrics[0])  # fmt: skip
    files = write_reports(out or Path("bench-reports") / f"run-{run.id}", data, None)
    checked = len({(o.testee, o.case_id) for o in outcomes})
    return BenchResult(run.id, 0, 0, checked, data, files)


def bench_runs(desk: Desk) -> list[BenchRun]:
    return list_runs(desk.store)


SUITE_METRICS: dict[str, tuple[str, ...]] = {
    "ragability": METRICS, "conflicts": conflicts.METRICS, "truthfulqa": truthfulqa.METRICS,
}  # fmt: skip


@dataclass(frozen=True)
class BenchStatus:
    """A stored run and how far it got: `total` (cases × testees) responses and checks are
    expected; the counts are read fresh, so a run going on in another process shows live."""

    id: int
    suite: str
    corpus: str
    testees: tuple[str, ...]
    checker: str
    created: str
    finished: str | None
    total: int
    responses: int
    checks: int

    @property
    def fraction(self) -> float:
        return min(1.0, self.checks / self.total) if self.total else 0.0


def bench_statuses(desk: Desk) -> list[BenchStatus]:
    """Every stored run, newest first, with its progress."""
    statuses = []
    for run in reversed(list_runs(desk.store)):
        responses, checks = BenchStore(desk.store, run.id).counts()
        testees = tuple(run.config.get("testees", ()))
        statuses.append(BenchStatus(
            run.id, run.config.get("suite", "ragability"), run.corpus, testees,
            run.config.get("checker", ""), run.created, run.finished,
            int(run.config.get("cases", 0)) * len(testees), responses, checks,
        ))  # fmt: skip
    return statuses


def bench_scores(desk: Desk, run_id: int) -> list[Score]:
    """A run's metric table (overall, per testee, with Wilson intervals) from the store."""
    run = get_run(desk.store, run_id)
    metrics = SUITE_METRICS.get(run.config.get("suite", "ragability"), METRICS)
    return score_table(run_outcomes(desk.store, run.id), (), metrics)


def bench_checker_accuracy(desk: Desk, sample: Path, checker: str) -> CheckerAccuracy:
    return checker_accuracy(read_sample(sample), make_checker(desk, checker))


def validate_corpus(path: Path) -> tuple[int, int]:
    """(valid rows, test cases) of a corpus; a CorpusError names every bad row."""
    entries = read_corpus(path)
    return len(entries), len(generate_cases(entries))


def import_corpus(records: Sequence[tuple[int, dict[str, Any]]], output: Path) -> list[Skipped]:
    """Corpus rows from (line number, record) pairs, written to `output`; the skipped ones."""
    entries, skipped = [], []
    for number, record in records:
        result = import_record(record, number)
        (skipped if isinstance(result, Skipped) else entries).append(result)
    if entries:
        write_corpus(entries, output)  # type: ignore[arg-type]
    return skipped  # type: ignore[return-value]
