"""ingest / search / collections through `conflictdesk.cli.main` (real SQLite, no model:
--no-embed and --lexical-only; the embedder path is in tests/integration)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflictdesk.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "docs"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse usage errors
        code = int(exc.code)
    out, err = capsys.readouterr()
    return code, out, err


def test_ingest_search_collections_json(tmp_path, capsys):
    db = str(tmp_path / "c.db")
    code, out, err = run(capsys, "ingest", str(EXAMPLES), "-c", "ex", "--no-embed", "--db", db, "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["documents_added"] == 15 and summary["failed"] == 0
    assert summary["embedded_with"] is None and err == ""  # quiet when not a terminal

    code, out, _ = run(capsys, "collections", "--db", db, "--json")
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert (row["name"], row["documents"], row["passages"]) == ("ex", 15, summary["passages_added"])

    code, out, _ = run(capsys, "search", "Who is the chief executive of Orvane?", "-c", "ex",
                       "-k", "3", "--lexical-only", "--db", db, "--json")
    assert code == 0
    result = json.loads(out)
    assert result["method"]["dense"] == "none"
    assert [("Orvane" in r["text"], r["bm25_rank"]) for r in result["results"]] == [(True, 1), (True, 2)]
    top = result["results"][0]
    assert set(top) >= {"id", "document_id", "title", "date", "source", "relevance", "text"}


def test_human_output(tmp_path, capsys):
    db = str(tmp_path / "c.db")
    code, out, _ = run(capsys, "ingest", str(EXAMPLES / "ysolde_facts.csv"), "-c", "m", "--no-embed", "--db", db)
    assert code == 0 and out.startswith("m: 1 file(s), 3 document(s) added")
    code, out, _ = run(capsys, "search", "Ysolde", "-c", "m", "--lexical-only", "--db", db)
    assert code == 0 and out.lstrip().startswith("1. [")
    code, out, _ = run(capsys, "collections", "--db", db)
    assert out.splitlines()[1].split()[:3] == ["m", "3", "3"]


def test_partial_failure_exit_1_with_one_line_per_file(tmp_path, capsys):
    (tmp_path / "good.txt").write_text("fine text")
    (tmp_path / "bad.txt").write_bytes(b"\x00\x00")
    code, out, err = run(capsys, "ingest", str(tmp_path / "good.txt"), str(tmp_path / "bad.txt"),
                         "-c", "x", "--no-embed", "--db", str(tmp_path / "c.db"))
    assert code == 1
    assert err.splitlines() == [f"conflictdesk: {tmp_path / 'bad.txt'}: binary file (NUL bytes), not text"]
    assert "1 document(s) added" in out and "1 failed" in out


def test_usage_errors_exit_2(tmp_path, capsys):
    db = str(tmp_path / "c.db")
    assert run(capsys, "ingest", str(tmp_path), "--db", db)[0] == 2  # no --collection
    assert run(capsys, "search", "x", "-c", "x", "-k", "0", "--lexical-only", "--db", db)[0] == 2
    code, _, err = run(capsys, "search", "x", "-c", "x", "--lexical-only", "--db", str(tmp_path / "none.db"))
    assert code == 2 and "no database" in err
    code, _, err = run(capsys, "ingest", str(tmp_path), "-c", "x", "--words", "5", "--overlap", "9",
                       "--no-embed", "--db", db)
    assert code == 2 and "--overlap" in err


def test_unknown_collection_exit_1(tmp_path, capsys):
    db = str(tmp_path / "c.db")
    run(capsys, "collections", "--db", db)
    code, _, err = run(capsys, "search", "x", "-c", "nope", "--lexical-only", "--db", db)
    assert code == 1 and "no collection named 'nope'" in err


def test_delete_collection(tmp_path, capsys):
    db = str(tmp_path / "c.db")
    run(capsys, "ingest", str(EXAMPLES / "ysolde_blog.txt"), "-c", "tmp", "--no-embed", "--db", db)
    code, out, _ = run(capsys, "collections", "--delete", "tmp", "--db", db, "--json")
    assert code == 0 and out == ""


@pytest.mark.parametrize("command", ["ingest", "search", "collections"])
def test_help_has_examples(capsys, command):
    code, out, _ = run(capsys, command, "--help")
    assert code == 0 and "examples:" in out and "--json" in out
