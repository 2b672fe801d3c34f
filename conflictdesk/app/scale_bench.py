"""Throughput of `detect` in one process and on a local Ray cluster (scripts/bench_ray.py).

The items are RAMDocs dev questions as detect lines (the claim "the answer to Q is X" against
the question's documents), run with the judgment cache off, so every run does all the model
work. Each run gets a fresh database; a Ray run's time includes starting its actors and
loading their models (the cluster itself is started once, before any timing), a plain run's
includes loading the models. `first_s` is when the first result came (mostly start-up), and
`after_first_items_per_s` the rate of the results that came after the first batch of them
(Ray hands back `batch_size` results at once): the rate once the models are loaded."""

from __future__ import annotations

import dataclasses
import functools
import json
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conflictdesk.app.desk import Desk
from conflictdesk.app.scale import ray_batch
from conflictdesk.app.scoring import ScoringOptions
from conflictdesk.config import Settings
from conflictdesk.evaluation.cases import ramdocs_case
from conflictdesk.scale import RayOptions, connect
from conflictdesk.types import Document

OPTIONS = ScoringOptions(use_cache=False)


@dataclass(frozen=True)
class Figure:
    """One configuration's median over repeats."""

    name: str
    items: int
    wall_s: float
    items_per_s: float
    first_s: float
    after_first_items_per_s: float
    runs: tuple[float, ...]

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def detect_items(data_dir: Path, limit: int) -> list[dict[str, Any]]:
    """The first `limit` RAMDocs dev questions as detect input lines."""
    items: list[dict[str, Any]] = []
    with open(data_dir / "ramdocs" / "dev.jsonl", encoding="utf-8") as handle:
        for line in handle:
            case = ramdocs_case(json.loads(line))
            if case is not None and case.documents:
                items.append({"id": len(items), "claim": case.claim,
                              "documents": list(case.documents)})  # fmt: skip
            if len(items) == limit:
                break
    return items


def _times(outputs: Iterator[Any]) -> list[float]:
    """The moment each result arrived."""
    return [time.perf_counter() for _ in outputs]


def _plain(desk: Desk, items: Sequence[dict[str, Any]]) -> Iterator[Any]:
    for item in items:
        yield desk.detect(item["claim"], [Document.from_json(d) for d in item["documents"]],
                          OPTIONS, run_input=item, run_id=item["id"])  # fmt: skip


def _on_ray(desk: Desk, items: Sequence[dict[str, Any]], options: RayOptions) -> Iterator[Any]:
    batch = ray_batch(desk, options)
    for item in items:
        batch.detect(item["claim"], [Document.from_json(d) for d in item["documents"]],
                     OPTIONS, run_input=item, run_id=item["id"])  # fmt: skip
    yield from batch.results()


Run = Callable[[Desk], Iterator[Any]]


def _timed(settings: Settings, run: Run) -> tuple[float, float, float]:
    """(wall, first result, rate after the first arrival) of one run on a fresh database."""
    with tempfile.TemporaryDirectory() as folder:
        fresh = dataclasses.replace(settings, db_path=Path(folder) / "bench.db")
        with Desk(fresh) as desk:
            start = time.perf_counter()
            arrivals = _times(run(desk))
    first = arrivals[0]
    later = [t for t in arrivals if t - first > 0.001]  # results that came after the first batch
    span = arrivals[-1] - first
    return arrivals[-1] - start, first - start, len(later) / span if later else float("nan")


def bench_detect(settings: Settings, items: Sequence[dict[str, Any]], repeats: int,
                 cpus: int = 2) -> list[Figure]:  # fmt: skip
    """Plain (one process, `cpus` threads), Ray with 1 worker × `cpus` threads and Ray with
    `cpus` workers × 1 thread, on one local cluster of `cpus` CPUs started first; the three
    take turns within each repeat, so a change in the machine's load hits them alike."""
    plain = dataclasses.replace(settings, threads=cpus)
    unthreaded = dataclasses.replace(settings, threads=0)  # each actor: cpus_per_worker threads
    configs: list[tuple[str, Settings, Run]] = [
        ("plain", plain, functools.partial(_plain, items=items))
    ]
    for pool in (RayOptions(workers=1, cpus_per_worker=cpus), RayOptions(workers=cpus)):
        configs.append((f"ray {pool.workers} worker(s) x {pool.cpus_per_worker} thread(s)",
                        unthreaded, functools.partial(_on_ray, items=items, options=pool)))  # fmt: skip
    timings: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _, _ in configs}
    with connect(RayOptions(workers=cpus)):
        for _ in range(repeats):
            for name, config, run in configs:
                timings[name].append(_timed(config, run))
    return [_figure(name, len(items), runs) for name, runs in timings.items()]


def _figure(name: str, items: int, runs: list[tuple[float, float, float]]) -> Figure:
    wall = statistics.median(r[0] for r in runs)
    return Figure(name, items, round(wall, 2), round(items / wall, 2),
                  round(statistics.median(r[1] for r in runs), 2),
                  round(statistics.median(r[2] for r in runs), 2),
                  tuple(round(r[0], 2) for r in runs))  # fmt: skip
