"""Stable hashes of model inputs, the judgment cache's keys."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def input_hash(*parts: Any) -> str:
    """sha256 of a canonical JSON encoding of `parts`."""
    blob = json.dumps(parts, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
