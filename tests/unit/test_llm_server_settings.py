"""The server back-end's settings (file < environment < flags), the flags on every command
that can use an LLM, `models add --url`, and `doctor`'s probe."""

from __future__ import annotations

import argparse
import json
import socket

import pytest

from conflictdesk.backends.openai_server import OpenAIServerGenerator
from conflictdesk.backends.registry import load_backends
from conflictdesk.cli import build_parser, main
from conflictdesk.cli.common import config_from_args
from conflictdesk.config import load_config
from conflictdesk.errors import UsageError
from tests.servers import FakeServer, chat

URL = "http://127.0.0.1:8080/v1"
# Every command that runs a model stage an LLM can serve (search and ingest use none).
LLM_COMMANDS = [
    ["ask", "q"], ["detect"], ["score"], ["regenerate"], ["demo"], ["tui"],
    ["bench", "run", "corpus.tsv"], ["bench", "checker-accuracy"], ["models", "list"],
    ["models", "verify"], ["doctor"],
]  # fmt: skip


@pytest.fixture(autouse=True)
def clean_env(tmp_path, monkeypatch):
    for name in ("URL", "MODEL", "DIGEST", "PATH", "TIMEOUT", "KEY"):
        monkeypatch.delenv(f"CONFLICTDESK_LLM_{name}", raising=False)
    monkeypatch.setenv("CONFLICTDESK_CONFIG", str(tmp_path / "none.toml"))


def test_file_then_environment_then_flags(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(f'llm_url = "{URL}"\nllm_model = "From-File"\nllm_timeout = 30\n')
    env = {"CONFLICTDESK_LLM_MODEL": "Qwen2.5-7B-Instruct", "CONFLICTDESK_LLM_DIGEST": "abc"}
    settings = load_config(config, env)
    assert (settings.llm_url, settings.llm_model, settings.llm_digest) == (
        URL,
        "Qwen2.5-7B-Instruct",
        "abc",
    )  # fmt: skip  (a model name keeps its case)
    assert settings.llm_timeout == 30.0
    assert load_config(config, env, llm_model="flag").llm_model == "flag"
    assert load_config(config, env, llm_url="").llm_url is None


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [("llm_url", "ftp://host/v1", "http:// or https://"), ("llm_url", "localhost:8080", "URL"),
     ("llm_timeout", "soon", "number of seconds"), ("llm_timeout", "0", "> 0")],
)  # fmt: skip
def test_bad_server_settings_are_usage_errors(tmp_path, key, value, message):
    with pytest.raises(UsageError, match=message):
        load_config(tmp_path / "none.toml", {}, **{key: value})


def test_a_flag_for_one_kind_of_llm_overrides_the_other_from_the_environment(monkeypatch):
    monkeypatch.setenv("CONFLICTDESK_LLM_URL", URL)
    flags = argparse.Namespace(llm="m.gguf", llm_url=None)
    settings = config_from_args(flags)
    assert settings.llm_url is None and str(settings.llm_path) == "m.gguf"
    monkeypatch.setenv("CONFLICTDESK_LLM_PATH", "m.gguf")
    settings = config_from_args(argparse.Namespace(llm=None, llm_url=URL))
    assert settings.llm_url == URL and settings.llm_path is None
    with pytest.raises(UsageError, match="exclude each other"):
        config_from_args(argparse.Namespace(llm="m.gguf", llm_url=URL))


@pytest.mark.parametrize("argv", LLM_COMMANDS, ids=" ".join)
def test_every_command_that_can_use_an_llm_takes_both_flags(argv):
    args = build_parser().parse_args([*argv, "--llm-url", URL, "--llm-model", "m",
                                      "--llm-digest", "d"])  # fmt: skip
    settings = config_from_args(args)
    assert (settings.llm_url, settings.llm_model, settings.llm_digest) == (URL, "m", "d")
    assert build_parser().parse_args([*argv, "--llm", "x.gguf"]).llm is not None


def test_models_list_with_a_server_contacts_nothing(monkeypatch, capsys):
    def refuse(*args, **kwargs):
        raise AssertionError("models list contacted the network")

    monkeypatch.setattr(socket, "create_connection", refuse)
    assert main(["models", "list", "--json", "--llm-url", URL, "--llm-model", "m"]) == 0
    report = json.loads(capsys.readouterr().out)
    stages = {row["stage"]: row for row in report["stages"]}
    assert stages["classify"] == {"stage": "classify", "method": "llm:openai:m@(digest from "
                                  "/v1/models)", "llm": True}  # fmt: skip
    assert stages["tag"]["llm"] is False and stages["label"]["llm"] is False
    assert report["capabilities"]["llm"] is True
    assert [m["status"] for m in report["models"] if m["role"] == "llm"] == ["server"]


def test_models_add_url_registers_a_server_that_load_backends_uses(tmp_path, monkeypatch, capsys):
    models = tmp_path / "models"
    models.mkdir()
    monkeypatch.setenv("CONFLICTDESK_MODELS", str(models))
    argv = ["models", "add", "--url", URL, "--model", "qwen", "--digest", "pin1", "--json"]
    assert main(argv) == 0
    added = json.loads(capsys.readouterr().out)["added"]
    assert (added["status"], added["path"], added["files"]) == ("server", URL, 0)
    llm = load_backends(load_config(), roles=("llm",)).llm
    assert isinstance(llm, OpenAIServerGenerator)
    assert (llm.url, llm.model_id) == (URL, "openai:qwen@pin1")
    assert main(["models", "verify", "--json"]) == 0  # nothing to hash: not a failure
    capsys.readouterr()
    assert main(["models", "add", "--url", URL, "--role", "nli"]) == 2
    assert "llm role only" in capsys.readouterr().err
    assert main(["models", "add", str(tmp_path / "x.gguf"), "--url", URL]) == 2


def test_doctor_probes_the_configured_server(capsys):
    with FakeServer(lambda path, body: chat("")) as server:
        main(["doctor", "--json", "--llm-url", server.url])
        paths = [path for _, path, _, _ in server.history]
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert (
        checks["llm server"]["ok"] is True
        and "openai:fake-model@" in checks["llm server"]["detail"]
    )
    assert paths == ["/v1/models"]
