"""The OpenAI-compatible server back-end against a scripted fake server: identity and cache
key, structured output and its fallbacks, label scoring, and every failure a server has."""

from __future__ import annotations

import json

import pytest

from conflictdesk.backends.http_client import JsonClient
from conflictdesk.backends.openai_server import OpenAIServerGenerator, label_distribution
from conflictdesk.backends.registry import build_server_llm
from conflictdesk.config import Settings
from conflictdesk.errors import ModelOutputError, ServerError, UsageError
from tests.servers import MODELS, FakeServer, chat, closed_port

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
ASK = [{"role": "user", "content": "How many?"}]


def replies(*queue):
    """A script answering POSTs from `queue` in order (the last one repeats)."""
    items = list(queue)
    return lambda path, body: items.pop(0) if len(items) > 1 else items[0]


def test_model_id_reads_the_served_model_and_ignores_volatile_fields():
    with FakeServer(replies(chat("hi"))) as server:
        first = OpenAIServerGenerator(server.url).model_id
    later = {"object": "list", "data": [dict(MODELS["data"][0], created=99)]}
    with FakeServer(replies(chat("hi")), models=later) as server:
        again = OpenAIServerGenerator(server.url).model_id
    assert first == again and first.startswith("openai:fake-model@") and len(first) == 30
    other = {"object": "list", "data": [dict(MODELS["data"][0], owned_by="someone else")]}
    with FakeServer(replies(chat("hi")), models=other) as server:
        assert OpenAIServerGenerator(server.url).model_id != first


def test_a_pinned_model_and_digest_ask_the_server_nothing():
    with FakeServer(replies(chat("hi"))) as server:
        generator = OpenAIServerGenerator(server.url, model="m", digest="sha-pinned")
        assert generator.model_id == "openai:m@sha-pinned"
        assert server.history == []


def test_several_models_need_a_name_and_an_unserved_name_is_refused():
    two = {"object": "list", "data": [{"id": "a"}, {"id": "b"}]}
    with FakeServer(replies(chat("hi")), models=two) as server:
        with pytest.raises(ServerError, match=r"serves 2 models \['a', 'b'\].*--llm-model"):
            _ = OpenAIServerGenerator(server.url).model_id
        with pytest.raises(ServerError, match="does not serve 'c'"):
            _ = OpenAIServerGenerator(server.url, model="c").model_id
        assert OpenAIServerGenerator(server.url, model="b").model_id.startswith("openai:b@")


def test_generate_sends_the_model_and_the_key_from_the_environment(monkeypatch):
    monkeypatch.setenv("CONFLICTDESK_LLM_KEY", "s3cret")
    with FakeServer(replies(chat("  an answer "))) as server:
        settings = Settings(models_dir=".", llm_url=server.url, llm_timeout=5)
        generator = build_server_llm(settings)
        assert generator.generate(ASK, max_tokens=7) == "  an answer "
        _, path, body, headers = server.history[-1]
    assert path == "/v1/chat/completions"
    assert body["model"] == "fake-model" and body["max_tokens"] == 7 and body["messages"] == ASK
    assert headers["Authorization"] == "Bearer s3cret"


def rejects_json_schema(path, body):
    """llama-cpp-python's server: json_schema is a validation error (HTTP 500)."""
    kind = (body.get("response_format") or {}).get("type")
    if kind == "json_schema":
        detail = {"error": {"message": "('body', 'response_format', 'type'): 'text' or "
                            "'json_object'"}}  # fmt: skip
        return 500, json.dumps(detail).encode(), 0.0
    return chat('{"n": 3}')


def test_structured_output_falls_back_to_json_object_and_remembers():
    with FakeServer(rejects_json_schema) as server:
        generator = OpenAIServerGenerator(server.url)
        assert generator.generate_json(ASK, SCHEMA) == {"n": 3}
        assert generator.generate_json(ASK, SCHEMA) == {"n": 3}
        kinds = [body["response_format"]["type"] for body in server.posts()]
    assert kinds == ["json_schema", "json_object", "json_object"]
    assert generator.structured_mode == "json_object"
    assert server.posts()[-1]["response_format"]["schema"] == SCHEMA


def test_a_server_without_structured_output_gets_the_schema_in_the_prompt():
    def plain_only(path, body):
        if "response_format" in body:
            return 400, b'{"error": "unknown field response_format"}', 0.0
        return chat('{"n": 1}')

    with FakeServer(plain_only) as server:
        generator = OpenAIServerGenerator(server.url)
        assert generator.generate_json(ASK, SCHEMA) == {"n": 1}
        assert generator.structured_mode == "prompt"
        assert "matches this JSON schema" in server.posts()[-1]["messages"][-1]["content"]


