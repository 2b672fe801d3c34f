"""Servers for the LLM-server tests: a scripted fake of the OpenAI chat API (http.server in a
thread) for error paths, and the real server that llama-cpp-python ships, as a subprocess."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    return free_port()


# A reply is (status, body bytes, seconds to wait first); a script turns a request into one.
Reply = tuple[int, bytes, float]
Script = Callable[[str, dict[str, Any]], Reply]


def chat(content: str, logprobs: list[tuple[str, float]] | None = None) -> Reply:
    """A well-formed chat completion; `logprobs` is the first token's top alternatives."""
    choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": content},
                              "finish_reason": "stop", "logprobs": None}  # fmt: skip
    if logprobs is not None:
        top = [{"token": t, "logprob": lp} for t, lp in logprobs]
        choice["logprobs"] = {"content": [{"token": top[0]["token"], "logprob": top[0]["logprob"],
                                           "top_logprobs": top}]}  # fmt: skip
    return 200, json.dumps({"object": "chat.completion", "choices": [choice]}).encode(), 0.0


MODELS = {"object": "list", "data": [{"id": "fake-model", "object": "model", "owned_by": "t",
                                      "created": 0}]}  # fmt: skip


class FakeServer:
    """`script(path, body)` answers each POST; GET /v1/models lists `MODELS`. Every request
    is kept in `history` as (method, path, body, headers)."""

    def __init__(self, script: Script, models: dict[str, Any] | None = None) -> None:
        self.script, self.models = script, models or MODELS
        self.history: list[tuple[str, str, dict[str, Any], dict[str, str]]] = []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads, self.httpd.block_on_close = (
            True,
            False,
        )  # a slow reply ends with the test
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def posts(self) -> list[dict[str, Any]]:
        return [body for method, _, body, _ in self.history if method == "POST"]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server.history.append(("GET", self.path, {}, dict(self.headers)))
                self._send(200, json.dumps(server.models).encode(), 0.0)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.history.append(("POST", self.path, body, dict(self.headers)))
                self._send(*server.script(self.path, body))

            def _send(self, status: int, payload: bytes, delay: float) -> None:
                time.sleep(delay)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        return Handler


class LlamaServer:
    """`python -m llama_cpp.server` on a free loopback port, serving `gguf` as `alias`."""

    def __init__(self, gguf: Path, alias: str = "smollm2", n_ctx: int = 4096) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.alias = alias
        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf),
                   "--model_alias", alias, "--host", "127.0.0.1", "--port", str(self.port),
                   "--n_ctx", str(n_ctx), "--n_threads", "2"]  # fmt: skip
        env = {k: v for k, v in os.environ.items() if not k.startswith("CONFLICTDESK_")}
        self.log = tempfile.NamedTemporaryFile(prefix="llama-server-", suffix=".log", delete=False)  # noqa: SIM115 (closed in stop)
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT,
                                        env=env)  # fmt: skip

    def wait_ready(self, seconds: float = 120.0) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = Path(self.log.name).read_text(errors="replace")[-2000:]
                raise RuntimeError(f"llama_cpp.server exited: {tail}")
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not answer on {self.url} in {seconds:.0f} s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        Path(self.log.name).unlink(missing_ok=True)


def minimal_instance(schema: dict[str, Any]) -> Any:
    """The smallest value valid under `schema` (the subset conflictdesk's prompts use)."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: minimal_instance(properties[name]) for name in schema.get("required", [])}
    if kind == "array":
        return [minimal_instance(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "string":
        return "x" * max(schema.get("minLength", 1), 1)
    return {"boolean": False, "null": None}[kind]


def schema_answers(path: str, body: dict[str, Any]) -> Reply:
    """A fake LLM that answers every JSON request with a minimal valid value and free text
    with a sentence; a prompt that mentions BROKEN gets HTTP 500, MALFORMED a non-JSON body."""
    prompt = json.dumps(body.get("messages"))
    if "BROKEN" in prompt:
        return 500, b'{"error": {"message": "internal failure"}}', 0.0
    if "MALFORMED" in prompt:
        return 200, b"<html>bad gateway</html>", 0.0
    response_format = body.get("response_format") or {}
    schema = response_format.get("schema") or response_format.get("json_schema", {}).get("schema")
    if schema is not None:
        return chat(json.dumps(minimal_instance(schema)))
    return chat("A plain answer.")
