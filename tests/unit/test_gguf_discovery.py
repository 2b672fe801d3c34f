"""GGUF headers read in plain Python, discovery in the usual folders, and `doctor`."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from conflictdesk.backends.gguf_info import discover, read_header
from conflictdesk.cli import main
from conflictdesk.errors import InputError


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def write_gguf(path: Path, arch: str = "llama", file_type: int = 15, ctx: int = 4096) -> Path:
    kvs = [
        _string("general.architecture") + struct.pack("<I", 8) + _string(arch),
        _string("general.name") + struct.pack("<I", 8) + _string("Tiny Test"),
        _string("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 2) + _string("a") + _string("b"),
        _string("tokenizer.ggml.scores") + struct.pack("<IIQ", 9, 6, 3) + struct.pack("<3f", 0, 1, 2),
        _string(f"{arch}.context_length") + struct.pack("<I", 4) + struct.pack("<I", ctx),
        _string("general.file_type") + struct.pack("<I", 4) + struct.pack("<I", file_type),
    ]  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs) + b"\0" * 64)
    return path


def test_header_fields(tmp_path):
    info = read_header(write_gguf(tmp_path / "m.gguf"))
    assert (info.architecture, info.quantisation, info.context_length) == ("llama", "Q4_K_M", 4096)
    assert info.name == "Tiny Test" and info.version == 3


@pytest.mark.parametrize(
    "blob",
    [b"NOPE" + b"\0" * 40, b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1 << 40),
     b"GGUF" + struct.pack("<IQQ", 3, 0, 5)],
    ids=["magic", "huge-string", "truncated"],
)  # fmt: skip
def test_bad_headers_are_input_errors(tmp_path, blob):
    path = tmp_path / "bad.gguf"
    path.write_bytes(blob)
    with pytest.raises(InputError):
        read_header(path)


def fake_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    write_gguf(home / ".lmstudio" / "models" / "pub" / "repo" / "a-Q4_K_M.gguf")
    write_gguf(home / ".cache" / "huggingface" / "hub" / "models--x" / "snapshots" / "1" / "b.gguf",
               arch="qwen2", file_type=7)  # fmt: skip
    blobs = home / ".ollama" / "models" / "blobs"
    write_gguf(blobs / "sha256-abc", arch="gemma3", file_type=2)
    manifest = (
        home / ".ollama" / "models" / "manifests" / "registry.ollama.ai" / "library" / "g3" / "1b"
    )
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"layers": [
        {"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:abc"},
        {"mediaType": "application/vnd.ollama.image.license", "digest": "sha256:def"}]}))  # fmt: skip
    (home / ".lmstudio" / "models" / "broken.gguf").write_bytes(b"GGUF")
    return home


def test_discover_lm_studio_hf_cache_ollama_and_env(tmp_path):
    home = fake_home(tmp_path)
    extra = write_gguf(tmp_path / "mine" / "c.gguf", arch="phi3", file_type=1).parent
    found, problems = discover(env={"CONFLICTDESK_MODEL_PATH": str(extra)}, home=home)
    kinds = {(i.found_in.split()[0], i.architecture, i.quantisation) for i in found}
    assert kinds == {("CONFLICTDESK_MODEL_PATH", "phi3", "F16"), ("lm-studio", "llama", "Q4_K_M"),
                     ("huggingface", "qwen2", "Q8_0"), ("ollama", "gemma3", "Q4_0")}  # fmt: skip
    assert len(problems) == 1 and "broken.gguf" in problems[0]


def test_models_discover_json_and_register(tmp_path, capsys, monkeypatch):
    home = fake_home(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("HF_HOME", raising=False)
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("OLLAMA_MODELS", raising=False)
    monkeypatch.delenv("CONFLICTDESK_MODEL_PATH", raising=False)
    models = tmp_path / "models"
    models.mkdir()
    (models / "manifest.json").write_text('{"models": []}')
    assert main(["models", "discover", "--json", "--models-dir", str(models)]) == 0
    listed = json.loads(capsys.readouterr().out)["models"]
    assert len(listed) == 3
    assert main(["models", "discover", "--register", "1", "--models-dir", str(models)]) == 0
    entry = json.loads((models / "manifest.json").read_text())["models"][0]
    assert entry["role"] == "llm" and len(next(iter(entry["files"].values()))) == 64
    assert main(["models", "discover", "--register", "9", "--models-dir", str(models)]) == 2


def test_doctor_passes_on_the_shipped_models_and_fails_on_a_tampered_copy(tmp_path, capsys):
    assert main(["doctor", "--json", "--db", str(tmp_path / "x.db")]) == 0
    report = json.loads(capsys.readouterr().out)
    names = {c["name"] for c in report["checks"]}
    assert {"cpu", "config", "database", "model nli"} <= names and report["ok"] is True
    shipped = Path(__file__).resolve().parents[2] / "models"
    copy = tmp_path / "models"
    (copy / "pair").mkdir(parents=True)
    manifest = json.loads((shipped / "manifest.json").read_text())
    manifest["models"] = [m for m in manifest["models"] if m["role"] == "pair"]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    for name in ("pair_config.json", "pair_int8.onnx"):
        (copy / "pair" / name).write_bytes((shipped / "pair" / name).read_bytes())
    (copy / "pair" / "pair_config.json").write_text("{}")
    code = main(["doctor", "--models-dir", str(copy), "--db", str(tmp_path / "x.db")])
    out = capsys.readouterr().out
    assert code == 1 and "FAIL model pair" in out and "fix:" in out
