"""`conflictdesk models list | verify | add` end to end on a temporary models dir."""

import json
import pickle

import pytest

from conflictdesk.backends.manifest import Manifest, entry_for
from conflictdesk.cli import main


@pytest.fixture
def models(tmp_path, monkeypatch):
    base = tmp_path / "models"
    (base / "nli").mkdir(parents=True)
    (base / "nli" / "model.bin").write_bytes(b"weights")
    manifest = Manifest.load(base / "manifest.json")
    manifest.upsert(
        entry_for(
            "nli-test",
            "nli",
            base / "nli",
            licence="MIT",
            source="t",
            rebuild="scripts/build_nli.py",
            base=base,
        )
    )
    manifest.save()
    monkeypatch.setenv("CONFLICTDESK_MODELS", str(base))
    monkeypatch.setenv("CONFLICTDESK_CONFIG", str(tmp_path / "none.toml"))
    return base


def test_list_json(models, capsys):
    assert main(["models", "list", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [m["name"] for m in out["models"]] == ["nli-test"]
    assert out["models"][0]["present"] is True
    assert out["capabilities"]["stages"]["tag"] == "nli"


def test_verify_passes_then_fails_on_tampering(models, capsys):
    assert main(["models", "verify"]) == 0
    assert "1/1 models verified" in capsys.readouterr().out
    (models / "nli" / "model.bin").write_bytes(b"tampered")
    assert main(["models", "verify"]) == 1
    captured = capsys.readouterr()
    assert "FAILED" in captured.out
    assert "sha256 mismatch" in captured.err and "scripts/build_nli.py" in captured.err


def test_verify_json_reports_missing_file(models, capsys):
    (models / "nli" / "model.bin").unlink()
    assert main(["models", "verify", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False and "missing" in out["models"][0]["error"]


def test_add_records_absolute_path_and_hash_without_copying(models, tmp_path, capsys):
    gguf = tmp_path / "elsewhere" / "my.gguf"
    gguf.parent.mkdir()
    gguf.write_bytes(b"GGUF" + b"\0" * 32)
    assert main(["models", "add", str(gguf), "--role", "llm", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["added"]["path"] == str(gguf) and out["replaced"] is False
    entry = Manifest.load(models / "manifest.json").get("my")
    assert entry.path == str(gguf) and list(entry.files) == [str(gguf)]
    assert not (models / "my.gguf").exists()
    assert main(["models", "verify"]) == 0


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("weights.pt", b"PK", "pickle"),
        ("disguised.gguf", pickle.dumps(1), "pickle"),
        ("plain.gguf", b"ONNX....", "not a GGUF"),
    ],
)
def test_add_refuses_unsafe_or_wrong_formats(models, tmp_path, capsys, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    assert main(["models", "add", str(path), "--role", "llm"]) == 1
    assert message in capsys.readouterr().err
    assert [e.name for e in Manifest.load(models / "manifest.json").entries] == ["nli-test"]


def test_add_missing_file_is_usage_error(models, tmp_path, capsys):
    assert main(["models", "add", str(tmp_path / "nope.gguf"), "--role", "llm"]) == 2
    assert "is not a file" in capsys.readouterr().err


def test_list_text_columns_line_up_with_a_long_role(models, capsys):
    (models / "accurate").mkdir()
    (models / "accurate" / "model.onnx").write_bytes(b"more weights")
    manifest = Manifest.load(models / "manifest.json")
    manifest.upsert(entry_for("nli-accurate-test-model", "nli-accurate", models / "accurate",
                              licence="MIT", source="t", rebuild="r", base=models))  # fmt: skip
    manifest.save()
    assert main(["models", "list"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if " ok " in line]
    assert len(rows) == 2
    assert len({row.index(" ok ") for row in rows}) == 1  # the state column starts alike
    starts = {rows[0].index(" nli-test "), rows[1].index(" nli-accurate-test-model ")}
    assert len(starts) == 1  # and so do the names
