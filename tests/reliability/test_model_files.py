"""Model files: nothing that can hold code or Python objects is loaded, and weights are checked
by content at load, whatever the user-writable stamp file says."""

from __future__ import annotations

import json
import pickle
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from conflictdesk.backends import verification
from conflictdesk.backends.formats import load_npz_arrays
from conflictdesk.backends.manifest import Manifest, entry_for, sha256_file
from conflictdesk.backends.registry import load_backends
from conflictdesk.backends.verification import VerificationCache
from conflictdesk.config import Config
from conflictdesk.errors import ModelIntegrityError

NLI = "conflictdesk-nli-minilm-int8"


def make_models(base: Path) -> Path:
    """A models folder whose nli entry holds a real numeric head.npz."""
    folder = base / NLI
    folder.mkdir(parents=True)
    (folder / "model.bin").write_bytes(b"ct2 weights")
    np.savez(folder / "head.npz", weight=np.ones((3, 4), np.float32), bias=np.zeros(3, np.float32))
    manifest = Manifest.load(base / "manifest.json")
    manifest.upsert(entry_for(NLI, "nli", folder, licence="MIT", source="test",
                              rebuild="make nli", base=base))  # fmt: skip
    manifest.save()
    return base


def replace_and_repin(base: Path, name: str, write) -> Path:
    """Replace a file of the nli entry and update the manifest's sha256, as an attacker who
    can write the models folder would."""
    path = base / NLI / name
    write(path)
    manifest = Manifest.load(base / "manifest.json")
    entry = manifest.get(NLI)
    entry.files[f"{NLI}/{name}"] = sha256_file(path)
    manifest.save()
    return path


def load_nli(base: Path, cache: VerificationCache | None = None):
    return load_backends(Config(models_dir=base), roles=("nli",),
                         verification=cache or VerificationCache(None))  # fmt: skip


def write_pickle(protocol: int, path: Path) -> None:
    path.write_bytes(pickle.dumps({"weight": [1.0]}, protocol=protocol))


PAYLOADS = {
    **{f"pickle-protocol-{p}": partial(write_pickle, p) for p in range(6)},
    "os-system-pickle-without-stop": lambda path: path.write_bytes(b"cos\nsystem\n(S'true'\ntR"),
    "object-array-npz": lambda path: np.savez(
        path.with_suffix(""), weight=np.array([{"x": 1}], dtype=object), bias=np.zeros(3)),
}  # fmt: skip


@pytest.mark.parametrize("payload", sorted(PAYLOADS))
def test_code_or_objects_in_weights_are_refused_at_verify_and_load(payload, tmp_path, cli):
    base = make_models(tmp_path / "models")
    replace_and_repin(base, "head.npz", PAYLOADS[payload])
    result = cli("models", "verify", "--models-dir", str(base))
    assert result.code == 1 and "refusing" in result.err and "Traceback" not in result.err
    with pytest.raises(ModelIntegrityError, match="refusing"):
        load_nli(base)
    with pytest.raises(ModelIntegrityError, match="refusing"):
        load_npz_arrays(base / NLI / "head.npz")


def test_numeric_weights_load(tmp_path):
    base = make_models(tmp_path / "models")
    assert load_nli(base).nli.model_id.startswith(NLI)
    assert load_npz_arrays(base / NLI / "head.npz")["weight"].shape == (3, 4)


def forge_stamps(stamps_path: Path, weights: Path, sha: str) -> None:
    """Rewrite verified.json so its stamp matches the tampered file's stat and the manifest's
    sha256 (keeping the old signature: the key is not in this file)."""
    stamps = json.loads(stamps_path.read_text())
    st = weights.stat()
    stamps[str(weights.resolve())].update(
        inode=st.st_ino, size=st.st_size, mtime_ns=st.st_mtime_ns, ctime_ns=st.st_ctime_ns,
        sha256=sha)  # fmt: skip
    stamps_path.write_text(json.dumps(stamps))


@pytest.mark.parametrize("large", [False, True], ids=["hashed-every-load", "stamped"])
def test_editing_the_stamp_file_cannot_make_a_tampered_file_run(large, tmp_path, monkeypatch):
    if large:  # every file counts as a large GGUF would: stamps are consulted
        monkeypatch.setattr(verification, "HASH_AT_LOAD_BYTES", 0)
    base = make_models(tmp_path / "models")
    stamps_path = tmp_path / "cache" / "verified.json"
    load_nli(base, VerificationCache(stamps_path))  # a clean load writes stamps
    weights = base / NLI / "model.bin"
    pinned = Manifest.load(base / "manifest.json").get(NLI).files[f"{NLI}/model.bin"]
    if large:
        assert str(weights.resolve()) in json.loads(stamps_path.read_text())
        assert load_nli(base, VerificationCache(stamps_path)).nli  # unchanged: stamp accepted
        forge_target = weights
    else:
        stamps_path.parent.mkdir(parents=True, exist_ok=True)
        stamps_path.write_text(json.dumps({str(weights.resolve()): {"mac": "0" * 64}}))
        forge_target = None
    weights.write_bytes(b"tampered weights")
    if forge_target is not None:
        forge_stamps(stamps_path, forge_target, pinned)
    with pytest.raises(ModelIntegrityError, match="sha256 mismatch"):
        load_nli(base, VerificationCache(stamps_path))


def test_llm_path_that_is_a_directory_is_a_clear_error(cli, tmp_path):
    result = cli("ask", "What?", "-c", "x", "--llm", str(tmp_path), "--db", str(tmp_path / "cd.db"))
    assert result.code == 1
    assert "is not a file" in result.err and "Traceback" not in result.err
