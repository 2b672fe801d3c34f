"""Ingest's embedding step on Ray: a pool of actors, each holding the embedder once, embeds
the ingest's batches of passages side by side; the vectors come back in batch order."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from conflictdesk.backends.base import Backends
from conflictdesk.scale.cluster import RayOptions, require_ray


class EmbedActor:
    """Runs as a Ray actor: the embedder, loaded once."""

    def __init__(self, load_backends: Callable[[tuple[str, ...]], Backends]) -> None:
        self.embedder = load_backends(("embedder",)).embedder

    def describe(self) -> tuple[str, int]:
        return self.embedder.model_id, self.embedder.dim

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.embedder.embed(texts)


class RayEmbedder:
    """The `Embedder` protocol over `options.workers` actors (Ray must be initialised), and
    `embed_stream`, which keeps every actor busy on whole batches, in order."""

    def __init__(
        self, load_backends: Callable[[tuple[str, ...]], Backends], options: RayOptions
    ) -> None:
        ray = require_ray()
        actor = ray.remote(num_cpus=options.cpus_per_worker)(EmbedActor)
        self.actors = [actor.remote(load_backends) for _ in range(options.workers)]
        self.model_id, self.dim = ray.get(self.actors[0].describe.remote())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return next(self.embed_stream([list(texts)]))

    def embed_stream(self, batches: Iterable[list[str]]) -> Iterator[np.ndarray]:
        """Each batch embedded whole by one actor (an int8 embedder's rows depend on the batch
        they ran in), round robin, at most two batches per actor in flight; yields in order."""
        import ray

        in_flight: deque[Any] = deque()
        for number, texts in enumerate(batches):
            actor = self.actors[number % len(self.actors)]
            in_flight.append(actor.embed.remote(texts))
            if len(in_flight) >= 2 * len(self.actors):
                yield ray.get(in_flight.popleft())
        while in_flight:
            yield ray.get(in_flight.popleft())

    def close(self) -> None:
        import ray

        for actor in self.actors:
            ray.kill(actor)
