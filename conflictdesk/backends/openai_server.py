"""The `Generator` protocol over an OpenAI-compatible server (llama.cpp's server, the one
llama-cpp-python ships, vLLM, LM Studio, Ollama), through `/v1/chat/completions`.

Structured output uses the strongest form the server accepts, found on the first JSON call
and kept: `response_format` of type `json_schema` (OpenAI, llama.cpp's server, vLLM), else
`json_object` with a `schema` (llama-cpp-python's server), else the schema in the prompt
only. Every answer is validated as on the GGUF path, with one retry. Label scoring reads the
first answer token's `top_logprobs` where the server returns them ("logprobs"), else asks for
one of the labels as constrained JSON ("generation": all probability on the chosen label);
`last_label_rule` says which ran. The judgment-cache key is `openai:MODEL@DIGEST`, DIGEST
pinned by the user or read from the server's `/v1/models` entry."""

from __future__ import annotations

import hashlib
import json
import logging
import math
import threading
from collections.abc import Sequence
from typing import Any

from conflictdesk.backends.base import Message
from conflictdesk.backends.http_client import JsonClient
from conflictdesk.backends.schema import json_with_one_retry
from conflictdesk.errors import ServerError

log = logging.getLogger(__name__)

STRUCTURED_MODES = ("json_schema", "json_object", "prompt")
TOP_LOGPROBS = 20  # OpenAI's maximum
SCHEMA_NOTE = "Reply with only JSON that matches this JSON schema:\n{schema}"
VOLATILE_MODEL_FIELDS = ("created",)  # vLLM stamps the request time here: not part of the key


