"""`ask`, `score`, `detect` and `bench` on the real OpenAI-compatible server that
llama-cpp-python ships (SmolLM2 fixture on 127.0.0.1), with the shipped embedder and NLI;
and `models list` held to the methods those outputs report, with and without the LLM.
SmolLM2-135M is a test fixture: the assertions are about routes, shapes and methods."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

DIGEST = "pinned-test-digest"
DOCS = ["Mount Ysolde is 4,200 metres tall.", "Mount Ysolde rises to 3,900 metres."]
ASK = {"id": "q", "query": "How tall is Mount Ysolde?", "documents": DOCS}
SCORE = {"id": "s", "response": "Mount Ysolde is 4,200 metres tall.", "documents": DOCS}
CORPUS = Path(__file__).resolve().parents[2] / "examples" / "ragability.tsv"


def conflictdesk(*argv: str, stdin: str = "", db: Path | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFLICTDESK_LLM")}
    env["CONFLICTDESK_LLM_TIMEOUT"] = "900"  # a loaded 2-core machine is slow, not wrong
    return subprocess.run(
        [sys.executable, "-m", "conflictdesk", *argv, *(["--db", str(db)] if db else [])],
        input=stdin, capture_output=True, text=True, env=env, timeout=1800, check=False,
    )  # fmt: skip


def jsonl(result: subprocess.CompletedProcess) -> list[dict]:
    assert result.returncode == 0, result.stderr[-2000:]
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.fixture(scope="module")
def runs(llama_server, tmp_path_factory):
    """ask and score once with the server (model and digest pinned) and once without an
    LLM, with the `models list --json` of each configuration."""
    db = tmp_path_factory.mktemp("server") / "s.db"
    out = {}
    for name, flags in {
        "server": ["--llm-url", llama_server.url, "--llm-model", "smollm2",
                   "--llm-digest", DIGEST],
        "none": [],
    }.items():  # fmt: skip
        out[name] = {
            "ask": jsonl(conflictdesk("ask", "-", *flags, stdin=json.dumps(ASK), db=db))[0],
            "score": jsonl(conflictdesk("score", "-", *flags, stdin=json.dumps(SCORE), db=db))[0],
            "report": jsonl(conflictdesk("models", "list", "--json", *flags, db=None))[0],
        }
    return out


def test_ask_runs_its_llm_stages_on_the_server(runs):
    ask = runs["server"]["ask"]
    model = f"openai:smollm2@{DIGEST}"
    assert ask["method"]["llm"] == model
    assert ask["method"]["classify"] == f"llm:{model}"
    assert ask["method"]["generation"] == f"llm:{model}:pipeline"
    assert ask["method"]["parametric"] in ("agree", "disagree")
    assert ask["conflict_type"] and isinstance(ask["answer"], (str, dict, list))


def test_score_decomposes_on_the_server(runs):
    score = runs["server"]["score"]
    assert f"claims=llm-table6(openai:smollm2@{DIGEST})" in score["method"]
    # SmolLM2-135M may find no claim at all; with claims, the scores are in range
    assert isinstance(score["claims"], list)
    assert score["cs_c"] is None if not score["claims"] else 0.0 <= score["cs_c"] <= 1.0


def expected_in_output(stage: str, method: str, run: dict) -> None:
    """The reported method is what the stage wrote into the ask or score output."""
    ask, score = run["ask"]["method"], run["score"]["method"]
    if stage == "tag":
        assert ask["tag"].startswith(method + " ")
    elif stage == "pairs":
        assert ask["pairs"] == method
    elif stage == "classify":
        assert ask["classify"] == method
    elif stage == "answer":
        assert ask["generation"].startswith(method.split("<")[0])
    elif stage == "parametric":
        assert (ask["parametric"] in ("agree", "disagree")) == method.startswith("closed-book")
        assert method.startswith("closed-book") or ask["parametric"] == method
    elif stage == "decompose":
        assert f"claims={method}" in score
    elif stage == "label":
        assert f"labels={method}" in score


@pytest.mark.parametrize("configuration", ["server", "none"])
def test_models_list_reports_the_methods_the_outputs_carry(runs, configuration):
    run = runs[configuration]
    stages = {row["stage"]: row for row in run["report"]["stages"]}
    checked = ("tag", "pairs", "classify", "answer", "parametric", "decompose", "label")
    for stage in checked:
        expected_in_output(stage, stages[stage]["method"], run)
        uses_llm = "openai:" in stages[stage]["method"]
        assert stages[stage]["llm"] == uses_llm, stage
    assert stages["tag"]["llm"] is False and stages["label"]["llm"] is False
    regenerate = stages["regenerate"]["method"]
    assert regenerate.startswith("llm-table13(" if configuration == "server" else "unavailable")


def test_detect_labels_by_logprobs_on_the_server(llama_server, tmp_path):
    line = {"id": 1, "claim": "Mount Ysolde is 4,200 metres tall.", "documents": DOCS}
    result = conflictdesk("detect", "-", "--labeller", "llm", "--llm-url", llama_server.url,
                          stdin=json.dumps(line), db=tmp_path / "d.db")  # fmt: skip
    (out,) = jsonl(result)
    assert out["method"].startswith("labels=llm-table7(openai:smollm2@")
    assert "label scores by logprobs (2)" in out["method"]
    assert len(out["relations"]) == 2


def test_bench_with_a_server_testee_and_checker(llama_server, tmp_path):
    target = f"openai:{llama_server.url}"
    result = conflictdesk(
        "bench", "run", str(CORPUS), "--testee", target, "--checker", target, "--limit", "1",
        "--out", str(tmp_path / "rep"), "--json", db=tmp_path / "b.db",
    )  # fmt: skip
    (report,) = jsonl(result)
    assert report["responses_new"] == 1
    assert report["checker"].startswith("openai:smollm2@")
    assert {s["testee"] for s in report["scores"]} == {report["checker"]}
    assert (tmp_path / "rep" / "responses.tsv").stat().st_size > 0
