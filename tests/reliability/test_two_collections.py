"""Databases with more than one collection: search and ask stay scoped to the one asked for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflictdesk.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "docs"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code)
    out, err = capsys.readouterr()
    return code, out, err


def two_collections(tmp_path, capsys) -> str:
    db = str(tmp_path / "two.db")
    assert run(capsys, "ingest", str(EXAMPLES), "-c", "A", "--no-embed", "--db", db)[0] == 0
    other = tmp_path / "other.txt"
    other.write_text("Mount Ysolde is also the name of a ship launched in 1911 at Brest.\n")
    assert run(capsys, "ingest", str(other), "-c", "B", "--no-embed", "--db", db)[0] == 0
    return db


def test_lexical_search_on_one_of_two_collections(tmp_path, capsys):
    db = two_collections(tmp_path, capsys)
    for name, must in (("A", "examples"), ("B", "ship")):
        code, out, err = run(
            capsys, "search", "Mount Ysolde", "-c", name, "--lexical-only", "--db", db, "--json"
        )
        assert code == 0, err
        results = json.loads(out)["results"]
        assert results, name
        if name == "B":
            assert len(results) == 1 and must in results[0]["text"]
        else:
            assert all("ship launched" not in r["text"] for r in results)


@pytest.mark.integration
def test_ask_on_one_of_two_collections_with_real_models(tmp_path, capsys):
    db = str(tmp_path / "two.db")
    assert run(capsys, "ingest", str(EXAMPLES), "-c", "A", "--db", db)[0] == 0
    other = tmp_path / "other.txt"
    other.write_text("Mount Ysolde is also the name of a ship launched in 1911 at Brest.\n")
    assert run(capsys, "ingest", str(other), "-c", "B", "--db", db)[0] == 0
    code, out, err = run(
        capsys, "ask", "How tall is Mount Ysolde?", "-c", "A", "--db", db, "--json"
    )
    assert code == 0, err
    record = json.loads(out)
    texts = json.dumps(record)
    assert "ship launched" not in texts
    assert record["conflict_type"]
