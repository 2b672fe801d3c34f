"""A counting front for the optional JudgmentCache: every model judgment goes through it."""

from __future__ import annotations

from typing import Any

from conflictdesk.backends.base import JudgmentCache
from conflictdesk.hashing import input_hash
from conflictdesk.scoring.results import CacheUse


class Ledger:
    """Looks judgments up under (stage, model id, input hash) and counts what was served.

    With `cache=None` nothing is stored and every lookup misses."""

    def __init__(self, cache: JudgmentCache | None = None) -> None:
        self.cache = cache
        self.hits = 0
        self.total = 0

    @staticmethod
    def key(*parts: Any) -> str:
        return input_hash(*parts)

    def get(self, stage: str, model_id: str, key: str) -> Any | None:
        self.total += 1
        if self.cache is None:
            return None
        value = self.cache.get(stage, model_id, key)
        if value is not None:
            self.hits += 1
        return value

    def put(self, stage: str, model_id: str, key: str, output: Any, ms: float) -> None:
        if self.cache is not None:
            self.cache.put(stage, model_id, key, output, ms)

    def use(self) -> CacheUse:
        return CacheUse(hits=self.hits, total=self.total)
