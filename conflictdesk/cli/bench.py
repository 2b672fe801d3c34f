"""`conflictdesk bench`: the Ragability benchmark on conflicting contexts."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import IO, Any

from conflictdesk.cli import common
from conflictdesk.errors import UsageError

EXAMPLES = """examples:
  conflictdesk bench validate examples/ragability.tsv
  conflictdesk bench run examples/ragability.tsv --testee ask
  conflictdesk bench run examples/ragability.tsv --testee ask --testee gguf:model.gguf \\
      --checker gguf:checker.gguf --tags task:query,hint --limit 100
  conflictdesk bench checker-accuracy examples/ragability/checker_sample.jsonl
  conflictdesk bench import my_conflicts.jsonl -o my_corpus.tsv
  conflictdesk bench list
  conflictdesk bench report 3 --out report-3/

Testees: ask (alias pipeline: conflictdesk's own ask pipeline; with --llm it generates with
that GGUF), gguf:PATH (a GGUF chat model through llama.cpp), openai:URL (a model on an
OpenAI-compatible server; openai:URL#MODEL picks one of several). Checkers: offline (default:
the NLI model and answer-string matching), gguf:PATH or openai:URL (the paper's two yes/no
checks). Every prompt, response
and check is stored; the same command resumes a killed run without repeating a call."""

DEFAULT_SAMPLE = Path("examples/ragability/checker_sample.jsonl")


class RunProgress:
    """Progress on stderr with rate and ETA: a live line on a terminal, else a line every
    `every` steps. The rate counts only calls made now, not ones resumed from the store."""

    def __init__(self, total: int, stream: IO[str] | None = None, every: int = 50) -> None:
        self.total, self.done, self.fresh, self.every = total, 0, 0, every
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        self.start = time.monotonic()

    def start_total(self, total: int) -> None:
        self.total, self.start = total, time.monotonic()

    def step(self, testee: str, case: Any, reused: bool) -> None:
        self.done += 1
        self.fresh += 0 if reused else 1
        if self.live or self.done % self.every == 0 or self.done == self.total:
            self.stream.write(("\r" if self.live else "") + self.line(testee))
            self.stream.write("" if self.live and self.done < self.total else "\n")
            self.stream.flush()

    def line(self, testee: str) -> str:
        elapsed = max(time.monotonic() - self.start, 1e-9)
        rate = self.fresh / elapsed
        left = self.total - self.done
        eta = f"{left / rate:.0f}s" if rate > 0 else "?"
        return (
            f"bench {self.done}/{self.total} ({self.done - self.fresh} resumed) "
            f"{rate:.2f} cases/s ETA {eta} [{testee}]"
        )


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="benchmark testees on conflicting contexts (Ragability)",
        description="Ragability: generate test cases from a corpus of conflicting contexts, "
        "run testees, check their responses, report the four metrics and McNemar's test.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="bench_command", metavar="ACTION", parser_class=type(parser))
    _register_run(sub)
    _register_suites(sub)
    validate = sub.add_parser("validate", help="check a corpus TSV against the column contract")
    validate.add_argument("corpus", type=Path)
    validate.set_defaults(func=run_validate)
    importer = sub.add_parser("import", help="turn your own conflicting documents into rows")
    importer.add_argument("source", help="JSON Lines file (see conflictdesk.bench.importer)")
    importer.add_argument("-o", "--output", type=Path, required=True, help="corpus TSV to write")
    importer.set_defaults(func=run_import)
    accuracy = sub.add_parser("checker-accuracy", help="a checker against hand labels")
    accuracy.add_argument("sample", type=Path, nargs="?", default=DEFAULT_SAMPLE)
    _add_checker(accuracy)
    common.add_db_argument(accuracy)
    common.add_model_arguments(accuracy)
    common.add_json_argument(accuracy)
    accuracy.set_defaults(func=run_checker_accuracy)
    report = sub.add_parser("report", help="rewrite a stored run's report from the database")
    report.add_argument("run_id", type=int)
    report.add_argument("--checker", default=None, help="whose checks (default: the run's)")
    report.add_argument("--out", type=Path, default=None, help="default: bench-reports/run-ID")
    common.add_db_argument(report)
    report.set_defaults(func=run_report)
    listing = sub.add_parser("list", help="stored runs")
    common.add_db_argument(listing)
    common.add_json_argument(listing)
    listing.set_defaults(func=run_list)
    parser.set_defaults(func=lambda args: parser.print_help() or common.EXIT_USAGE)


def _add_checker(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--checker", default="offline", help="offline (default), gguf:PATH or openai:URL"
    )


def _register_run(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser("run", help="run testees on a corpus and write the report")
    run.add_argument("corpus", type=Path, help="Ragability corpus TSV")
    run.add_argument("--testee", action="append", default=[], metavar="SPEC",
                     help="ask | pipeline | gguf:PATH | openai:URL (repeat for several)")  # fmt: skip
    _add_checker(run)
    run.add_argument("--limit", type=int, default=None, help="only the first N test cases")
    run.add_argument("--tags", default="", help="comma-separated tags every case must carry")
    run.add_argument("--out", type=Path, default=None,
                     help="report folder (default: bench-reports/run-ID)")  # fmt: skip
    run.add_argument("--sample", type=Path, default=DEFAULT_SAMPLE,
                     help="hand-labelled responses for the checker's accuracy")  # fmt: skip
    common.add_db_argument(run)
    common.add_model_arguments(run)
    common.add_json_argument(run)
    common.add_ray_arguments(run)
    run.set_defaults(func=run_bench_command)


def _register_suites(sub: argparse._SubParsersAction) -> None:
    conflicts = sub.add_parser(
        "conflicts", help="CONFLICTS expected behaviour per type (default: typed_dev)",
        description="The CONFLICTS expected-behaviour evaluation: an LLM judge with the "
        "paper's definitions when a GGUF is configured (--judge gguf:PATH, or --llm), the "
        "rule check otherwise (labelled so in the output).",
    )  # fmt: skip
    conflicts.add_argument("cases", type=Path, nargs="?", default=None,
                           help="JSON Lines (default: $CONFLICTDESK_DATA/typed_dev/cases.jsonl)")  # fmt: skip
    conflicts.add_argument("--testee", action="append", default=[], metavar="SPEC",
                           help="ask (default) | gguf:PATH (repeat for several)")  # fmt: skip
    conflicts.add_argument("--judge", default=None, help="rules | gguf:PATH (default: --llm)")
    truthful = sub.add_parser(
        "truthfulqa", help="ConflictScore §6: RAG vs conflict-feedback regeneration",
        description="ConflictScore §6 on TruthfulQA: RAG (Table 11), Control-RAG (Table 12) "
        "and Regenerated-RAG (Table 13) with the --llm GGUF, judged for truthfulness and "
        "informativeness (Tables 17-18 with --judge gguf:PATH, else an offline NLI judge).",
    )  # fmt: skip
    truthful.add_argument("csv", type=Path, nargs="?", default=None,
                          help="TruthfulQA.csv (default: $CONFLICTDESK_DATA/truthfulqa/)")  # fmt: skip
    truthful.add_argument("--judge", default=None, help="offline (default) | gguf:PATH")
    for parser, func in ((conflicts, run_conflicts), (truthful, run_truthfulqa)):
        parser.add_argument("--limit", type=int, default=None, help="only the first N cases")
        parser.add_argument("--out", type=Path, default=None,
                            help="report folder (default: bench-reports/run-ID)")  # fmt: skip
        common.add_db_argument(parser)
        common.add_model_arguments(parser)
        common.add_json_argument(parser)
        parser.set_defaults(func=func)


def run_validate(args: argparse.Namespace) -> int:
    from conflictdesk.app.bench import validate_corpus

    rows, cases = validate_corpus(args.corpus)
    print(f"{args.corpus}: {rows} valid rows, {cases} test cases")
    return common.EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    from conflictdesk.app.bench import import_corpus

    records, unreadable = [], 0
    for line in common.read_jsonl(args.source):
        if line.value is None:
            common.warn(f"record {line.id}: skipped: {line.error}")
            unreadable += 1
        else:
            records.append((line.lineno, line.value))
    skipped = import_corpus(records, args.output)
    for item in skipped:
        common.warn(f"record {item.record_id}: skipped: {item.reason}")
    written = len(records) - len(skipped)
    print(f"{written} rows written to {args.output}, {len(skipped) + unreadable} skipped")
    return common.EXIT_PARTIAL if skipped or unreadable else common.EXIT_OK


def run_list(args: argparse.Namespace) -> int:
    from conflictdesk.app.bench import bench_runs

    with common.open_desk(args) as desk:
        runs = bench_runs(desk)
    for run in runs:
        if args.json:
            common.write_json({"id": run.id, "corpus": run.corpus, "config": run.config,
                               "created": run.created, "finished": run.finished})  # fmt: skip
        else:
            state = "finished" if run.finished else "incomplete"
            suite = run.config.get("suite", "ragability")
            print(f"{run.id}\t{run.created}\t{state}\t{suite}\t{run.corpus}\t"
                  f"{run.config.get('testees')}")  # fmt: skip
    return common.EXIT_OK


def run_report(args: argparse.Namespace) -> int:
    from conflictdesk.app.bench import bench_report

    with common.open_desk(args) as desk:
        result = bench_report(desk, args.run_id, args.checker, args.out)
    files = ", ".join(result.files.values())
    print(f"{result.responses_resumed} checked responses: {files}")
    return common.EXIT_OK


def run_checker_accuracy(args: argparse.Namespace) -> int:
    from conflictdesk.app.bench import bench_checker_accuracy

    with common.open_desk(args) as desk:
        result = bench_checker_accuracy(desk, args.sample, args.checker)
    if args.json:
        common.write_json({"checker": result.checker, "accuracy": result.accuracy,
                           "agree": result.agree, "n": result.n,
                           "false_positive": result.false_positive,
                           "false_negative": result.false_negative,
                           "disagreements": list(result.disagreements)})  # fmt: skip
    else:
        print(f"{result.checker}: {result.summary(str(args.sample))}; false positives "
              f"{result.false_positive}, false negatives {result.false_negative}")  # fmt: skip
    return common.EXIT_OK


def run_bench_command(args: argparse.Namespace) -> int:
    from conflictdesk.app.bench import BenchOptions, bench_run

    _check_limit(args.limit)
    tags = [t.strip() for t in args.tags.split(",") if t.strip()]
    options = BenchOptions(args.corpus, args.testee or ["ask"], args.checker, args.limit, tags,
                           args.out, args.sample, common.ray_options_from_args(args))  # fmt: skip
    with common.open_desk(args) as desk:
        progress = RunProgress(0)
        result = bench_run(desk, options, on_step=progress.step, on_total=progress.start_total)
    return _print_result(result.to_json(), args)


def run_conflicts(args: argparse.Namespace) -> int:
    from conflictdesk.app.evaluations import conflicts_suite

    _check_limit(args.limit)
    return _run_suite(args, lambda desk: conflicts_suite(desk, args.cases, args.testee,
                                                         args.judge, args.limit))  # fmt: skip


def run_truthfulqa(args: argparse.Namespace) -> int:
    from conflictdesk.app.evaluations import truthfulqa_suite

    _check_limit(args.limit)
    return _run_suite(args, lambda desk: truthfulqa_suite(desk, args.csv, args.judge, args.limit))


def _check_limit(limit: int | None) -> None:
    if limit is not None and limit < 1:
        raise UsageError("--limit must be at least 1")


def _run_suite(args: argparse.Namespace, build: Any) -> int:
    from conflictdesk.app.evaluations import run_suite

    with common.open_desk(args) as desk:
        progress = RunProgress(0)
        suite = build(desk)
        result = run_suite(desk, suite, args.out, progress.step, progress.start_total)
    if not args.json:
        for note in suite.notes:
            print(note)
    return _print_result(result.to_json(), args)


def _print_result(summary: dict[str, Any], args: argparse.Namespace) -> int:
    if args.json:
        common.write_json(summary)
        return common.EXIT_OK
    accuracy = summary["checker_accuracy"]
    print(f"run {summary['run']}: {summary['responses_new']} new responses, "
          f"{summary['responses_resumed']} resumed; checker {summary['checker']}"
          + (f", accuracy {accuracy}" if accuracy else ""))  # fmt: skip
    for score in summary["scores"]:
        low, high = score["ci95"]
        print(f"  {score['metric']:<30} {score['testee']:<24} {score['accuracy']:.3f} "
              f"[{low:.3f}, {high:.3f}] n={score['n']}")  # fmt: skip
    print("report: " + ", ".join(summary["files"].values()))
    return common.EXIT_OK
