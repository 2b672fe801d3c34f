from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from conflictdesk.app import bench as app_bench
from conflictdesk.cli import bench, common, main
from tests.fakes import FakeGenerator, fake_backends
from tests.unit.test_bench_corpus import EXAMPLE, GOOD, write_rows

SAMPLE = EXAMPLE.parent / "ragability" / "checker_sample.jsonl"


@pytest.fixture
def fakes(monkeypatch):
    generators: dict[str, FakeGenerator] = {}

    def generator(path, settings):
        return generators.setdefault(path, FakeGenerator(default="I cannot answer."))

    monkeypatch.setattr(common, "make_backends", lambda settings, roles: fake_backends())
    monkeypatch.setattr(app_bench, "make_generator", generator)
    return generators


def _run(tmp_path: Path, capsys, *extra: str) -> dict:
    argv = ["bench", "run", str(EXAMPLE), "--db", str(tmp_path / "b.db"), "--limit", "20",
            "--out", str(tmp_path / "rep"), "--json", "--sample", str(SAMPLE), *extra]  # fmt: skip
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_run_twice_resumes_everything_and_writes_the_reports(tmp_path, capsys, fakes):
    first = _run(tmp_path, capsys, "--testee", "pipeline", "--testee", "gguf:m.gguf")
    assert (first["responses_new"], first["checks_new"]) == (40, 40)
    assert {s["testee"] for s in first["scores"]} == {"ask:no-llm", "gguf:fake-llm"}
    assert len(first["mcnemar"]) == 1 and first["mcnemar"][0]["first"] == "ask:no-llm"
    assert first["checker_accuracy"].endswith(f"on {SAMPLE}")
    calls = len(fakes["m.gguf"].history)
    again = _run(tmp_path, capsys, "--testee", "pipeline", "--testee", "gguf:m.gguf")
    assert (again["responses_new"], again["responses_resumed"]) == (0, 40)
    assert len(fakes["m.gguf"].history) == calls
    assert again["run"] == first["run"]
    with sqlite3.connect(tmp_path / "b.db") as conn:  # the pipeline testee saves no ask runs
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
    for name in ("report.md", "report.html", "responses.tsv"):
        assert (tmp_path / "rep" / name).stat().st_size > 0


def test_tags_select_a_slice(tmp_path, capsys, fakes):
    result = _run(tmp_path, capsys, "--testee", "gguf:m.gguf", "--tags", "task:identify")
    assert [s["metric"] for s in result["scores"]] == [
        "correct_answer_all", "contradiction_identification",
    ]  # fmt: skip
    assert all(h["messages"][0]["content"].endswith("yes or no.") for h in fakes["m.gguf"].history)


def test_openai_testee_on_a_server_that_is_down_is_a_clear_error(tmp_path, capsys, fakes):
    from tests.servers import closed_port

    argv = ["bench", "run", str(EXAMPLE), "--db", str(tmp_path / "b.db"),
            "--testee", f"openai:http://127.0.0.1:{closed_port()}/v1"]  # fmt: skip
    assert main(argv) == 1
    assert "cannot reach the LLM server" in capsys.readouterr().err


def test_validate_reports_each_bad_row(tmp_path, capsys):
    good = main(["bench", "validate", str(EXAMPLE)])
    assert good == 0 and "440 test cases" in capsys.readouterr().out
    bad = write_rows(tmp_path / "bad.tsv", [GOOD, dict(GOOD, contradiction_ID="2",
                                                       reasoning_required_c1c2="vague")])  # fmt: skip
    assert main(["bench", "validate", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "row 3 (contradiction_ID 2)" in err and "'vague'" in err


def test_checker_accuracy_against_the_hand_labels(tmp_path, capsys, fakes):
    argv = ["bench", "checker-accuracy", str(SAMPLE), "--json", "--db", str(tmp_path / "b.db")]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["n"] == 40 and 0 <= result["agree"] <= 40
    assert result["false_positive"] + result["false_negative"] == 40 - result["agree"]


def test_import_writes_a_valid_corpus(tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    docs = [{"text": "The Brel lake is 12 km long.", "answer": "12 km"},
            {"text": "The Brel lake, 20 km long, is the largest.", "answer": "20 km"},
            {"text": "Brel lake stretches 12 km from north to south.", "answer": "12 km"},
            {"text": "Brel lake freezes in winter."}]  # fmt: skip
    lines = [{"id": "lake", "query": "How long is the Brel lake?", "documents": docs},
             {"id": "thin", "query": "Q?", "documents": docs[:2]}]  # fmt: skip
    source.write_text("\n".join(json.dumps(x) for x in lines) + "\n", "utf-8")
    assert main(["bench", "import", str(source), "-o", str(tmp_path / "c.tsv")]) == 1
    captured = capsys.readouterr()
    assert "1 rows written" in captured.out and "record thin: skipped" in captured.err
    assert main(["bench", "validate", str(tmp_path / "c.tsv")]) == 0


def test_progress_line_has_rate_and_eta_and_counts_resumed(tmp_path):
    import io

    stream = io.StringIO()
    progress = bench.RunProgress(4, stream=stream, every=2)
    progress.step("t", None, True)
    progress.step("t", None, False)
    progress.step("t", None, False)
    progress.step("t", None, False)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("bench 2/4 (1 resumed)") and "cases/s ETA" in lines[0]
    assert lines[1].startswith("bench 4/4 (1 resumed)") and lines[1].endswith("[t]")


def test_another_checker_rechecks_stored_responses_without_asking_again(tmp_path, capsys, fakes):
    first = _run(tmp_path, capsys, "--testee", "gguf:m.gguf")
    asked = len(fakes["m.gguf"].history)
    second = _run(tmp_path, capsys, "--testee", "gguf:m.gguf", "--checker", "gguf:judge.gguf")
    assert second["run"] == first["run"] and second["responses_new"] == 0
    assert second["checks_new"] > 0 and second["checker"] == "gguf:fake-llm"
    assert len(fakes["m.gguf"].history) == asked


def test_report_is_rewritten_from_the_store_alone(tmp_path, capsys, fakes, monkeypatch):
    first = _run(tmp_path, capsys, "--testee", "pipeline", "--testee", "gguf:m.gguf")
    monkeypatch.setattr(app_bench, "make_generator", None)  # no model may load now
    monkeypatch.setattr(common, "make_backends", None)
    out = tmp_path / "again"
    argv = ["bench", "report", str(first["run"]), "--db", str(tmp_path / "b.db"), "--out", str(out)]
    assert main(argv) == 0
    assert "40 checked responses" in capsys.readouterr().out
    stored = (tmp_path / "rep" / "report.md").read_text("utf-8")
    rewritten = (out / "report.md").read_text("utf-8")
    assert stored.split("## Metrics")[1] == rewritten.split("## Metrics")[1]
    assert main(["bench", "report", "99", "--db", str(tmp_path / "b.db")]) == 1
