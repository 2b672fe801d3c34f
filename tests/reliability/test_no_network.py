"""Zero network use: every command runs with `socket.socket` patched to raise (and to record
the attempt, in case a library swallowed the error). Local AF_UNIX socket pairs, which
asyncio uses inside the TUI's event loop, are not network and stay allowed."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from conflictdesk.tui.app import ConflictDeskApp
from tests.fakes import fake_backends

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def no_network(monkeypatch) -> list[tuple]:
    attempts: list[tuple] = []
    real_socket = socket.socket

    class GuardedSocket(real_socket):
        def __init__(self, family=-1, type=-1, proto=-1, fileno=None):
            if fileno is None and family != socket.AF_UNIX:
                attempts.append((family, type))
                raise OSError("network use during a conflictdesk command")
            super().__init__(family, type, proto, fileno)

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network use during a conflictdesk command")

    monkeypatch.setattr(socket, "socket", GuardedSocket)
    for name in ("create_connection", "getaddrinfo", "gethostbyname"):
        monkeypatch.setattr(socket, name, refuse)
    return attempts


@pytest.fixture
def headless_tui(monkeypatch):
    """`conflictdesk tui` runs the real app headless: open Collections, Ask, History, Models."""
    real_run = ConflictDeskApp.run

    async def tour(pilot):
        for key in ("f1", "f2", "f4", "f5"):
            await pilot.press(key)
            await pilot.app.workers.wait_for_complete()
        pilot.app.exit()

    monkeypatch.setattr(
        ConflictDeskApp, "run", lambda self: real_run(self, headless=True, auto_pilot=tour)
    )


def batch_file(tmp_path: Path, records: list[dict]) -> str:
    path = tmp_path / f"in{len(list(tmp_path.glob('in*')))}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def every_command(tmp_path: Path) -> list[list[str]]:
    db = ["--db", str(tmp_path / "cd.db")]
    docs = ["Broken Bow had 3559 residents in 2010.", "Broken Bow had 10000 residents in 2010."]
    claim = batch_file(
        tmp_path, [{"id": 1, "claim": "Broken Bow had 3559 residents.", "documents": docs}]
    )
    response = batch_file(tmp_path, [{"id": 1, "question": "How many?", "response": "It had 3559 residents.",
                                      "documents": docs}])  # fmt: skip
    return [
        ["ingest", str(EXAMPLES / "docs"), "-c", "ex", *db],
        ["search", "ferry", "-c", "ex", *db],
        ["collections", *db],
        ["models", "list"],
        ["models", "verify"],
        ["models", "discover"],
        ["detect", claim, *db],
        ["score", response, "--decomposer", "splitter", *db],
        ["regenerate", response, "--decomposer", "splitter", *db],
        ["ask", "When did the ferry start?", "-c", "ex", *db],
        ["demo", *db],
        ["tui", *db],
    ]


def test_every_command_runs_without_the_network(
    cli, monkeypatch, tmp_path, no_network, headless_tui
):
    backends, with_llm = fake_backends(), fake_backends(with_llm=True)

    def make_backends(settings, roles):  # the GGUF for score and regenerate (nli + llm)
        return with_llm if tuple(roles) == ("nli", "llm") else backends

    monkeypatch.setattr("conflictdesk.cli.common.make_backends", make_backends)
    with pytest.raises(OSError, match="network use"):  # the guard itself works
        socket.create_connection(("127.0.0.1", 9))
    no_network.clear()
    for argv in every_command(tmp_path):
        result = cli(*argv)
        assert result.code == 0, (argv, result.err)
        assert "Traceback" not in result.err
    assert no_network == []


@pytest.mark.integration
def test_real_models_run_without_the_network(cli, tmp_path, no_network):
    commands = [
        c for c in every_command(tmp_path) if c[0] in ("ingest", "search", "ask", "detect", "score")
    ]
    for argv in commands:
        result = cli(*argv)
        assert result.code == 0, (argv, result.err)
    assert no_network == []