class OpenAIServerGenerator:
    """One model on one server; nothing is contacted before the first call (`model_id`
    included: it may ask `/v1/models` for the model and its digest)."""

    def __init__(
        self,
        url: str,
        *,
        model: str | None = None,
        digest: str | None = None,
        key: str | None = None,
        timeout: float = 120.0,
        client: JsonClient | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.client = client or JsonClient(self.url, key=key, timeout=timeout)
        self._model, self._digest = model, digest
        self._lock = threading.RLock()
        self.structured_mode: str | None = None  # found on the first JSON call
        self.logprobs: bool | None = None  # whether the server returns top_logprobs
        self.last_label_rule = ""
        self.label_rules: dict[str, int] = {}  # how many label scorings ran by each rule

    # -- identity ------------------------------------------------------------------------------

    @property
    def model_id(self) -> str:
        model, digest = self.resolve()
        return f"openai:{model}@{digest}"

    def resolve(self) -> tuple[str, str]:
        """(model name, digest): what was configured, the rest read from `/v1/models`."""
        with self._lock:
            if self._model is None or self._digest is None:
                self._model, self._digest = self._from_model_list()
            return self._model, self._digest

    def _from_model_list(self) -> tuple[str, str]:
        listing = self.client.get("models")
        entries = listing.get("data") if isinstance(listing, dict) else None
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise ServerError(f"{self.url}/models did not list models: {str(listing)[:200]!r}")
        ids = [str(e.get("id")) for e in entries]
        if self._model is None and len(entries) != 1:
            raise ServerError(
                f"{self.url} serves {len(ids)} models {ids}; name one with --llm-model "
                "(or llm_model in the config)"
            )
        model = self._model if self._model is not None else ids[0]
        if model not in ids:
            raise ServerError(f"{self.url} does not serve {model!r}; it serves {ids}")
        entry = entries[ids.index(model)]
        return model, self._digest or model_entry_digest(entry)

    # -- the Generator protocol ----------------------------------------------------------------

    def generate(
        self, messages: Sequence[Message], *, max_tokens: int = 512, temperature: float = 0.0
    ) -> str:
        return self._chat(messages, max_tokens=max_tokens, temperature=temperature)

    def generate_json(
        self, messages: Sequence[Message], schema: dict[str, Any], *, max_tokens: int = 512
    ) -> Any:
        """Structured output, parsed and validated; on failure the problem is shown to the
        model once, and a second failure is a ModelOutputError."""

        def complete(conversation: list[Message]) -> str:
            return self._structured(conversation, schema, max_tokens)

        return json_with_one_retry(complete, messages, schema, self.model_id)

    def score_labels(self, messages: Sequence[Message], labels: Sequence[str]) -> dict[str, float]:
        if len(set(labels)) != len(labels) or len(labels) < 2:
            raise ValueError(f"labels must be at least two distinct strings, got {list(labels)}")
        if self.logprobs is not False:
            top = self._top_logprobs(messages)
            distribution = label_distribution(top, labels) if top is not None else None
            if distribution is not None:
                self._count("logprobs")
                return distribution
        self._count("generation")
        schema = {
            "type": "object",
            "properties": {"label": {"type": "string", "enum": list(labels)}},
            "required": ["label"],
            "additionalProperties": False,
        }
        chosen = self.generate_json(messages, schema, max_tokens=32)["label"]
        return {label: 1.0 if label == chosen else 0.0 for label in labels}

    def _count(self, rule: str) -> None:
        self.last_label_rule = rule
        self.label_rules[rule] = self.label_rules.get(rule, 0) + 1

    # -- requests ------------------------------------------------------------------------------

    def _body(self, messages: Sequence[Message], **fields: Any) -> dict[str, Any]:
        model, _ = self.resolve()
        return {"model": model, "messages": list(messages), **fields}

    def _chat(self, messages: Sequence[Message], **fields: Any) -> str:
        reply = self.client.post("chat/completions", self._body(messages, **fields))
        return self._content(reply)

    def _content(self, reply: Any) -> str:
        try:
            content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            content = None
        if not isinstance(content, str):
            raise ServerError(
                f"malformed reply from {self.url}/chat/completions (no choices[0].message."
                f"content): {json.dumps(reply)[:200]}"
            )
        return content

    def _structured(
        self, messages: Sequence[Message], schema: dict[str, Any], max_tokens: int
    ) -> str:
        """One constrained answer in the strongest mode the server accepts."""
        start = STRUCTURED_MODES.index(self.structured_mode) if self.structured_mode else 0
        for mode in STRUCTURED_MODES[start:]:
            fields: dict[str, Any] = {"max_tokens": max_tokens, "temperature": 0.0}
            convo = list(messages)
            if mode == "json_schema":
                fields["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "answer", "schema": schema},
                }
            elif mode == "json_object":
                fields["response_format"] = {"type": "json_object", "schema": schema}
            else:
                convo = with_schema_note(convo, schema)
            try:
                text = self._chat(convo, **fields)
            except ServerError as exc:
                if mode != "prompt" and rejected_field(exc, "response_format", "json_schema"):
                    log.info("%s refused response_format %s; trying the next form", self.url, mode)
                    continue
                raise
            self.structured_mode = mode
            return text
        raise ServerError(f"{self.url} accepted no form of structured output")  # unreachable

    def _top_logprobs(self, messages: Sequence[Message]) -> list[tuple[str, float]] | None:
        """The first answer token's alternatives, or None (and `logprobs` False) when the
        server does not return them."""
        fields = {"max_tokens": 1, "temperature": 0.0, "logprobs": True,
                  "top_logprobs": TOP_LOGPROBS}  # fmt: skip
        try:
            reply = self.client.post("chat/completions", self._body(messages, **fields))
        except ServerError as exc:
            if rejected_field(exc, "logprobs"):
                self.logprobs = False
                return None
            raise
        self._content(reply)  # a malformed reply is an error, not "no logprobs"
        try:
            first = reply["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
            top = [(str(item["token"]), float(item["logprob"])) for item in first]
        except (KeyError, IndexError, TypeError, ValueError):
            self.logprobs = False
            return None
        self.logprobs = True
        return top


def model_entry_digest(entry: dict[str, Any]) -> str:
    """12 hex digits of the server's description of the model (volatile fields left out).
    Servers that describe little (llama-cpp-python lists only the id) give a weak key:
    pin one with --llm-digest (e.g. the GGUF's sha256)."""
    stable = {k: v for k, v in entry.items() if k not in VOLATILE_MODEL_FIELDS}
    body = json.dumps(stable, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:12]


def label_distribution(
    top: Sequence[tuple[str, float]], labels: Sequence[str]
) -> dict[str, float] | None:
    """Probabilities of `labels` from the first token's alternatives: a token counts for the
    one label it begins (case and surrounding space ignored; a token that begins several
    labels counts for none). A label no listed token begins lies between 0 and the bound
    min(smallest listed probability, mass not listed); it gets half that bound. None when no
    label is begun by any listed token."""
    folded = [label.casefold() for label in labels]
    mass = dict.fromkeys(labels, 0.0)
    for token, logprob in top:
        piece = token.strip().casefold()
        matches = [lab for lab, low in zip(labels, folded) if piece and low.startswith(piece)]
        if len(matches) == 1 and math.isfinite(logprob):
            mass[matches[0]] += math.exp(logprob)
    if not any(mass.values()):
        return None
    listed = [math.exp(lp) for _, lp in top if math.isfinite(lp)]
    floor = min(min(listed), max(1.0 - sum(listed), 0.0)) / 2.0
    raw = {label: value or floor for label, value in mass.items()}
    total = sum(raw.values())
    return {label: value / total for label, value in raw.items()}


def with_schema_note(messages: list[Message], schema: dict[str, Any]) -> list[Message]:
    """The schema appended to the last user message (for servers without structured output)."""
    note = SCHEMA_NOTE.format(schema=json.dumps(schema))
    out = [dict(m) for m in messages]
    for message in reversed(out):
        if message.get("role") == "user":
            message["content"] = f"{message['content']}\n\n{note}"
            return out
    return out + [{"role": "user", "content": note}]


def rejected_field(exc: ServerError, *names: str) -> bool:
    """True when the server refused the request (an error status) naming one of `names`."""
    if exc.status is None or exc.status < 400:
        return False
    body = exc.body.lower()
    return any(name in body for name in names)
