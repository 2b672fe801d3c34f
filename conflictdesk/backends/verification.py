"""Checking model files at load: every file's format, and its sha256 against the manifest.

Files up to HASH_AT_LOAD_BYTES are hashed on every load. Larger ones (multi-GB GGUFs) may be
vouched for by a stamp from an earlier full hash, keyed by the file's inode, size, mtime and
ctime (any change forces a re-hash) and signed with a per-user key kept apart from the stamps:
editing verified.json by hand gives a stamp whose signature fails, so the file is re-hashed."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
from pathlib import Path
from typing import Any

from conflictdesk.backends.formats import refuse_code_formats
from conflictdesk.backends.manifest import ModelEntry

HASH_AT_LOAD_BYTES = 100 * 2**20


class VerificationCache:
    """Signed stamps of large files already hashed (see the module docstring)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.stamps: dict[str, dict[str, Any]] = {}
        self._key = _load_key(path.with_name("stamp.key")) if path else secrets.token_bytes(32)
        if path and path.exists():
            try:
                self.stamps = json.loads(path.read_text("utf-8"))
            except (OSError, ValueError):
                self.stamps = {}

    @classmethod
    def default(cls, cache_dir: Path | None = None) -> VerificationCache:
        """The stamps in the cache folder (the `cache_dir` setting unless one is given)."""
        if cache_dir is None:
            from conflictdesk.config import load_settings

            cache_dir = load_settings().cache_dir
        return cls(Path(cache_dir) / "verified.json" if cache_dir else None)

    def fresh(self, path: Path, expected: str) -> bool:
        """True when a signed stamp says `path`, unchanged since, had sha256 `expected`."""
        stamp = self.stamps.get(str(path.resolve()))
        if not isinstance(stamp, dict):
            return False
        body = {**_stat_key(path), "sha256": expected}
        return hmac.compare_digest(str(stamp.get("mac", "")), self._mac(path, body))

    def record(self, path: Path, sha256: str) -> None:
        body = {**_stat_key(path), "sha256": sha256}
        self.stamps[str(path.resolve())] = {**body, "mac": self._mac(path, body)}

    def save(self) -> None:
        if not self.path:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # A temporary name of this process's own: processes verifying at once (Ray actors, two
        # CLIs) must not rename one another's half-written file away.
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(self.stamps, indent=1), "utf-8")
        os.replace(tmp, self.path)

    def _mac(self, path: Path, body: dict[str, Any]) -> str:
        message = json.dumps([str(path.resolve()), body], sort_keys=True).encode("utf-8")
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()


def _load_key(path: Path) -> bytes:
    """The per-user signing key (32 random bytes, mode 0600), created on first use."""
    try:
        key = path.read_bytes()
        if len(key) == 32:
            return key
    except OSError:
        pass
    key = secrets.token_bytes(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key)
    except OSError:
        pass  # an unwritable cache folder: stamps of this process only, large files re-hashed
    return key


def _stat_key(path: Path) -> dict[str, int]:
    stat = path.stat()
    return {"inode": stat.st_ino, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
            "ctime_ns": stat.st_ctime_ns}  # fmt: skip


def file_path(rel: str, base: Path) -> Path:
    return Path(rel) if Path(rel).is_absolute() else base / rel


def verify_entry(entry: ModelEntry, base: Path, cache: VerificationCache | None = None) -> None:
    """Every file's format (no pickles, no object arrays, by content) and sha256; only files
    over HASH_AT_LOAD_BYTES may skip the hash, on a valid signed stamp in `cache`."""
    for rel in entry.files:
        path = file_path(rel, base)
        if path.exists():
            refuse_code_formats(path)
    pending = {rel: sha for rel, sha in entry.files.items() if not _vouched(rel, sha, base, cache)}
    if pending:
        ModelEntry(**{**entry.__dict__, "files": pending}).verify(base)
        if cache:
            for rel, sha in pending.items():
                if file_path(rel, base).stat().st_size > HASH_AT_LOAD_BYTES:
                    cache.record(file_path(rel, base), sha)
            cache.save()


def _vouched(rel: str, sha: str, base: Path, cache: VerificationCache | None) -> bool:
    path = file_path(rel, base)
    if cache is None or not path.is_file() or path.stat().st_size <= HASH_AT_LOAD_BYTES:
        return False
    return cache.fresh(path, sha)
