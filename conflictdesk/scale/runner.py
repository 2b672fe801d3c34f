"""Ray Data over a list of tasks: one actor per model set, results back in input order.

A task is any picklable callable `task(backends, cache) -> value`; the application layer
defines them (`conflictdesk/app/scale.py`). Each actor loads its back-ends once, in its
constructor, and runs batches of tasks; a task's `ConflictDeskError` comes back as that
item's error, as it would in a plain run."""

from __future__ import annotations

import logging
import math
import pickle
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from conflictdesk.backends.base import Backends, JudgmentCache
from conflictdesk.errors import ConflictDeskError
from conflictdesk.scale.cache import CacheReader, Judgment, WorkerCache, reader_lookup
from conflictdesk.scale.cluster import RayOptions, require_ray

MAX_BLOCKS = 1000

Task = Callable[[Backends, JudgmentCache | None], Any]


@dataclass(frozen=True)
class WorkerSetup:
    """What every actor needs: how to load its model set, and how the driver's node opens a
    read-only judgment cache (None: no cache, `--no-cache`)."""

    load_backends: Callable[[tuple[str, ...]], Backends]
    roles: tuple[str, ...]
    open_cache: Callable[[], JudgmentCache] | None = None


@dataclass(frozen=True)
class TaskResult:
    """One task's value, or the error it raised, and the judgments it made (to be stored)."""

    value: Any = None
    error: ConflictDeskError | None = None
    judgments: list[Judgment] = field(default_factory=list)


class ModelWorker:
    """A Ray Data callable class: the back-ends load once per actor."""

    def __init__(self, setup: WorkerSetup, reader: Any = None) -> None:
        self.backends = setup.load_backends(setup.roles)
        self.cache = WorkerCache(reader_lookup(reader)) if reader is not None else None

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        results = [pickle.dumps(self.run(pickle.loads(task))) for task in batch["task"]]
        return {"index": batch["index"], "result": _objects(results)}

    def run(self, task: Task) -> TaskResult:
        try:
            value = task(self.backends, self.cache)
        except ConflictDeskError as exc:
            return TaskResult(error=exc, judgments=self._drain())
        return TaskResult(value=value, judgments=self._drain())

    def _drain(self) -> list[Judgment]:
        return self.cache.drain() if self.cache is not None else []


def map_in_order(
    tasks: Sequence[Task], setup: WorkerSetup, options: RayOptions
) -> Generator[TaskResult, None, None]:
    """Run `tasks` on a pool of `options.workers` actors (Ray must be initialised, see
    `connect`); yields each task's result in the order of `tasks`, as results arrive."""
    if not tasks:
        return
    require_ray()
    import ray.data

    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.ERROR)  # no per-dataset notes on stderr
    rows = [{"index": i, "task": pickle.dumps(task)} for i, task in enumerate(tasks)]
    blocks = max(min(len(rows), options.workers), math.ceil(len(rows) / options.batch_size))
    reader = _reader(ray, setup)
    pool = ray.data.ActorPoolStrategy(size=options.workers)
    dataset = ray.data.from_items(rows, override_num_blocks=min(MAX_BLOCKS, blocks)).map_batches(
        ModelWorker,
        fn_constructor_kwargs={"setup": setup, "reader": reader},
        batch_size=options.batch_size,
        compute=pool,
        num_cpus=options.cpus_per_worker,
        batch_format="numpy",
    )
    ordered = _in_order(iter(dataset.iter_rows()))
    try:
        yield from ordered
    finally:
        ordered.close()
        if reader is not None:
            ray.kill(reader)


def _in_order(rows: Iterator[dict[str, Any]]) -> Generator[TaskResult, None, None]:
    try:
        for expected, row in enumerate(rows):
            if int(row["index"]) != expected:  # preserve_order rules this out; never pass silently
                raise RuntimeError(f"Ray returned item {row['index']} where {expected} was due")
            yield pickle.loads(row["result"])
    finally:
        getattr(rows, "close", lambda: None)()


def _reader(ray: Any, setup: WorkerSetup) -> Any:
    """The read-only cache actor, pinned to this (the driver's) node, or None."""
    if setup.open_cache is None:
        return None
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
    actor = ray.remote(num_cpus=0, scheduling_strategy=here)(CacheReader)
    return actor.remote(setup.open_cache)


def _objects(values: list[bytes]) -> Any:
    import numpy as np

    column = np.empty(len(values), dtype=object)
    column[:] = values
    return column
