"""GGUF files: what their header says (architecture, quantisation, context length) and where
people keep them (LM Studio, Ollama, the Hugging Face cache, CONFLICTDESK_MODEL_PATH).

The header is parsed here in plain Python (no llama.cpp needed), reading only the key-value
section and refusing absurd lengths, so a hostile or truncated file gives an error, not a hang."""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from conflictdesk.errors import InputError

MAGIC = b"GGUF"
MAX_STRING = 1 << 20  # no header string we read is longer than 1 MiB
MAX_KEYS = 100_000
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
            10: "<Q", 11: "<q", 12: "<d"}  # fmt: skip
_STRING, _ARRAY = 8, 9
# llama.cpp's LLAMA_FTYPE values (general.file_type) for the common quantisations.
FILE_TYPES = {0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1",
              10: "Q2_K", 11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S",
              15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 32: "BF16"}  # fmt: skip
WANTED = ("general.architecture", "general.name", "general.file_type")


@dataclass(frozen=True)
class GGUFInfo:
    """What a GGUF header says about the model in it."""

    path: str
    size_bytes: int
    version: int
    architecture: str | None
    name: str | None
    quantisation: str | None
    context_length: int | None
    found_in: str = ""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _read(handle: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    data = handle.read(size)
    if len(data) != size:
        raise InputError("truncated GGUF header")
    return struct.unpack(fmt, data)[0]


def _string(handle: BinaryIO) -> str:
    length = _read(handle, "<Q")
    if length > MAX_STRING:
        raise InputError(f"GGUF header string of {length} bytes: not a valid file")
    data = handle.read(length)
    if len(data) != length:
        raise InputError("truncated GGUF header")
    return data.decode("utf-8", errors="replace")


def _value(handle: BinaryIO, kind: int) -> Any:
    if kind in _SCALARS:
        return _read(handle, _SCALARS[kind])
    if kind == _STRING:
        return _string(handle)
    if kind == _ARRAY:
        item_kind, count = _read(handle, "<I"), _read(handle, "<Q")
        if item_kind in _SCALARS:  # skip without decoding
            size = struct.calcsize(_SCALARS[item_kind]) * count
            handle.seek(size, os.SEEK_CUR)
            return None
        for _ in range(count):
            _value(handle, item_kind)
        return None
    raise InputError(f"unknown GGUF value type {kind}")


def read_header(path: Path) -> GGUFInfo:
    """Parse the header of the GGUF at `path` (InputError if it is not one)."""
    path = Path(path)
    with open(path, "rb") as handle:
        if handle.read(4) != MAGIC:
            raise InputError(f"{path} is not a GGUF file (no GGUF magic)")
        version = _read(handle, "<I")
        if version == 1:
            raise InputError(f"{path}: GGUF version 1 is not supported")
        _read(handle, "<Q")  # tensor count
        keys = _read(handle, "<Q")
        if keys > MAX_KEYS:
            raise InputError(f"{path}: {keys} header keys: not a valid file")
        meta: dict[str, Any] = {}
        for _ in range(keys):
            key, kind = _string(handle), _read(handle, "<I")
            value = _value(handle, kind)
            if key in WANTED or key.endswith(".context_length"):
                meta[key] = value
    file_type = meta.get("general.file_type")
    context = next((v for k, v in meta.items() if k.endswith(".context_length")), None)
    return GGUFInfo(
        path=str(path), size_bytes=path.stat().st_size, version=version,
        architecture=meta.get("general.architecture"), name=meta.get("general.name"),
        quantisation=FILE_TYPES.get(file_type, f"file_type {file_type}")
        if file_type is not None else None,
        context_length=int(context) if context is not None else None,
    )  # fmt: skip


# -- discovery -----------------------------------------------------------------------------


def search_roots(
    env: dict[str, str] | None = None, home: Path | None = None
) -> list[tuple[str, Path]]:
    """(label, folder) of the places GGUFs are usually kept, existing or not."""
    env = dict(os.environ if env is None else env)
    home = home or Path.home()
    roots = [("CONFLICTDESK_MODEL_PATH", Path(p)) for p in
             env.get("CONFLICTDESK_MODEL_PATH", "").split(os.pathsep) if p]  # fmt: skip
    roots += [("lm-studio", home / ".lmstudio" / "models"),
              ("lm-studio", home / ".cache" / "lm-studio" / "models")]  # fmt: skip
    hf = env.get("HF_HUB_CACHE") or (
        str(Path(env["HF_HOME"]) / "hub") if env.get("HF_HOME") else None
    )
    roots.append(("huggingface", Path(hf) if hf else home / ".cache" / "huggingface" / "hub"))
    return roots


def ollama_root(env: dict[str, str] | None = None, home: Path | None = None) -> Path:
    env = dict(os.environ if env is None else env)
    return (
        Path(env["OLLAMA_MODELS"])
        if env.get("OLLAMA_MODELS")
        else (home or Path.home()) / ".ollama" / "models"
    )


def ollama_models(root: Path) -> Iterator[tuple[str, Path]]:
    """(name:tag, blob path) for each Ollama manifest whose model layer is a GGUF blob."""
    manifests = root / "manifests"
    if not manifests.is_dir():
        return
    for manifest in sorted(p for p in manifests.rglob("*") if p.is_file()):
        try:
            layers = json.loads(manifest.read_text("utf-8")).get("layers", [])
        except (OSError, ValueError, AttributeError):
            continue
        for layer in layers:
            if isinstance(layer, dict) and layer.get("mediaType", "").endswith(".model"):
                blob = root / "blobs" / str(layer.get("digest", "")).replace(":", "-")
                if blob.is_file():
                    yield f"{manifest.parent.name}:{manifest.name}", blob


def discover(
    env: dict[str, str] | None = None, home: Path | None = None
) -> tuple[list[GGUFInfo], list[str]]:
    """Every readable GGUF in the usual places, each once (by resolved path), and a note per
    file that could not be read."""
    seen: set[Path] = set()
    found: list[GGUFInfo] = []
    problems: list[str] = []

    def add(label: str, path: Path) -> None:
        real = path.resolve()
        if real in seen:
            return
        seen.add(real)
        try:
            info = read_header(real)
        except (OSError, InputError) as exc:
            problems.append(f"{path}: {exc}")
            return
        found.append(GGUFInfo(**{**info.__dict__, "path": str(path), "found_in": label}))

    for label, root in search_roots(env, home):
        if root.is_dir():
            for path in sorted(root.rglob("*.gguf")):
                if path.is_file():
                    add(label, path)
    for name, blob in ollama_models(ollama_root(env, home)):
        add(f"ollama {name}", blob)
    return found, problems
