"""The Ray scale-out's parts that need no cluster: options, the actor's task loop, the worker
cache, order checking, the read-only cache, the ingest batches and the `--ray` flags.
(tests/integration/test_ray_scale.py runs them on a local cluster.)"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from conflictdesk.app import Desk, RayOptions, ScoringOptions, load_settings
from conflictdesk.app.ingest import ingest_paths
from conflictdesk.app.scale import RayBatch, ScoringTask
from conflictdesk.errors import CapabilityError, InputError, UsageError
from conflictdesk.scale import cluster
from conflictdesk.scale.cache import WorkerCache
from conflictdesk.scale.runner import ModelWorker, TaskResult, WorkerSetup, _in_order
from conflictdesk.store import ReadOnlyCache, Store
from conflictdesk.types import Document
from tests.fakes import FakeEmbedder, MemoryCache, fake_backends

DOCS = (Document("The dose is 400 mg a day."), Document("The dose is 250 mg a day."))


def test_options_refuse_an_empty_pool():
    with pytest.raises(UsageError, match="--ray-workers"):
        RayOptions(workers=0)
    assert RayOptions(address="local").local and not RayOptions(address="auto").local


def test_missing_ray_names_the_install_command(monkeypatch):
    monkeypatch.setattr(cluster.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(CapabilityError, match=r"conflictdesk\[scale\]"):
        cluster.require_ray()


class Boom:
    def __call__(self, backends, cache):
        cache.put("stage", "model", "key", {"made": True}, 1.0)
        raise InputError("bad item")


def worker() -> ModelWorker:
    made = ModelWorker(WorkerSetup(lambda roles: fake_backends(), ("nli",)))
    made.cache = WorkerCache(lookup=None)  # only its own judgments: no reader is asked
    return made


def test_an_actor_runs_the_desks_detect_and_returns_its_new_judgments(tmp_path):
    task = ScoringTask("detect", "The dose is 400 mg.", DOCS, ScoringOptions(), run_id="x")
    result = worker().run(task)
    with Desk(
        load_settings(db_path=tmp_path / "d.db"), load_backends=lambda r: fake_backends()
    ) as desk:
        stored = desk.detect("The dose is 400 mg.", DOCS, ScoringOptions(), run_id="x")
    assert result.error is None and result.value == stored.output
    assert len(result.judgments) == stored.output["cached"]["total"] == 2


def test_an_items_error_comes_back_with_the_judgments_made_before_it():
    result = worker().run(Boom())
    assert isinstance(result.error, InputError) and result.value is None
    assert result.judgments == [("stage", "model", "key", {"made": True}, 1.0)]


def test_a_batch_keeps_its_order_and_the_actor_reuses_its_own_judgments():
    made = worker()
    task = ScoringTask("detect", "The dose is 400 mg.", DOCS, ScoringOptions(), run_id=1)
    again = ScoringTask("detect", "The dose is 400 mg.", DOCS, ScoringOptions(), run_id=2)
    batch = {"index": np.array([0, 1]), "task": [pickle.dumps(task), pickle.dumps(again)]}
    out = made(batch)
    first, second = (pickle.loads(r) for r in out["result"])
    assert [first.value["id"], second.value["id"]] == [1, 2]
    assert second.value["cached"] == {"hits": 2, "total": 2} and second.judgments == []


def test_rows_out_of_order_are_an_error_never_passed_on():
    rows = [{"index": 1, "result": pickle.dumps(TaskResult(value=1))}]
    with pytest.raises(RuntimeError, match="item 1 where 0 was due"):
        list(_in_order(iter(rows)))


def test_read_only_cache_reads_what_the_store_wrote_and_writes_nothing(tmp_path):
    path = tmp_path / "c.db"
    store = Store.open(path)
    store.cache.put("nli", "m", "h", {"label": "SUPPORTS"}, 3.0)
    reader = ReadOnlyCache(path)
    assert reader.get("nli", "m", "h") == {"label": "SUPPORTS"}
    assert reader.get("nli", "m", "other") is None
    with pytest.raises(PermissionError):
        reader.put("nli", "m", "x", {}, 1.0)
    store.close()


def test_a_ray_batch_runs_one_model_set(tmp_path):
    batch = RayBatch(Desk(load_settings(db_path=tmp_path / "b.db")), RayOptions())
    batch.detect("claim", DOCS, ScoringOptions())
    with pytest.raises(UsageError, match="one model set"):
        batch.detect("claim", DOCS, ScoringOptions(labeller="llm"))


def test_ingest_stream_embeds_the_same_batches_as_the_plain_ingest(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(30):
        (folder / f"d{n}.txt").write_text(" ".join(f"word{n} item{i}." for i in range(30)))
    plain, ahead = FakeEmbedder(), FakeEmbedder()

    def embed_all_first(many):  # reads every batch before the first is stored
        return iter([ahead.embed(texts) for texts in list(many)])

    reports = []
    for name, stream in (("plain", None), ("ahead", embed_all_first)):
        store = Store.open(tmp_path / f"{name}.db")
        embedder = plain if stream is None else ahead
        reports.append(ingest_paths(store, [folder], "c", embedder, max_words=12, overlap=2,
                                    embed_stream=stream).to_json())  # fmt: skip
        store.close()
    assert reports[0] == reports[1] and reports[0]["passages_added"] > 64
    assert ahead.history == plain.history and len(plain.history) > 1


def test_cache_hits_come_from_the_driver_when_the_actor_did_not_make_them():
    served = MemoryCache()
    served.put("nli", "m", "h", {"label": "REFUTES"}, 1.0)
    cache = WorkerCache(served.get)
    assert cache.get("nli", "m", "h") == {"label": "REFUTES"} and served.hits == 1
    assert cache.get("nli", "m", "missing") is None
    cache.put("nli", "m", "new", {"label": "SUPPORTS"}, 2.0)
    assert cache.get("nli", "m", "new") == {"label": "SUPPORTS"} and served.hits == 1
    assert cache.drain() == [("nli", "m", "new", {"label": "SUPPORTS"}, 2.0)] and not cache.drain()


def test_ray_flags_parse_to_options():
    from conflictdesk.cli import build_parser
    from conflictdesk.cli.common import ray_options_from_args

    parser = build_parser()
    assert ray_options_from_args(parser.parse_args(["detect", "x.jsonl"])) is None
    local = ray_options_from_args(parser.parse_args(["score", "-", "--ray", "--ray-workers", "3"]))
    assert local == RayOptions(address="local", workers=3) and local.local
    remote = parser.parse_args(["ingest", "docs", "-c", "c", "--ray", "10.0.0.5:6379"])
    assert ray_options_from_args(remote).address == "10.0.0.5:6379"


def test_ray_on_a_single_question_is_a_usage_error(capsys):
    from conflictdesk.cli import main

    assert main(["ask", "How tall?", "-c", "c", "--ray"]) == 2
    assert "--ray runs batches" in capsys.readouterr().err
