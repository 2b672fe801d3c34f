"""Throughput of `detect` in one process and on a local Ray cluster (scripts/bench_ray.py).

The items are RAMDocs dev questions as detect lines (the claim "the answer to Q is X" against
the question's documents), run with the judgment cache off, so every run does all the model
work. Each run gets a fresh database; a Ray run's time includes starting its actors and
loading their models (the cluster itself is started once, before any timing), a plain run's
includes loading the models. `first_s` is when the first result came (mostly start-up: Ray
returns a batch of `batch_size` results at once, so no steady rate is read from arrivals)."""

from __future__ import annotations

import dataclasses
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
    runs: tuple[float, ...]

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def detect_items(data_dir: Path, limit: int) -> list[dict[str, Any]]:
    """The first `limit` RAMDocs dev questions as detect input lines."""
    items = []
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


def measure(name: str, settings: Settings, items: Sequence[dict[str, Any]], repeats: int,
            run: Callable[[Desk], Iterator[Any]]) -> Figure:  # fmt: skip
    """Median wall time and rates over `repeats` runs of `run` on a fresh database each."""
    walls, firsts = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as folder:
            fresh = dataclasses.replace(settings, db_path=Path(folder) / "bench.db")
            with Desk(fresh) as desk:
                start = time.perf_counter()
                arrivals = _times(run(desk))
        walls.append(arrivals[-1] - start)
        firsts.append(arrivals[0] - start)
    wall = statistics.median(walls)
    return Figure(name, len(items), round(wall, 2), round(len(items) / wall, 2),
                  round(statistics.median(firsts), 2), tuple(round(w, 2) for w in walls))  # fmt: skip


def bench_detect(settings: Settings, items: Sequence[dict[str, Any]], repeats: int,
                 cpus: int = 2) -> list[Figure]:  # fmt: skip
    """Plain (one process, `cpus` threads), then Ray with 1 worker × `cpus` threads and
    `cpus` workers × 1 thread, on one local cluster of `cpus` CPUs."""
    plain = dataclasses.replace(settings, threads=cpus)
    figures = [measure("plain", plain, items, repeats, lambda desk: _plain(desk, items))]
    pools = [RayOptions(workers=1, cpus_per_worker=cpus), RayOptions(workers=cpus)]
    unthreaded = dataclasses.replace(settings, threads=0)  # each actor: cpus_per_worker threads
    with connect(RayOptions(workers=cpus)):
        for pool in pools:
            name = f"ray {pool.workers} worker(s) x {pool.cpus_per_worker} thread(s)"
            figures.append(measure(name, unthreaded, items, repeats,
                                   lambda desk, pool=pool: _on_ray(desk, items, pool)))  # fmt: skip
    return figures
