"""Model files that could run code or build Python objects when loaded are refused by their
content, not only their name: pickles of every protocol (0 and 1 have no header), zip archives
holding pickles (PyTorch checkpoints), and numpy arrays of Python objects (.npy, .npz)."""

from __future__ import annotations

import pickletools
import zipfile
from pathlib import Path
from typing import IO

import numpy as np

from conflictdesk.errors import ModelIntegrityError

REFUSED_SUFFIXES = (".pkl", ".pickle", ".pt", ".pth", ".bin.pkl", ".joblib", ".ckpt")
NPY_MAGIC = b"\x93NUMPY"
# Opcodes that import a callable: pickle.load runs the import (and any call after it) even
# when the stream breaks off later, so one of them refuses the file.
_IMPORT_OPCODES = {"GLOBAL", "STACK_GLOBAL", "INST", "EXT1", "EXT2", "EXT4"}
_MAX_OPCODES = 10_000  # this many valid opcodes in a row is a pickle, whatever comes next


def looks_like_pickle(handle: IO[bytes]) -> bool:
    """True when the stream parses as pickle opcodes up to STOP, or holds an opcode that
    imports before it stops parsing (pickle.load would run it before failing)."""
    head = handle.read(2)
    if len(head) == 2 and head[0] == 0x80 and 2 <= head[1] <= 5:  # PROTO, protocols 2-5
        return True
    handle.seek(0)
    count = 0
    try:
        for opcode, _, _ in pickletools.genops(handle):
            count += 1
            if opcode.name in _IMPORT_OPCODES or count >= _MAX_OPCODES:
                return True
            if opcode.name == "STOP":
                return count > 1
    except Exception:  # noqa: BLE001 - any parse failure: not a pickle from here on
        return False
    return False


def npy_has_objects(handle: IO[bytes]) -> bool:
    """True when an .npy stream's dtype holds Python objects (loading it needs pickle) or its
    header cannot be read as an array's."""
    try:
        version = np.lib.format.read_magic(handle)
        if version == (1, 0):
            _, _, dtype = np.lib.format.read_array_header_1_0(handle)
        else:
            _, _, dtype = np.lib.format.read_array_header_2_0(handle)
    except (ValueError, OSError, SyntaxError):
        return True
    return bool(dtype.hasobject)


def refusal(path: Path) -> str | None:
    """Why `path` must not be loaded, or None when its format holds only data."""
    if path.suffix.lower() in REFUSED_SUFFIXES:
        return "a pickle-like format can execute code"
    if not path.is_file():
        return None
    with open(path, "rb") as handle:
        if handle.read(len(NPY_MAGIC)) == NPY_MAGIC:
            handle.seek(0)
            return (
                "a numpy array of Python objects needs pickle" if npy_has_objects(handle) else None
            )
        handle.seek(0)
        if looks_like_pickle(handle):
            return "a pickle can execute code"
    if zipfile.is_zipfile(path):
        return _zip_refusal(path)
    return None


def _zip_refusal(path: Path) -> str | None:
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            if name.endswith((".pkl", ".pickle")):
                return f"the archive holds a pickle ({name})"
            with archive.open(name) as member:
                if name.endswith(".npy") and npy_has_objects(member):
                    return f"{name} is an array of Python objects (needs pickle)"
                if not name.endswith(".npy") and looks_like_pickle(member):
                    return f"the archive member {name} is a pickle"
    return None


def refuse_code_formats(path: Path) -> None:
    """Raise ModelIntegrityError when `path` could run code or build objects when loaded."""
    reason = refusal(path)
    if reason:
        raise ModelIntegrityError(f"refusing {path}: {reason}")


def load_npz_arrays(path: Path) -> dict[str, np.ndarray]:
    """The arrays of an .npz of plain numbers, refused (never unpickled) otherwise."""
    refuse_code_formats(path)
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (ValueError, OSError, zipfile.BadZipFile) as exc:
        raise ModelIntegrityError(
            f"refusing {path}: not an archive of numeric arrays ({exc})"
        ) from exc
