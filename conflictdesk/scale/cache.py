"""The judgment cache on a cluster: actors read hits from the driver's database through one
read-only reader actor on the driver's node, and hand their new judgments back with each
result, for the driver to write. Workers never write the database."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conflictdesk.backends.base import JudgmentCache

Judgment = tuple[str, str, str, Any, float]  # stage, model id, input hash, output, ms
LOCAL_LIMIT = 100_000  # an actor's own judgments kept for its later items


def reader_lookup(reader: Any) -> Callable[[str, str, str], Any]:
    """A blocking `get` on the reader actor."""
    import ray

    return lambda stage, model_id, input_hash: ray.get(
        reader.get.remote(stage, model_id, input_hash)
    )


class CacheReader:
    """Runs as a Ray actor on the driver's node: `get` on a read-only view of the database."""

    def __init__(self, open_cache: Callable[[], JudgmentCache]) -> None:
        self.cache = open_cache()

    def get(self, stage: str, model_id: str, input_hash: str) -> Any | None:
        return self.cache.get(stage, model_id, input_hash)


class WorkerCache:
    """The `JudgmentCache` an actor's models see: its own new judgments first, then `lookup`
    (the driver's database through the reader; None: its own only); `put` only records
    (see `drain`)."""

    def __init__(self, lookup: Callable[[str, str, str], Any] | None) -> None:
        self.lookup = lookup
        self.local: dict[tuple[str, str, str], Any] = {}
        self.pending: list[Judgment] = []

    def get(self, stage: str, model_id: str, input_hash: str) -> Any | None:
        key = (stage, model_id, input_hash)
        if key in self.local:
            return self.local[key]
        return None if self.lookup is None else self.lookup(stage, model_id, input_hash)

    def put(self, stage: str, model_id: str, input_hash: str, output: Any, ms: float) -> None:
        if len(self.local) >= LOCAL_LIMIT:
            self.local.clear()
        self.local[(stage, model_id, input_hash)] = output
        self.pending.append((stage, model_id, input_hash, output, ms))

    def drain(self) -> list[Judgment]:
        """The judgments made since the last drain, for the driver to store."""
        made, self.pending = self.pending, []
        return made
