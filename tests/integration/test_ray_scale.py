"""`--ray` on a local Ray cluster gives the plain run's output byte for byte, and the same
database: the driver alone writes it, and a re-run reads the judgments it stored.

Needs the `scale` extra (scripts/setup.sh installs it); skipped only where Ray is absent."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="the scale extra (Ray) is not installed")

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DATA = Path(__file__).resolve().parent / "data"
FLAGS = ["--threads", "1", "--device", "cpu"]


@pytest.fixture(scope="session")
def ray_cluster():
    """One local two-CPU cluster for the module's runs (start-up is slow on two cores)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def run_cli(capsys, *argv: str) -> tuple[int, bytes, list[str]]:
    """Exit status, stdout bytes and conflictdesk's own stderr lines of one command, less the
    warnings (Ray's: deprecations, resources still held by the previous batch's actors)."""
    from conflictdesk.cli import main

    code = main(list(argv))
    captured = capsys.readouterr()
    ours = [line for line in captured.err.splitlines()
            if line.startswith("conflictdesk: ") and not line.startswith("conflictdesk: warning:")]  # fmt: skip
    return code, captured.out.encode("utf-8"), ours


def stored(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


RUNS = "SELECT kind, input, output, method FROM runs ORDER BY id"
JUDGMENTS = "SELECT stage, model_id, input_hash, output FROM model_calls ORDER BY stage, input_hash"


@pytest.mark.parametrize("command, source", [("detect", "ray_claims.jsonl"),
                                             ("score", "ray_responses.jsonl")])  # fmt: skip
def test_ray_run_is_byte_identical_to_the_plain_run(ray_cluster, capsys, tmp_path, command, source):
    plain_db, ray_db = tmp_path / "plain.db", tmp_path / "ray.db"
    path = str(DATA / source)
    plain = run_cli(capsys, command, path, "--db", str(plain_db), *FLAGS)
    scaled = run_cli(capsys, command, path, "--db", str(ray_db), *FLAGS, "--ray",
                     "--ray-workers", "2", "--ray-batch-size", "1")  # fmt: skip
    assert plain[0] == 1  # the inputs hold bad lines: error objects, the batch goes on
    assert scaled == plain
    assert plain[1].count(b'"error"') >= 1 and plain[1].count(b'"method"') >= 2
    assert stored(ray_db, RUNS) == stored(plain_db, RUNS)
    assert stored(ray_db, JUDGMENTS) == stored(plain_db, JUDGMENTS)


def test_ray_rerun_reads_the_judgments_the_driver_stored(ray_cluster, capsys, tmp_path):
    db, path = str(tmp_path / "cache.db"), str(DATA / "ray_claims.jsonl")
    first = run_cli(capsys, "detect", path, "--db", db, *FLAGS, "--ray")
    again = run_cli(capsys, "detect", path, "--db", db, *FLAGS, "--ray")
    plain_again = run_cli(capsys, "detect", path, "--db", db, *FLAGS)
    assert again == plain_again  # every judgment a cache hit, as in a plain re-run
    assert b'"cached": {"hits": 0' in first[1]
    assert b'"hits": 0' not in again[1]


def test_ray_ask_from_stdin_is_byte_identical(ray_cluster, capsys, monkeypatch, tmp_path):
    import io

    data = (DATA / "ray_questions.jsonl").read_bytes()
    outputs = []
    for name, extra in (("plain", []), ("ray", ["--ray", "--ray-workers", "2"])):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
        db = tmp_path / f"{name}.db"
        outputs.append((run_cli(capsys, "ask", "-", "--db", str(db), *FLAGS, *extra),
                        stored(db, RUNS)))  # fmt: skip
    (plain, plain_runs), (scaled, scaled_runs) = outputs
    lines = plain[1].splitlines()
    assert plain[0] == 1 and len(lines) == 3 and b'"error"' in lines[1]
    assert all(line.startswith(b'{"id": "') and b'"stance"' in line for line in lines[::2])
    assert scaled == plain
    assert [untimed(run) for run in scaled_runs] == [untimed(run) for run in plain_runs]


def untimed(run: tuple) -> tuple:
    """A stored ask run without its stage timings (milliseconds differ from run to run)."""
    kind, asked, output, method = run
    output = json.loads(output)
    output["analysis"].pop("timings")
    return kind, asked, output, method


def test_ray_ingest_stores_the_same_vectors(ray_cluster, capsys, tmp_path):
    """Several embedding batches (> 64 passages), each embedded whole by one actor."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for number in range(12):
        sentences = [f"Report {number} says the level of lake {n} rose by {number + n} cm."
                     for n in range(6)]  # fmt: skip
        (folder / f"report{number}.txt").write_text(" ".join(sentences), "utf-8")
    outputs = []
    for name, extra in (("plain", []), ("ray", ["--ray", "--ray-workers", "2"])):
        db = tmp_path / f"{name}.db"
        result = run_cli(capsys, "ingest", str(folder), "-c", "lakes", "--db", str(db),
                         "--words", "12", "--overlap", "2", "--json", *FLAGS, *extra)  # fmt: skip
        vectors = stored(db, "SELECT passage_id, vector FROM embeddings ORDER BY passage_id")
        outputs.append((result, vectors))
    assert outputs[1] == outputs[0]
    assert len(outputs[0][1]) > 64


def test_ray_bench_run_writes_the_same_responses_and_report(ray_cluster, capsys, tmp_path):
    corpus = Path(__file__).resolve().parents[2] / "examples" / "ragability.tsv"
    reports = []
    for name, extra in (("plain", []), ("ray", ["--ray", "--ray-workers", "2"])):
        out = tmp_path / name
        code, _, _ = run_cli(capsys, "bench", "run", str(corpus), "--testee", "ask", "--limit",
                             "6", "--db", str(tmp_path / f"{name}.db"), "--out", str(out),
                             "--json", *FLAGS, *extra)  # fmt: skip
        assert code == 0
        reports.append(((out / "responses.tsv").read_bytes(), (out / "report.md").read_bytes()))
    assert reports[1] == reports[0]
    assert reports[0][0].count(b"\n") == 7  # a header and six responses
