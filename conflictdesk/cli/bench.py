"""`conflictdesk bench`: the Ragability benchmark on conflicting contexts."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from conflictdesk.cli import common
from conflictdesk.errors import UsageError

EXAMPLES = """examples:
  conflictdesk bench validate examples/ragability/corpus.tsv
  conflictdesk bench run examples/ragability/corpus.tsv --testee ask
  conflictdesk bench run examples/ragability/corpus.tsv --testee ask --testee gguf:model.gguf \\
      --checker gguf:checker.gguf --tags task:query,hint --limit 100
  conflictdesk bench checker-accuracy examples/ragability/checker_sample.jsonl
  conflictdesk bench import my_conflicts.jsonl -o my_corpus.tsv
  conflictdesk bench list
  conflictdesk bench report 3 --out report-3/

Testees: ask (alias pipeline: conflictdesk's own ask pipeline; with --llm it generates with
that GGUF), gguf:PATH (a GGUF chat model through llama.cpp); openai:URL is reserved for an
OpenAI-compatible server and not built yet. Checkers: offline (default: the NLI model and
answer-string matching) or gguf:PATH (the paper's two yes/no checks). Every prompt, response
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
    parser.add_argument("--checker", default="offline", help="offline (default) or gguf:PATH")


def _register_run(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser("run", help="run testees on a corpus and write the report")
    run.add_argument("corpus", type=Path, help="Ragability corpus TSV")
    run.add_argument("--testee", action="append", default=[], metavar="SPEC",
                     help="ask | pipeline | gguf:PATH (repeat for several)")  # fmt: skip
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
    run.set_defaults(func=run_bench_command)


def run_validate(args: argparse.Namespace) -> int:
    from conflictdesk.bench.cases import generate_cases
    from conflictdesk.bench.corpus import read_corpus

    entries = read_corpus(args.corpus)
    print(f"{args.corpus}: {len(entries)} valid rows, {len(generate_cases(entries))} test cases")
    return common.EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    from conflictdesk.bench.corpus import write_corpus
    from conflictdesk.bench.importer import Skipped, import_record

    entries, skipped = [], 0
    for line in common.read_jsonl(args.source):
        result = (
            import_record(line.value, line.lineno) if line.value is not None else None
        ) or Skipped(line.id, line.error or "unreadable")
        if isinstance(result, Skipped):
            common.warn(f"record {result.record_id}: skipped: {result.reason}")
            skipped += 1
            continue
        entries.append(result)
    if entries:
        write_corpus(entries, args.output)
    print(f"{len(entries)} rows written to {args.output}, {skipped} skipped")
    return common.EXIT_PARTIAL if skipped else common.EXIT_OK


def run_list(args: argparse.Namespace) -> int:
    from conflictdesk.store import Store
    from conflictdesk.store.bench import list_runs

    with Store.open(common.db_path(args)) as store:
        runs = list_runs(store)
    for run in runs:
        if args.json:
            common.write_json({"id": run.id, "corpus": run.corpus, "config": run.config,
                               "created": run.created, "finished": run.finished})  # fmt: skip
        else:
            state = "finished" if run.finished else "incomplete"
            print(f"{run.id}\t{run.created}\t{state}\t{run.corpus}\t{run.config.get('testees')}")
    return common.EXIT_OK


def run_report(args: argparse.Namespace) -> int:
    from conflictdesk.bench.metrics import mcnemar_all
    from conflictdesk.bench.report import ReportData, html_report, markdown_report
    from conflictdesk.store import Store
    from conflictdesk.store.bench import get_run, run_outcomes

    with Store.open(common.db_path(args)) as store:
        run = get_run(store, args.run_id)
        checker = args.checker or run.config.get("checker", "")
        outcomes = run_outcomes(store, run.id, checker)
    if not outcomes:
        raise UsageError(f"run {run.id} has no checks by {checker!r}")
    title = f"Ragability run {run.id} on {run.corpus}"
    data = ReportData(title, checker, outcomes, mcnemar_all(outcomes), "see the run's own report")
    out = args.out or Path("bench-reports") / f"run-{run.id}"
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(markdown_report(data), "utf-8")
    (out / "report.html").write_text(html_report(data), "utf-8")
    print(f"{len(outcomes)} checked responses: {out / 'report.md'}, {out / 'report.html'}")
    return common.EXIT_OK


def run_checker_accuracy(args: argparse.Namespace) -> int:
    from conflictdesk.bench.calibration import checker_accuracy, read_sample

    checker = make_checker(args, None)
    result = checker_accuracy(read_sample(args.sample), checker)
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


def load_backends_from_args(args: argparse.Namespace, roles: Sequence[str]) -> Any:
    """The real back-ends; tests replace `make_backends`."""
    from conflictdesk.backends.registry import load_backends

    return load_backends(common.config_from_args(args), roles=tuple(roles))


def load_generator(path: str, args: argparse.Namespace) -> Any:
    """A GGUF through llama.cpp; tests replace `make_generator`."""
    from conflictdesk.backends.llama_cpp import LlamaCppGenerator

    config = common.config_from_args(args)
    if not Path(path).expanduser().is_file():
        raise UsageError(f"no GGUF file at {path}")
    return LlamaCppGenerator(
        Path(path).expanduser(), n_ctx=config.n_ctx, threads=config.threads,
        n_gpu_layers=max(config.n_gpu_layers, 0) if config.device == "cpu" else config.n_gpu_layers,
    )  # fmt: skip


make_backends = load_backends_from_args
make_generator = load_generator


def make_checker(args: argparse.Namespace, backends: Any) -> Any:
    from conflictdesk.bench.checkers import GgufChecker, OfflineChecker

    kind, _, target = args.checker.partition(":")
    if kind == "gguf" and target:
        return GgufChecker(make_generator(target, args))
    if kind != "offline" or target:
        raise UsageError(f"unknown checker {args.checker!r}; use offline or gguf:PATH")
    nli = backends.nli if backends is not None else make_backends(args, ("nli",)).nli
    return OfflineChecker(nli)


def make_testees(args: argparse.Namespace, cache: Any) -> tuple[list[Any], Any]:
    """The testees named by --testee, and the back-ends when the ask pipeline is one."""
    from conflictdesk.bench.testees import openai_testee, parse_testee_spec
    from conflictdesk.bench.testees.desk import AskTestee
    from conflictdesk.bench.testees.gguf import GeneratorTestee

    specs = [parse_testee_spec(text) for text in args.testee or ["ask"]]
    backends: Any = (
        make_backends(args, ("embedder", "nli", "pair", "llm"))
        if any(s.kind == "ask" for s in specs)
        else None
    )
    testees: list[Any] = []
    for spec in specs:
        if spec.kind == "ask":
            testees.append(AskTestee(backends, cache=cache))
        elif spec.kind == "gguf":
            testees.append(GeneratorTestee(make_generator(spec.target, args)))
        else:
            testees.append(openai_testee(spec.target))
    names = [t.name for t in testees]
    if len(set(names)) != len(names):
        raise UsageError(f"the same testee twice: {names}")
    return testees, backends


def run_key(digest: str, case_ids: Sequence[str], testees: Sequence[str]) -> str:
    """A run is its corpus, cases and testees; another checker re-checks the same responses."""
    body = json.dumps([digest, list(case_ids), list(testees)])
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:20]


def run_bench_command(args: argparse.Namespace) -> int:
    from conflictdesk.cli.bench_session import execute

    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    return execute(args)