def test_invalid_json_is_retried_once_then_refused():
    with FakeServer(replies(chat("not json"), chat('{"n": 2}'))) as server:
        assert OpenAIServerGenerator(server.url).generate_json(ASK, SCHEMA) == {"n": 2}
        retry = server.posts()[-1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "not json"}
    assert "was not valid (not JSON" in retry[-1]["content"]
    with FakeServer(replies(chat('{"n": "two"}'))) as server:
        with pytest.raises(ModelOutputError, match="no valid JSON after a retry"):
            OpenAIServerGenerator(server.url).generate_json(ASK, SCHEMA)
        assert len(server.posts()) == 2


def test_labels_from_logprobs():
    top = [("SUP", -0.2), ("The", -1.0), (" contr", -2.0), ("I", -4.0)]
    with FakeServer(replies(chat("SUP", logprobs=top))) as server:
        generator = OpenAIServerGenerator(server.url)
        scores = generator.score_labels(ASK, ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"])
        body = server.posts()[-1]
    assert generator.last_label_rule == "logprobs"
    assert body["logprobs"] is True and body["max_tokens"] == 1
    assert scores["SUPPORTS"] > scores["CONTRADICTS"] > scores["IRRELEVANT"] > 0
    assert sum(scores.values()) == pytest.approx(1.0)


def test_labels_by_generation_when_the_server_gives_no_logprobs():
    def no_logprobs(path, body):
        return chat('{"label": "no"}') if "response_format" in body else chat("No")

    with FakeServer(no_logprobs) as server:
        generator = OpenAIServerGenerator(server.url)
        assert generator.score_labels(ASK, ["yes", "no"]) == {"yes": 0.0, "no": 1.0}
        assert generator.last_label_rule == "generation" and generator.logprobs is False
        generator.score_labels(ASK, ["yes", "no"])
        assert sum("logprobs" in body for body in server.posts()) == 1  # asked once only


def test_label_distribution_rules():
    assert label_distribution([("The", -0.1)], ["yes", "no"]) is None
    # "c" begins two labels: it counts for neither
    shared = label_distribution([("c", -0.5), ("b", -2.0)], ["cat", "cow", "bee"])
    assert shared is not None and shared["bee"] > shared["cat"] == shared["cow"] > 0


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ((500, b'{"error": "boom"}', 0.0), r"answered HTTP 500 .*boom"),
        ((200, b"<html>oops</html>", 0.0), "not JSON"),
        ((200, b'{"choices": []}', 0.0), r"malformed reply .*no choices\[0\]"),
        ((200, b'{"choices": [{"message": {"content": null}}]}', 0.0), "malformed reply"),
        ((200, b"{}", 3.0), r"no answer from the LLM server .* within 0.5 s"),
    ],
)
def test_server_failures_are_clear_errors(reply, message):
    with FakeServer(replies(reply)) as server:
        generator = OpenAIServerGenerator(server.url, model="m", digest="d", timeout=0.5)
        with pytest.raises(ServerError, match=message):
            generator.generate(ASK)


def test_a_server_that_is_down():
    generator = OpenAIServerGenerator(f"http://127.0.0.1:{closed_port()}/v1", timeout=2)
    with pytest.raises(ServerError, match="cannot reach the LLM server .*is it running"):
        _ = generator.model_id


def test_only_the_named_host_is_contacted(monkeypatch):
    """Proxy settings are not used and a redirect to another host is refused."""
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{closed_port()}")
    with FakeServer(replies(chat("direct"))) as server:
        assert JsonClient(server.url, timeout=5).post("chat/completions", {})["choices"]
    moved = (302, b"{}", 0.0)
    with FakeServer(replies(moved)) as server:
        real_send = server.httpd.RequestHandlerClass._send

        def with_location(self, status, payload, delay):
            if status == 302:
                self.send_response(302)
                self.send_header("Location", "http://10.0.0.1/v1/chat/completions")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            real_send(self, status, payload, delay)

        monkeypatch.setattr(server.httpd.RequestHandlerClass, "_send", with_location)
        with pytest.raises(ServerError, match="redirected to http://10.0.0.1"):
            JsonClient(server.url, timeout=5).post("chat/completions", {})


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://127.0.0.1/v1", "127.0.0.1:8080/v1"])
def test_only_http_server_addresses_are_accepted(url):
    with pytest.raises(UsageError, match="llm_url must be an http"):
        JsonClient(url)
