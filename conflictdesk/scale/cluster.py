"""Connecting to a Ray cluster, or starting a local one for the length of a batch."""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from conflictdesk.errors import CapabilityError, UsageError

LOCAL = "local"  # `--ray` without an address: start a local cluster


@dataclass(frozen=True)
class RayOptions:
    """Where to run (`address` None or "local": a local cluster of `workers` actors' CPUs) and
    how: `workers` actors, each reserving `cpus_per_worker` CPUs and running its models on as
    many threads; `batch_size` items per actor call."""

    address: str | None = None
    workers: int = 1
    cpus_per_worker: int = 1
    batch_size: int = 4

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise UsageError("--ray-workers must be at least 1")
        if self.cpus_per_worker < 1:
            raise UsageError("--ray-cpus-per-worker must be at least 1")
        if self.batch_size < 1:
            raise UsageError("--ray-batch-size must be at least 1")

    @property
    def local(self) -> bool:
        return self.address in (None, LOCAL)


def ray_available() -> bool:
    """Whether the `scale` extra (Ray with Ray Data) is installed."""
    return importlib.util.find_spec("ray") is not None


def require_ray() -> Any:
    """The `ray` module, or a CapabilityError naming the install command."""
    if not ray_available():
        raise CapabilityError("--ray needs Ray: pip install 'conflictdesk[scale]'")
    import ray

    return ray


@contextmanager
def connect(options: RayOptions) -> Iterator[Any]:
    """Ray, initialised for `options`; a cluster this call started is shut down on exit, and
    one already initialised in this process (a test's, an application's) is used as it is."""
    ray = require_ray()
    if ray.is_initialized():
        yield ray
        return
    common = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
    if options.local:
        ray.init(num_cpus=options.workers * options.cpus_per_worker, **common)
    else:
        ray.init(address=options.address, **common)
    try:
        yield ray
    finally:
        ray.shutdown()
