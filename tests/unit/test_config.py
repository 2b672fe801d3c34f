from pathlib import Path

import pytest

from conflictdesk.config import Config, default_config_path, load_config
from conflictdesk.errors import UsageError


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_file_or_env(tmp_path):
    config = load_config(path=tmp_path / "absent.toml", env={})
    assert config.llm_path is None
    assert (config.device, config.threads, config.n_gpu_layers, config.n_ctx) == (
        "auto",
        0,
        -1,
        4096,
    )
    assert config.models_dir.name == "models"


def test_env_overrides_file_and_flags_override_env(tmp_path):
    toml = write(
        tmp_path / "c.toml", 'threads = 3\ndevice = "cpu"\nn_ctx = 2048\nllm_path = "/m/a.gguf"\n'
    )
    env = {"CONFLICTDESK_THREADS": "5", "CONFLICTDESK_LLM_PATH": "/m/b.gguf"}
    config = load_config(path=toml, env=env, llm_path=Path("/m/c.gguf"), device=None)
    assert config.threads == 5  # env beats file
    assert config.device == "cpu" and config.n_ctx == 2048  # file beats defaults
    assert config.llm_path == Path("/m/c.gguf")  # flag beats env; None flags are skipped


def test_conflictdesk_table_and_models_alias(tmp_path):
    toml = write(tmp_path / "c.toml", "[conflictdesk]\nn_gpu_layers = 10\n")
    config = load_config(path=toml, env={"CONFLICTDESK_MODELS": str(tmp_path)})
    assert config.n_gpu_layers == 10
    assert config.models_dir == tmp_path


@pytest.mark.parametrize(
    "text, message",
    [
        ("colour = 1\n", "unknown setting"),
        ('device = "tpu"\n', "device must be one of"),
        ('threads = "many"\n', "threads must be an integer"),
        ("n_ctx = 16\n", "n_ctx must be at least"),
        ("threads = [\n", "invalid TOML"),
    ],
)
def test_bad_settings_are_errors(tmp_path, text, message):
    with pytest.raises(UsageError, match=message):
        load_config(path=write(tmp_path / "c.toml", text), env={})


def test_default_config_path_honours_env(tmp_path, monkeypatch):
    monkeypatch.setenv("CONFLICTDESK_CONFIG", str(tmp_path / "x.toml"))
    assert default_config_path() == tmp_path / "x.toml"
    monkeypatch.delenv("CONFLICTDESK_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_config_path() == tmp_path / "conflictdesk" / "config.toml"


def test_config_is_frozen_and_serialisable(tmp_path):
    config = Config(models_dir=tmp_path, llm_path=tmp_path / "m.gguf")
    assert config.to_json()["llm_path"] == str(tmp_path / "m.gguf")
    with pytest.raises(AttributeError):
        config.threads = 4  # type: ignore[misc]


def test_config_from_args_uses_flags(tmp_path, monkeypatch):
    import argparse

    from conflictdesk.cli.common import add_model_arguments, config_from_args

    monkeypatch.setenv("CONFLICTDESK_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("CONFLICTDESK_THREADS", "7")
    parser = argparse.ArgumentParser()
    add_model_arguments(parser)
    args = parser.parse_args(["--llm", "/x/y.gguf", "--device", "cpu", "--n-gpu-layers", "0"])
    config = config_from_args(args)
    assert (config.llm_path, config.device, config.n_gpu_layers) == (Path("/x/y.gguf"), "cpu", 0)
    assert config.threads == 7  # no flag given: the environment's value stands
