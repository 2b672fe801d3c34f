"""The `bench run` session: corpus → cases → testees × cases (resumable) → report files."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from conflictdesk.bench.calibration import checker_accuracy, read_sample
from conflictdesk.bench.cases import generate_cases
from conflictdesk.bench.corpus import corpus_digest, read_corpus
from conflictdesk.bench.metrics import mcnemar_all, score_table
from conflictdesk.bench.report import (
    Checked,
    ReportData,
    html_report,
    markdown_report,
    tsv_export,
)
from conflictdesk.bench.runner import run_bench
from conflictdesk.cli import bench, common
from conflictdesk.errors import InputError


def execute(args: argparse.Namespace) -> int:
    from conflictdesk.store import Store
    from conflictdesk.store.bench import BenchStore

    entries = read_corpus(args.corpus)
    tags = [t.strip() for t in args.tags.split(",") if t.strip()]
    cases = generate_cases(entries, tags=tags, limit=args.limit)
    if not cases:
        raise InputError(f"no test case carries every tag in {tags}")
    with Store.open(common.db_path(args)) as store:
        testees, backends = bench.make_testees(args, store.cache)
        checker = bench.make_checker(args, backends)
        names = [t.name for t in testees]
        key = bench.run_key(corpus_digest(entries), [c.case_id for c in cases], names)
        config = {"testees": names, "checker": checker.name, "tags": tags, "limit": args.limit,
                  "cases": len(cases)}  # fmt: skip
        recorder = BenchStore.open_run(store, key, str(args.corpus), config)
        before = recorder.counts()
        progress = bench.RunProgress(len(cases) * len(testees))
        outcomes = run_bench(cases, testees, checker, recorder, on_step=progress.step)
        recorder.finish()
        after = recorder.counts()
        checked = [
            Checked(
                t.name,
                c,
                recorder.reply(t.name, c.case_id),
                recorder.check(t.name, c.case_id, checker.name),
            )  # type: ignore[arg-type]
            for t in testees
            for c in cases
        ]
        accuracy = _checker_accuracy(args.sample, checker)
        data = ReportData(
            f"Ragability run {recorder.run_id} on {args.corpus}",
            checker.name, outcomes, mcnemar_all(outcomes), accuracy,
        )  # fmt: skip
        out = args.out or Path("bench-reports") / f"run-{recorder.run_id}"
        files = write_reports(out, data, checked)
        summary = _summary(recorder.run_id, before, after, data, files)
    _emit(args, summary, data)
    return common.EXIT_OK


def _checker_accuracy(sample: Path | None, checker: Any) -> str:
    if sample is None or not Path(sample).is_file():
        return "not measured (no hand-labelled sample)"
    return checker_accuracy(read_sample(sample), checker).summary(str(sample))


def write_reports(out: Path, data: ReportData, checked: list[Checked]) -> dict[str, str]:
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "markdown": out / "report.md",
        "html": out / "report.html",
        "tsv": out / "responses.tsv",
    }
    files["markdown"].write_text(markdown_report(data), "utf-8")
    files["html"].write_text(html_report(data), "utf-8")
    files["tsv"].write_text(tsv_export(checked), "utf-8")
    return {name: str(path) for name, path in files.items()}


def _summary(
    run_id: int, before: tuple[int, int], after: tuple[int, int], data: ReportData, files: Any
) -> dict[str, Any]:
    return {
        "run": run_id,
        "responses_new": after[0] - before[0],
        "checks_new": after[1] - before[1],
        "responses_resumed": before[0],
        "checker": data.checker,
        "checker_accuracy": data.checker_accuracy,
        "scores": [
            {
                "metric": s.metric,
                "testee": s.testee,
                "accuracy": s.accuracy,
                "n": s.n,
                "ci95": list(s.interval),
            }
            for s in score_table(data.outcomes)
        ],
        "mcnemar": [
            {
                "first": m.first,
                "second": m.second,
                "n10": m.n10,
                "n01": m.n01,
                "chi2": m.chi2,
                "p": m.p,
            }
            for m in data.comparisons
        ],
        "files": files,
    }


def _emit(args: argparse.Namespace, summary: dict[str, Any], data: ReportData) -> None:
    if args.json:
        common.write_json(summary)
        return
    print(
        f"run {summary['run']}: {summary['responses_new']} new responses, "
        f"{summary['responses_resumed']} resumed; checker {data.checker}, "
        f"accuracy {data.checker_accuracy}"
    )
    for score in summary["scores"]:
        low, high = score["ci95"]
        print(f"  {score['metric']:<30} {score['testee']:<24} {score['accuracy']:.3f} "
              f"[{low:.3f}, {high:.3f}] n={score['n']}")  # fmt: skip
    print("report: " + ", ".join(summary["files"].values()))
