"""Nothing lost on a crash: a real `conflictdesk ingest` process is killed with SIGKILL at a
random moment, the same command is run again, and the database equals a clean run's."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def make_corpus(folder: Path, count: int = 400) -> Path:
    folder.mkdir()
    words = [
        "harbour",
        "ferry",
        "summit",
        "glacier",
        "council",
        "tariff",
        "vaccine",
        "orbit",
        "treaty",
        "river",
    ]
    rng = random.Random(12)
    for n in range(count):
        body = " ".join(rng.choice(words) for _ in range(rng.randint(60, 400)))
        (folder / f"doc{n:04d}.md").write_text(f"---\ntitle: Document {n}\n---\n{body} {n}.\n")
    return folder


def ingest(folder: Path, db: Path) -> subprocess.Popen:
    argv = [sys.executable, "-m", "conflictdesk", "ingest", str(folder), "-c", "crash",
            "--no-embed", "--words", "40", "--overlap", "5", "--json", "--db", str(db)]  # fmt: skip
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def contents(db: Path) -> tuple[set, set]:
    """(documents, passages) by content, ids left out; and the database's own checks."""
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.execute("INSERT INTO passages_fts(passages_fts) VALUES ('integrity-check')")
    documents = conn.execute("SELECT sha256, title, source FROM documents").fetchall()
    passages = conn.execute(
        "SELECT d.sha256, p.ord, p.text FROM passages p JOIN documents d ON d.id = p.document_id"
    ).fetchall()
    fts_rows = conn.execute("SELECT count(*) FROM passages_fts").fetchone()[0]
    conn.close()
    assert len(set(documents)) == len(documents) and len(set(passages)) == len(passages)
    assert fts_rows == len(passages)
    return set(documents), set(passages)


def test_kill_9_mid_ingest_then_resume_equals_a_clean_run(tmp_path):
    folder = make_corpus(tmp_path / "docs")
    started = time.monotonic()
    clean = ingest(folder, tmp_path / "clean.db")
    assert clean.wait(timeout=300) == 0, clean.stderr.read()
    duration = time.monotonic() - started
    seed = int.from_bytes(os.urandom(4), "big")
    delay = random.Random(seed).uniform(0.2, 0.7) * duration
    victim = ingest(folder, tmp_path / "killed.db")
    time.sleep(delay)
    killed_mid_run = victim.poll() is None
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=60)
    resumed = ingest(folder, tmp_path / "killed.db")
    assert resumed.wait(timeout=300) == 0, (seed, resumed.stderr.read())
    assert contents(tmp_path / "killed.db") == contents(tmp_path / "clean.db"), seed
    assert killed_mid_run, f"the ingest finished before the kill (seed {seed}, {delay:.2f} s)"
