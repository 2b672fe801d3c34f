"""`conflictdesk ask` and `conflictdesk demo` on fake back-ends and a real SQLite store."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from conflictdesk.app import AskRequest, Desk, load_settings
from conflictdesk.cli import common, main
from conflictdesk.store import Store
from tests.fakes import fake_backends

SCHEMA_KEYS = {
    "id",
    "stance",
    "conflict_type",
    "type_confidence",
    "type_uncertain",
    "kappa",
    "leading",
    "evidence",
    "clusters",
    "pairs",
    "answer",
    "conflict",
    "method",
}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DOCS = [
    "The population of Broken Bow was 3,559 people in 2010.",
    "Broken Bow had 10,000 people in 2010.",
    "Broken Bow is a city in Custer County, Nebraska.",
]


@pytest.fixture(autouse=True)
def fake_models(monkeypatch):
    monkeypatch.setattr(common, "make_backends", lambda settings, roles: fake_backends())


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code)
    out, err = capsys.readouterr()
    return code, out, err


def _runs(db: Path) -> list[dict]:
    with Store.open(db) as store:
        return store.runs(kind="ask")


def test_batch_with_inline_documents_and_bad_lines(tmp_path, capsys):
    batch = tmp_path / "q.jsonl"
    batch.write_text(
        "\n".join(
            [
                json.dumps(
                    {
                        "id": "good",
                        "query": "What is the population of Broken Bow?",
                        "documents": DOCS,
                    }
                ),
                "{not json",
                json.dumps({"id": "noquery", "documents": DOCS}),
                json.dumps({"id": "nodocs", "query": "Who?"}),  # no documents, no --collection
                json.dumps(
                    {"id": "badtype", "query": "Who?", "documents": DOCS, "conflict_type": "gossip"}
                ),
            ]
        )
        + "\n"
    )
    db = tmp_path / "a.db"
    code, out, err = run(capsys, "ask", str(batch), "--db", str(db))
    assert code == 1
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["id"] for line in lines] == ["good", 2, "noquery", "nodocs", "badtype"]
    good = lines[0]
    assert set(good) == SCHEMA_KEYS
    cited = {c for sentence in good["answer"] for c in sentence["cites"]}
    assert cited <= {0, 1, 2}  # indices into the given documents
    assert all("error" in line for line in lines[1:])
    assert "query" in lines[2]["error"] and "--collection" in lines[3]["error"]
    assert "gossip" in lines[4]["error"]
    assert err.count("conflictdesk: line") == 4
    (stored,) = _runs(db)
    assert stored["input"]["documents"][0]["text"] == DOCS[0]
    assert set(stored["output"]) == {"record", "analysis", "answer"}
    assert stored["output"]["record"] == good
    assert stored["output"]["analysis"]["packet"]["passage_ids"]


def test_batch_from_stdin(tmp_path, capsys, monkeypatch):
    line = json.dumps(
        {"id": 7, "query": "What is the population of Broken Bow?", "documents": DOCS}
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(line + "\n"))
    code, out, _ = run(capsys, "ask", "-", "--db", str(tmp_path / "a.db"))
    assert code == 0
    assert json.loads(out)["id"] == 7


def test_single_question_over_a_collection(tmp_path, capsys):
    from conflictdesk.app.ingest import ingest_paths

    db = tmp_path / "a.db"
    with Store.open(db) as store:
        ingest_paths(store, [EXAMPLES / "docs"], "ex", fake_backends().embedder)
    code, out, err = run(
        capsys,
        "ask",
        "Who is the chief executive officer of Orvane Systems?",
        "-c",
        "ex",
        "-k",
        "6",
        "--db",
        str(db),
        "--json",
    )
    assert code == 0, err
    record = json.loads(out)
    assert set(record) == SCHEMA_KEYS
    assert isinstance(record["type_uncertain"], bool)
    if record["method"]["conflict_type"].startswith("model:"):
        assert 0.0 < record["type_confidence"] <= 1.0
    else:
        assert record["type_confidence"] is None
    (stored,) = _runs(db)
    assert record["id"] == stored["id"]
    with Store.open(db) as store:
        known = {p.id for p in store.collection_passages("ex")}
    assert {c for s in record["answer"] for c in s["cites"]} <= known  # stored passage ids

    code, out, _ = run(
        capsys,
        "ask",
        "Who is the chief executive officer of Orvane Systems?",
        "-c",
        "ex",
        "--db",
        str(db),
    )
    assert code == 0
    assert "Evidence" in out and "Answer" in out and "saved as run 2" in out


def test_usage_errors(tmp_path, capsys):
    db = str(tmp_path / "a.db")
    code, _, err = run(capsys, "ask", "Who?", "--db", db)
    assert code == 2 and "--collection" in err
    code, _, err = run(capsys, "ask", "missing.jsonl", "--db", db)
    assert code == 2 and "no such file" in err
    code, _, err = run(capsys, "ask", "Who?", "-c", "x", "-k", "0", "--db", db)
    assert code == 2


def test_llm_strategy_without_llm_fails_with_a_clear_message(tmp_path, capsys):
    batch = tmp_path / "q.jsonl"
    batch.write_text(json.dumps({"id": 1, "query": "Who?", "documents": DOCS}) + "\n")
    code, out, err = run(
        capsys, "ask", str(batch), "--strategy", "pipeline", "--db", str(tmp_path / "a.db")
    )
    assert code == 1
    assert "--llm" in json.loads(out)["error"] and "--llm" in err


def test_help_has_examples(capsys):
    code, out, _ = run(capsys, "ask", "--help")
    assert code == 0 and "examples:" in out and "conflictdesk ask -" in out


def test_demo_ingests_once_and_prints_the_type_table(tmp_path, capsys):
    db = str(tmp_path / "d.db")
    code, out, err = run(capsys, "demo", "--db", db)
    assert code == 0, err
    assert "documents added" in out
    table = out[out.index("question ") :]
    for qid in ("quillmere-lighthouse", "ysolde-height", "orvane-ceo"):
        assert qid in table
    assert "conflict types as expected" in table
    assert out.count("Evidence") == 6
    code, out, _ = run(capsys, "demo", "--db", db)
    assert code == 0 and "0 documents added" in out  # idempotent
    assert len(_runs(Path(db))) == 12


def test_ask_reuses_stored_vectors_and_the_query_vector(tmp_path):
    backends = fake_backends()
    embedder = backends.embedder
    settings = load_settings(path=tmp_path / "none.toml", env={}, db_path=tmp_path / "m.db")
    with Desk(settings, load_backends=lambda roles: backends) as desk:
        desk.ingest([EXAMPLES / "docs"], "ex")
        calls = len(embedder.history)
        outcome = desk.ask(AskRequest("How tall is Mount Ysolde?", collection="ex", k=5))
        encoded = [text for call in embedder.history[calls:] for text in call]
        assert encoded.count("How tall is Mount Ysolde?") == 1  # the query, once
        stored = {p.text for p in outcome.analysis.passages}
        assert len(stored) == 5 and not stored & set(encoded)  # no stored passage re-embedded
        assert outcome.run_id == desk.history()[0].id
