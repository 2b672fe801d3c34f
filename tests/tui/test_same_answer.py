"""One question asked through the CLI and through the TUI's engine gives the same stored run:
both front ends go through the one application layer."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from conflictdesk.app import Desk, load_settings
from conflictdesk.cli import common, main
from conflictdesk.tui.engine import DeskEngine
from tests.fakes import fake_backends

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "docs"
QUESTION = "What is the recommended daily dose of velsarin?"


def _comparable(run) -> dict:
    """A stored ask run without what must differ between two runs: ids and stage timings."""
    output = json.loads(json.dumps(run.output))
    output["record"].pop("id")
    output["analysis"].pop("timings")
    return {"input": run.input, "output": output, "method": run.method}


def test_the_cli_and_the_tui_store_the_same_ask(tmp_path, monkeypatch, capsys):
    backends = fake_backends()
    monkeypatch.setattr(common, "make_backends", lambda settings, roles: backends)
    monkeypatch.setenv("CONFLICTDESK_CONFIG", str(tmp_path / "none.toml"))
    db = tmp_path / "same.db"
    assert main(["ingest", str(EXAMPLES), "-c", "examples", "--db", str(db)]) == 0
    assert main(["ask", QUESTION, "-c", "examples", "--db", str(db), "--json"]) == 0
    cli_record = json.loads(capsys.readouterr().out.splitlines()[-1])

    settings = load_settings(path=tmp_path / "none.toml", env={}, db_path=db)
    engine = DeskEngine(Desk(settings, load_backends=lambda roles: backends))
    try:
        tui_id, view = engine.ask(QUESTION, "examples", lambda *event: None, threading.Event())
        tui_run, cli_run = engine.desk.run(tui_id), engine.desk.run(cli_record["id"])
    finally:
        engine.close()
    assert tui_run.id != cli_run.id and tui_run.kind == cli_run.kind == "ask"
    assert _comparable(tui_run) == _comparable(cli_run)
    # the screen shows what the CLI stored
    assert json.loads(json.dumps(view.answer.to_json())) == cli_run.output["answer"]
