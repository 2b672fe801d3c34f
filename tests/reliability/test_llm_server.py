"""A failing LLM server never stops a batch: the line whose model call failed gets an error
object naming the server and the failure, the others their results, and the exit status is 1.
The embedder and NLI are fakes; the LLM is the real server back-end on a scripted fake server."""

from __future__ import annotations

import json

import pytest

from conflictdesk.cli import common
from tests.fakes import fake_backends
from tests.servers import FakeServer, chat, closed_port, schema_answers

DOCS = ["Mount Ysolde is 4,200 metres tall.", "Mount Ysolde rises to 3,900 metres."]


@pytest.fixture
def server_llm(monkeypatch):
    """Fake embedder, NLI and pair model; the LLM is built from the settings by the registry's
    server builder, so --llm-url and the CONFLICTDESK_LLM_* variables reach it."""
    from conflictdesk.backends.registry import build_server_llm

    def make(settings, roles):
        backends = fake_backends()
        backends.llm = build_server_llm(settings) if settings.llm_url else None
        return backends

    monkeypatch.setattr(common, "make_backends", make)


def lines(records):
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def outputs(result):
    return [json.loads(line) for line in result.out.splitlines()]


def test_score_batch_goes_on_past_a_500_and_a_malformed_reply(cli, server_llm, tmp_path):
    records = [{"id": "ok1", "response": "Mount Ysolde is 4,200 metres tall.", "documents": DOCS},
               {"id": "down", "response": "BROKEN claim.", "documents": DOCS},
               {"id": "bad", "response": "MALFORMED claim.", "documents": DOCS},
               {"id": "ok2", "response": "It rises to 3,900 metres.", "documents": DOCS}]  # fmt: skip
    with FakeServer(schema_answers) as server:
        result = cli("score", "-", "--db", str(tmp_path / "s.db"), "--llm-url", server.url,
                     stdin=lines(records))  # fmt: skip
    out = {o["id"]: o for o in outputs(result)}
    assert result.code == 1 and list(out) == ["ok1", "down", "bad", "ok2"]
    assert (
        "answered HTTP 500" in out["down"]["error"] and "internal failure" in out["down"]["error"]
    )
    assert "not JSON" in out["bad"]["error"]
    for good in ("ok1", "ok2"):
        assert "claims=llm-table6(openai:fake-model@" in out[good]["method"]
    assert "line 2 (id down)" in result.err and "line 3 (id bad)" in result.err


def test_ask_batch_goes_on_past_a_failing_server_call(cli, server_llm, tmp_path):
    records = [{"id": 1, "query": "How tall is Mount Ysolde?", "documents": DOCS},
               {"id": 2, "query": "BROKEN: how tall?", "documents": DOCS}]  # fmt: skip
    with FakeServer(schema_answers) as server:
        result = cli("ask", "-", "--db", str(tmp_path / "a.db"), "--llm-url", server.url,
                     stdin=lines(records))  # fmt: skip
    first, second = outputs(result)
    assert result.code == 1
    assert first["method"]["classify"].startswith("llm:openai:fake-model@")
    assert second == {"id": 2, "error": second["error"]} and "HTTP 500" in second["error"]


def test_a_server_that_is_down_fails_each_line_with_the_fix(cli, server_llm, tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    records = [{"id": i, "response": "Mount Ysolde is 4,200 metres.", "documents": DOCS}
               for i in (1, 2)]  # fmt: skip
    result = cli("score", "-", "--db", str(tmp_path / "d.db"), "--llm-url", url,
                 stdin=lines(records))  # fmt: skip
    assert result.code == 1
    assert [o["id"] for o in outputs(result)] == [1, 2]
    assert all("cannot reach the LLM server" in o["error"] for o in outputs(result))
    assert "is it running, and is llm_url right?" in result.err


def test_a_timeout_fails_its_line_only(cli, server_llm, tmp_path, monkeypatch):
    def slow_on_request(path, body):
        status, payload, _ = schema_answers(path, body)
        return status, payload, 2.0 if "SLOW" in json.dumps(body["messages"]) else 0.0

    monkeypatch.setenv("CONFLICTDESK_LLM_TIMEOUT", "0.5")
    records = [
        {"id": "slow", "response": "SLOW claim here.", "documents": DOCS},
        {"id": "fast", "response": "Mount Ysolde is 4,200 metres.", "documents": DOCS},
    ]
    with FakeServer(slow_on_request) as server:
        result = cli("score", "-", "--db", str(tmp_path / "t.db"), "--llm-url", server.url,
                     stdin=lines(records))  # fmt: skip
    slow, fast = outputs(result)
    assert result.code == 1 and "within 0.5 s" in slow["error"] and "cs_c" in fast


def test_regenerate_runs_on_a_server(cli, server_llm, tmp_path):
    def revise(path, body):
        if body.get("response_format") is None and "max_tokens" in body:
            return chat("Mount Ysolde is 4,200 metres tall, though one source says 3,900.")
        return schema_answers(path, body)

    record = {"id": 1, "question": "How tall is Mount Ysolde?",
              "response": "Mount Ysolde is 4,200 metres tall.", "documents": DOCS}  # fmt: skip
    with FakeServer(revise) as server:
        result = cli("regenerate", "-", "--db", str(tmp_path / "r.db"), "--llm-url", server.url,
                     stdin=lines([record]))  # fmt: skip
    (out,) = outputs(result)
    assert result.code == 0, result.err
    assert "openai:fake-model@" in out["method"]
