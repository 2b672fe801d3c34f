"""Train the MPNet tier on a lent GPU machine within what a call may carry.

A lent machine (docs/device_runbook.md) takes at most 64 MiB per call and gives back at most 8
files of 16 MiB; its Python has torch and transformers but no PyPI, and it stays warm only
seconds between calls. So the trip is packed here: the recipe's rows tokenized once
(`rows.npz`: uint16 token ids, offsets, labels, held-out groups — the same rows and order
`nli_recipe.build_rows` gives the CPU run), the base model's weights in float16 (lossless for
pretrained weights at this scale) split into parts for consecutive calls, and a manifest with
every part's sha256. On the machine the parts are joined and checked, the ordinary training
loop runs (`nli_mpnet.MPNetRun`, `--device cuda`, bf16 autocast), and the weights come back
as float16 parts without the frozen word embeddings, which `unpack_result` restores from the
local base: the result is an ordinary checkpoint for `--stage export`.

Training only: torch and safetensors are imported inside functions, never by the product."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.backends.manifest import sha256_file

# A call carries at most 64 MiB (67,108,864 bytes) with the working tree, whose code is about
# 6 MB once the shipped model folders are left out (docs/device_runbook.md): the kit's files
# take at most CALL_BYTES per call.
CALL_BYTES = 59_000_000
RESULT_PART = 16_000_000  # a returned file may hold 16 MiB (16,777,216 bytes)
RESULT_FILES_PER_CALL = 4  # 64 MiB may come back per call
MODEL_FILE = "model.safetensors"
SMALL_FILES = ("config.json", "tokenizer.json")
WORD_EMBEDDINGS = "encoder.embeddings.word_embeddings.weight"
BASE_WORD_EMBEDDINGS = "embeddings.word_embeddings.weight"


@dataclass(frozen=True)
class PackedRows:
    """Tokenized rows as `nli_train.encode` gives them (ids, no token types) and labels."""

    encoded: list[tuple[list[int], list[int]]]
    labels: list[int]
    held: list[tuple[list[int], list[int]]]
    held_labels: np.ndarray
    held_groups: np.ndarray


sha256 = sha256_file


def _flatten(encoded) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.array([len(ids) for ids, _ in encoded], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    ids = np.fromiter((t for ids, _ in encoded for t in ids), dtype=np.int64, count=offsets[-1])
    if ids.size and (ids.min() < 0 or ids.max() > np.iinfo(np.uint16).max):
        raise ValueError("token ids do not fit in 16 bits")
    return ids.astype(np.uint16), offsets


def _unflatten(ids: np.ndarray, offsets: np.ndarray) -> list[tuple[list[int], list[int]]]:
    flat = ids.astype(np.int64).tolist()
    return [
        (flat[a:b], []) for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)
    ]


def save_rows(path: Path, encoded, labels, held, held_labels, held_groups) -> None:
    train_ids, train_offsets = _flatten(encoded)
    held_ids, held_offsets = _flatten(held)
    np.savez_compressed(
        path,
        train_ids=train_ids,
        train_offsets=train_offsets,
        labels=np.asarray(labels, dtype=np.int8),
        held_ids=held_ids,
        held_offsets=held_offsets,
        held_labels=np.asarray(held_labels, dtype=np.int8),
        held_groups=np.asarray(held_groups, dtype=str),
    )


def load_rows(path: Path) -> PackedRows:
    with np.load(path) as data:
        return PackedRows(
            _unflatten(data["train_ids"], data["train_offsets"]),
            data["labels"].astype(np.int64).tolist(),
            _unflatten(data["held_ids"], data["held_offsets"]),
            data["held_labels"].astype(np.int64),
            data["held_groups"].astype(str),
        )


def split(path: Path, out: Path, part_bytes: int, prefix: str, first_bytes: int = 0) -> list[Path]:
    """`path` cut into numbered parts `prefix.partNN` of at most `part_bytes` in `out` (the
    first of at most `first_bytes`, when given: it shares its call with other files)."""
    out.mkdir(parents=True, exist_ok=True)
    parts = []
    with open(path, "rb") as handle:
        for n in range(10_000):
            block = handle.read(first_bytes if n == 0 and first_bytes > 0 else part_bytes)
            if not block:
                break
            part = out / f"{prefix}.part{n:02d}"
            part.write_bytes(block)
            parts.append(part)
    return parts


def join(folder: Path, prefix: str, dest: Path, expected_sha256: str | None = None) -> Path:
    """The parts `prefix.partNN` of `folder` joined in order into `dest`; its sha256 checked
    when given (a part lost or cut short on the way fails here, not in training)."""
    parts = sorted(folder.glob(f"{prefix}.part[0-9][0-9]"))
    if not parts:
        raise FileNotFoundError(f"no parts {prefix}.partNN in {folder}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(dest.suffix + ".tmp")
    with open(tmp, "wb") as out:
        for part in parts:
            with open(part, "rb") as handle:
                shutil.copyfileobj(handle, out, 1 << 24)
    if expected_sha256 is not None and sha256(tmp) != expected_sha256:
        tmp.unlink()
        raise ValueError(
            f"{dest.name}: joined parts do not match the sha256 packed ({len(parts)} parts)"
        )
    tmp.replace(dest)
    return dest


def pack(args: Any, base: Path, out: Path, call_bytes: int = CALL_BYTES) -> dict:
    """The kit for the trip into `out`: rows.npz, the base's small files, its weights in
    float16 parts cut so that each upload call carries at most `call_bytes` (the first
    part rides with the rows), kit.json (sha256 of everything, the recipe's arguments, the
    calls)."""
    from safetensors.numpy import load_file, save_file

    from conflictdesk.training import nli_train
    from conflictdesk.training.nli_mpnet import tokenizer
    from conflictdesk.training.nli_recipe import build_rows

    out.mkdir(parents=True, exist_ok=True)
    rows = build_rows(args)
    tok = tokenizer(base, args.max_length)
    save_rows(
        out / "rows.npz",
        nli_train.encode(tok, rows.train),
        [r.label for r in rows.train],
        nli_train.encode(tok, rows.held),
        [r.label for r in rows.held],
        [nli_train.heldout_group(r.source) for r in rows.held],
    )
    for name in SMALL_FILES:
        shutil.copyfile(base / name, out / name)
    weights = {k: v.astype(np.float16) if v.dtype == np.float32 else v
               for k, v in load_file(str(base / MODEL_FILE)).items()}  # fmt: skip
    half = out / "base16.safetensors"
    save_file(weights, str(half))
    room = call_bytes - 4096  # kit.json rides in every call
    first = room - sum((out / name).stat().st_size for name in ("rows.npz", *SMALL_FILES))
    if first <= 0:
        raise ValueError(f"the rows alone exceed a call's {call_bytes} bytes")
    parts = split(half, out, room, "base16", first_bytes=first)
    kit = {
        "rows": {
            "file": "rows.npz",
            "sha256": sha256(out / "rows.npz"),
            "train": len(rows.train),
            "held": len(rows.held),
            **rows.counts,
        },
        "base16": {"sha256": sha256(half), "parts": [p.name for p in parts]},
        "small": {name: sha256(out / name) for name in SMALL_FILES},
        "recipe": {k: v for k, v in vars(args).items() if isinstance(v, (int, float, str))},
    }
    half.unlink()
    kit["calls"] = upload_calls(out, kit, room)
    (out / "kit.json").write_text(json.dumps(kit, indent=1), "utf-8")
    return kit


def upload_calls(folder: Path, kit: dict, budget: int) -> list[list[str]]:
    """The files of each upload call, in order: the small files and the rows first, then
    the weight parts, each call within `budget` bytes (kit.json rides in every call)."""
    files = ["rows.npz", *SMALL_FILES, *kit["base16"]["parts"]]
    calls: list[list[str]] = [[]]
    used = 0
    for name in files:
        size = (folder / name).stat().st_size
        if calls[-1] and used + size > budget:
            calls.append([])
            used = 0
        calls[-1].append(name)
        used += size
    return calls


def assemble_base(kit_dir: Path, dest: Path) -> Path:
    """On the machine: the base model folder (float16 weights, config, tokenizer) from the
    parts gathered in `kit_dir`, every file checked against kit.json."""
    kit = json.loads((kit_dir / "kit.json").read_text("utf-8"))
    dest.mkdir(parents=True, exist_ok=True)
    for name, digest in kit["small"].items():
        if sha256(kit_dir / name) != digest:
            raise ValueError(f"{name} does not match kit.json")
        shutil.copyfile(kit_dir / name, dest / name)
    if sha256(kit_dir / kit["rows"]["file"]) != kit["rows"]["sha256"]:
        raise ValueError("rows.npz does not match kit.json")
    join(kit_dir, "base16", dest / MODEL_FILE, kit["base16"]["sha256"])
    return dest


def pack_result(state: dict, out: Path, part_bytes: int = RESULT_PART) -> dict:
    """A trained checkpoint ({"model", "step", ...}) as float16 parts in `out`, without the
    frozen word embeddings (restored from the base by `unpack_result`); result.json lists
    the parts, their calls and the sha256."""
    from safetensors.numpy import save_file

    model = {k: v.detach().float().cpu().numpy().astype(np.float16)
             for k, v in state["model"].items() if k != WORD_EMBEDDINGS}  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    whole = out / "result16.safetensors"
    save_file(model, str(whole))
    parts = split(whole, out, part_bytes, "result16")
    names = [p.name for p in parts]
    calls = [
        names[i : i + RESULT_FILES_PER_CALL] for i in range(0, len(names), RESULT_FILES_PER_CALL)
    ]
    result = {"sha256": sha256(whole), "parts": names, "calls": calls,
              "step": int(state.get("step", -1)), "score": state.get("score")}  # fmt: skip
    whole.unlink()
    (out / "result.json").write_text(json.dumps(result, indent=1), "utf-8")
    return result


def unpack_result(parts_dir: Path, base: Path, dest: Path) -> dict:
    """Here: the returned parts joined and checked, float32 again, the word embeddings put
    back from the local base; saved as an ordinary checkpoint for `--stage export`."""
    import torch
    from safetensors.numpy import load_file

    if not (parts_dir / "result.json").is_file():
        raise FileNotFoundError(f"no result.json in {parts_dir}: copy every returned file there")
    result = json.loads((parts_dir / "result.json").read_text("utf-8"))
    whole = join(parts_dir, "result16", parts_dir / "result16.safetensors", result["sha256"])
    model = {k: torch.from_numpy(v.astype(np.float32)) for k, v in load_file(str(whole)).items()}
    base_weights = load_file(str(Path(base) / MODEL_FILE))
    model[WORD_EMBEDDINGS] = torch.from_numpy(base_weights[BASE_WORD_EMBEDDINGS].astype(np.float32))
    state = {"model": model, "step": result["step"], "score": result.get("score")}
    torch.save(state, dest)
    whole.unlink()
    return state


def stage_calls(kit_dir: Path, dest: Path) -> list[list[str]]:
    """Here: one folder per upload call, `dest/callN` holding that call's files and kit.json
    (what `run` call N carries: `.kit/callN`), all staged beforehand so that the calls can
    follow each other while the machine is warm."""
    kit = json.loads((kit_dir / "kit.json").read_text("utf-8"))
    staged = []
    for n, files in enumerate(kit["calls"]):
        folder = dest / f"call{n}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for name in ["kit.json", *files]:
            shutil.copyfile(kit_dir / name, folder / name)
        staged.append(sorted(p.name for p in folder.iterdir()))
    return staged


def device_train(args: Any, train) -> dict:
    """There: the base assembled from the gathered parts in `args.kit`, the run trained
    (`train(args)`, resumable like any run) on the packed rows, its best checkpoint (else the
    final one) packed for the way back under `args.work / "back"`."""
    import torch

    args.base = assemble_base(Path(args.kit), Path(args.kit) / "base")
    args.kit_rows = Path(args.kit) / "rows.npz"
    train(args)
    work = Path(args.work)
    weights = work / ("best.pt" if (work / "best.pt").exists() else "final.pt")
    state = torch.load(weights, weights_only=False, map_location="cpu")
    return {"weights": weights.name, **pack_result(state, work / "back")}


def device_return(work: Path, call: int, out: Path) -> dict:
    """There: the parts of return call `call` and result.json copied into `out` ($OUT)."""
    back = Path(work) / "back"
    if not (back / "result.json").is_file():
        raise FileNotFoundError(f"no packed result under {back}: run --stage device-train first")
    result = json.loads((back / "result.json").read_text("utf-8"))
    if not 0 <= call < len(result["calls"]):
        raise ValueError(f"the way back has calls 0..{len(result['calls']) - 1}, not {call}")
    names = ["result.json", *result["calls"][call]]
    for name in names:
        shutil.copyfile(back / name, Path(out) / name)
    return {"call": call, "of": len(result["calls"]), "files": names}
