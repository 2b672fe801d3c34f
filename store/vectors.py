"""Collection vectors as a memory-mapped float32 matrix file beside the database, so a query
touches them without a load step.

One folder per database (`<db>.vectors/`); per (collection, model) three files: the matrix
(`.npy`), its passage ids (`.ids.npy`) and a manifest (`.json`: format version, collection
generation, row count, dimension and a checksum of the ids). Files are written to temporary
names and renamed, the manifest last, so a reader sees either the old set or the new one. A
file set is used only when its manifest matches the store (the collection's generation, bumped by every
change of its passages or vectors, and the first and last passage id of its stored vectors,
two index lookups) and the files agree with the manifest (row count, dimension, a sha256 of
the ids); otherwise it is stale and rebuilt from SQLite, which stays the source of truth."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Fingerprint:
    """What the store says the file must hold."""

    generation: int
    id_min: int
    id_max: int

    def to_json(self) -> dict[str, int]:
        return {"generation": self.generation, "id_min": self.id_min, "id_max": self.id_max}


def vector_dir(db_path: str) -> Path | None:
    """Where a database's vector files live (None for an in-memory database)."""
    if db_path == ":memory:" or not db_path:
        return None
    return Path(db_path + ".vectors")


def _paths(folder: Path, collection_id: int, model_id: str) -> tuple[Path, Path, Path]:
    """(matrix, ids, manifest) file paths of one collection and model."""
    stem = f"c{collection_id}-" + re.sub(r"[^A-Za-z0-9_-]", "_", model_id)
    return folder / f"{stem}.npy", folder / f"{stem}.ids.npy", folder / f"{stem}.json"


def _ids_digest(ids: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(ids, dtype="<i8").tobytes()).hexdigest()


def read_vectors(
    folder: Path, collection_id: int, model_id: str, expected: Fingerprint
) -> tuple[np.ndarray, np.ndarray] | None:
    """(ids, memory-mapped matrix) when a current file set exists, else None (missing,
    another format version, stale or damaged)."""
    matrix_path, ids_path, manifest_path = _paths(folder, collection_id, model_id)
    try:
        manifest = json.loads(manifest_path.read_text("utf-8"))
        if manifest.get("version") != FORMAT_VERSION or manifest.get("model") != model_id:
            return None
        if manifest.get("fingerprint") != expected.to_json():
            return None
        ids = np.load(ids_path, allow_pickle=False)
        matrix = np.load(matrix_path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, json.JSONDecodeError):
        return None
    count = manifest.get("count")
    if matrix.shape != (count, manifest.get("dim")) or len(ids) != count:
        return None
    if count and (int(ids[0]) != expected.id_min or int(ids[-1]) != expected.id_max):
        return None
    if _ids_digest(ids) != manifest.get("ids_sha256"):
        return None
    return ids, matrix


def write_vectors(
    folder: Path,
    collection_id: int,
    model_id: str,
    ids: np.ndarray,
    matrix: np.ndarray,
    fingerprint: Fingerprint,
) -> None:
    """Write the file set atomically (temporary names, fsync, rename; the manifest last)."""
    folder.mkdir(parents=True, exist_ok=True)
    matrix_path, ids_path, manifest_path = _paths(folder, collection_id, model_id)
    dim = int(matrix.shape[1]) if matrix.ndim == 2 else 0
    _atomic_npy(matrix_path, np.ascontiguousarray(matrix, dtype="<f4"))
    _atomic_npy(ids_path, np.ascontiguousarray(ids, dtype="<i8"))
    manifest = {"version": FORMAT_VERSION, "model": model_id, "dim": dim, "count": len(ids),
                "fingerprint": fingerprint.to_json(), "ids_sha256": _ids_digest(ids)}  # fmt: skip
    _atomic_bytes(manifest_path, json.dumps(manifest).encode("utf-8"))


def _atomic_npy(path: Path, array: np.ndarray) -> None:
    temporary = path.with_name(path.name + f".tmp{os.getpid()}")
    with open(temporary, "wb") as handle:
        np.save(handle, array, allow_pickle=False)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def _atomic_bytes(path: Path, data: bytes) -> None:
    temporary = path.with_name(path.name + f".tmp{os.getpid()}")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
