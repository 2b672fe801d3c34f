"""The application layer on a real SQLite store and fake back-ends: use cases, cancel, wire
formats, settings and the shipped locations."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from conflictdesk.app import (
    AskRequest,
    Cancelled,
    Desk,
    ModelRow,
    ModelsReport,
    RunRecord,
    ScoringOptions,
    StageRow,
    load_settings,
    shipped_examples,
    shipped_models,
)
from conflictdesk.errors import ModelMissingError, UsageError
from conflictdesk.types import ConflictType, Document, Passage
from tests.fakes import fake_backends

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "docs"
DOCS = [Document("Velsarin is dosed at 250 mg."), Document("Velsarin is dosed at 400 mg.")]


@pytest.fixture
def desk(tmp_path):
    backends, roles = fake_backends(), []

    def load(asked):
        roles.append(asked)
        return backends

    settings = load_settings(path=tmp_path / "none.toml", env={}, db_path=tmp_path / "d.db")
    with Desk(settings, load_backends=load) as opened:
        opened.roles_loaded = roles  # type: ignore[attr-defined]
        yield opened


def test_a_cancelled_score_raises_and_stores_nothing(desk):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        desk.score("Velsarin is dosed at 250 mg.", DOCS, ScoringOptions(), cancel=cancel)
    assert desk.history() == []
    stored = desk.score("Velsarin is dosed at 250 mg.", DOCS, ScoringOptions())
    assert stored.output["cs_c"] == 1.0 and desk.run(stored.run_id).kind == "score"
    assert desk.run(stored.run_id).input["documents"] == [d.to_json() for d in DOCS]


def test_each_use_case_loads_only_the_roles_it_needs(desk):
    desk.score("Velsarin is dosed at 250 mg.", DOCS, ScoringOptions())
    desk.score("Velsarin is dosed at 250 mg.", DOCS, ScoringOptions())  # loaded once
    desk.detect("Velsarin is dosed at 250 mg.", DOCS, ScoringOptions())  # the superset serves
    desk.score("x y.", DOCS, ScoringOptions(variant="salient"))  # needs the embedder too
    assert desk.roles_loaded == [("nli", "llm"), ("nli", "llm", "embedder")]


@pytest.mark.parametrize("bad", [{"threshold": 0.0}, {"threshold": 1.5}, {"salient_k": 0}])
def test_scoring_options_are_checked(bad):
    with pytest.raises(UsageError):
        ScoringOptions(**bad)


def test_lexical_search_loads_no_model_and_inline_ask_stores_its_documents(desk):
    desk._load = lambda roles: pytest.fail(f"no model should load for {roles}")
    assert desk.collections() == []
    desk._load = lambda roles: fake_backends()
    desk.ingest([EXAMPLES], "ex", embed=False)
    desk._load = lambda roles: pytest.fail(f"no model should load for {roles}")
    found = desk.search("Ysolde metres", "ex", 3, lexical_only=True)
    assert found.passages and found.method["dense"] == "none" and found.vectors == {}
    desk._load = lambda roles: fake_backends()
    documents = (Passage(0, "The dose is 250 mg."), Passage(1, "The dose is 400 mg."))
    outcome = desk.ask(AskRequest("What is the dose?", documents=documents, id="q1"))
    assert outcome.record["id"] == "q1"
    assert desk.run(outcome.run_id).input["documents"] == [{"text": p.text} for p in documents]


def test_ask_cancelled_before_the_analysis_stores_nothing(desk):
    desk.ingest([EXAMPLES], "ex")
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled, match="retrieval"):
        desk.ask(AskRequest("How tall is Mount Ysolde?", collection="ex"), cancel=cancel)
    assert desk.history() == []


def test_wire_types_round_trip_through_json():
    request = AskRequest("Who?", documents=(Passage(0, "A.", 0, title="t"),), k=5,
                         strategy="extractive", gold_type=ConflictType.OUTDATED, id=3)  # fmt: skip
    again = AskRequest.from_json(request.to_json())
    assert again.to_json() == request.to_json() and again.gold_type is ConflictType.OUTDATED
    assert "ranker" not in request.to_json()  # the default keeps the stored shape
    ranked = AskRequest("Who?", collection="c", ranker="model", reader="model", verdict="model",
                        tiers="cascade")  # fmt: skip
    again = AskRequest.from_json(ranked.to_json())
    assert (again.ranker, again.reader, again.verdict, again.tiers) == ("model",) * 3 + ("cascade",)
    assert "tiers" not in request.to_json() and request.tiers == "fast"
    run = RunRecord(7, "ask", "2026-11-23T10:00:00+00:00", {"query": "How  tall\nis it?"}, {})
    assert RunRecord.from_json(run.to_json()) == run
    assert (
        run.summary().summary == "How tall is it?" and run.summary().created == "2026-11-23T10:00"
    )
    report = ModelsReport("m.json", "cpu", None, False,
                          (ModelRow("e", "embedder", "/m/e", "missing", "gone"),),
                          (StageRow("tag", "nli", False),), ("note",))  # fmt: skip
    assert ModelsReport.from_json(report.to_json()) == report
    assert report.to_json()["models"][0]["present"] is False


def test_settings_locations_file_env_flags(tmp_path):
    toml = tmp_path / "c.toml"
    toml.write_text(f'db_path = "{tmp_path / "file.db"}"\ncache_dir = "{tmp_path}"\n')
    env = {"CONFLICTDESK_DB": str(tmp_path / "env.db"), "CONFLICTDESK_DATA": str(tmp_path)}
    settings = load_settings(path=toml, env=env)
    assert settings.db_path == tmp_path / "env.db"  # env beats file
    assert settings.data_dir == tmp_path and settings.cache_dir == tmp_path
    flagged = load_settings(path=toml, env=env, db_path=tmp_path / "flag.db")
    assert flagged.db_path == tmp_path / "flag.db"
    bare = load_settings(path=tmp_path / "none.toml", env={})
    assert bare.db_path.name == "conflictdesk.db" and bare.data_dir is None
    assert bare.models_dir == shipped_models()


def test_shipped_folders_hold_the_models_and_examples():
    assert (shipped_models() / "manifest.json").is_file()
    assert (shipped_examples() / "questions.jsonl").is_file()


def test_a_missing_shipped_folder_names_the_fix(monkeypatch):
    from conflictdesk import locations

    monkeypatch.setattr(locations.importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(locations, "editable_source", lambda: None)
    with pytest.raises(ModelMissingError, match="pip install"):
        locations.shipped_models()


def test_ask_without_saving_the_run_leaves_the_history_empty(desk):
    documents = (Passage(0, "The dose is 250 mg."), Passage(1, "The dose is 400 mg."))
    request = AskRequest("What is the dose?", documents=documents, id="q1")
    unsaved = desk.ask(request, save_run=False)
    assert unsaved.run_id == 0 and unsaved.record["id"] == "q1"
    assert desk.history() == []
    saved = desk.ask(request)
    assert [run.id for run in desk.history()] == [saved.run_id] and saved.run_id > 0
    assert saved.answer.text == unsaved.answer.text


def test_scoring_options_reject_an_unknown_verdict():
    assert ScoringOptions(verdict="model").verdict == "model"
    with pytest.raises(UsageError, match="--verdict"):
        ScoringOptions(verdict="vote")


def test_ask_with_unknown_tiers_is_a_usage_error_and_stores_nothing(desk):
    documents = (Passage(0, "Mount Ysolde is 2,310 metres tall.", 0),)
    with pytest.raises(UsageError, match="tiers must be one of fast, cascade"):
        desk.ask(AskRequest("How tall is Mount Ysolde?", documents=documents, tiers="slow"))
    assert desk.history() == []
