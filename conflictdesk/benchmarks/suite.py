"""Every benchmark in one run, as one JSON-ready summary (`scripts/bench.py`).

`quick` uses small sizes (the smoke test's mode); the full run uses the issue's sizes. Each
part is timed through the application layer or the back-ends the Desk loads."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from conflictdesk.cpu import machine

PARTS = ("ingest", "search", "ask", "models", "scoring", "cli")


@dataclass(frozen=True)
class SuiteOptions:
    quick: bool = False
    threads: int = 2
    repeats: int = 3
    parts: tuple[str, ...] = PARTS
    data_dir: Path | None = None
    ask_real: int = 2_000  # real (embedded) passages in the ask collections
    search_also: tuple[int, ...] = ()  # more search sizes, e.g. 1_000_000 (search part only)
    torch_checkpoint: Path | None = None  # the NLI's fp32 best.pt, for the PyTorch ratio

    @property
    def search_sizes(self) -> list[int]:
        return [2_000, 10_000] if self.quick else [10_000, 100_000]

    @property
    def score_sizes(self) -> list[int]:
        return [10] if self.quick else [10, 50, 200]


def cli_cold_start(repeats: int) -> dict[str, Any]:
    """Median seconds of `python -m conflictdesk --version` in a fresh interpreter."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "conflictdesk", "--version"], check=True,
                       capture_output=True)  # fmt: skip
        times.append(time.perf_counter() - started)
    return {"command": "conflictdesk --version", "median_s": round(statistics.median(times), 3)}


def run_suite(options: SuiteOptions) -> dict[str, Any]:
    """Run the chosen parts; a part that needs the data folder says so when it has none."""
    from conflictdesk.app import load_settings

    settings = load_settings(threads=options.threads, device="cpu", data_dir=options.data_dir)
    summary: dict[str, Any] = {"quick": options.quick, "threads": options.threads,
                               "repeats": options.repeats, "machine": machine()}  # fmt: skip
    # each part's 1-minute load average before and after it: how shared the machine was
    loads: dict[str, list[float]] = summary.setdefault("load_average", {})
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for part in options.parts:
            before = os.getloadavg()[0]
            summary[part] = _run_part(part, options, replace(settings, db_path=work / "b.db"),
                                      work)  # fmt: skip
            loads[part] = [round(before, 2), round(os.getloadavg()[0], 2)]
    return summary


def _run_part(part: str, options: SuiteOptions, settings: Any, work: Path) -> Any:
    if part == "cli":
        return cli_cold_start(options.repeats)
    if part == "ingest":
        from conflictdesk.benchmarks.ingest import ingest_benchmark

        return ingest_benchmark(work / "ingest", quick=options.quick, threads=options.threads,
                                repeats=options.repeats)  # fmt: skip
    if part == "search":
        from conflictdesk.benchmarks.search import time_search

        queries = 50 if options.quick else 200
        sizes = sorted({*options.search_sizes, *options.search_also})
        return [time_search(work / f"search-{n}.db", n, queries, 20) for n in sizes]
    if settings.data_dir is None:
        return {"not_measured": "no data folder (pass --data or set CONFLICTDESK_DATA)"}
    return _model_part(part, options, settings, work)


def _model_part(part: str, options: SuiteOptions, settings: Any, work: Path) -> Any:
    from conflictdesk.app import Desk, verified_backends

    if part == "models":
        from conflictdesk.benchmarks.models import models_benchmark

        backends = verified_backends(settings, ("nli",))
        return models_benchmark(backends, options.threads, options.repeats,
                                options.torch_checkpoint)  # fmt: skip
    if part == "scoring":
        from conflictdesk.benchmarks.scoring import scoring_benchmark

        backends = verified_backends(settings, ("nli", "embedder"))
        return scoring_benchmark(settings.data_dir, backends, options.score_sizes,
                                 options.repeats)  # fmt: skip
    from conflictdesk.benchmarks.ask import ask_benchmark

    def embedded_models(roles: Any) -> Any:
        return verified_backends(settings, [role for role in roles if role != "llm"])

    real = min(300, options.ask_real) if options.quick else options.ask_real
    with Desk(replace(settings, db_path=work / "ask.db"), load_backends=embedded_models) as desk:
        return ask_benchmark(desk, settings.data_dir, real=real, sizes=options.search_sizes,
                             queries=4 if options.quick else 20)  # fmt: skip
