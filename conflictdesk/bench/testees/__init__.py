"""Systems under test: anything that turns a `TestCase` into a `Reply`.

`parse_testee_spec` reads the `--testee` forms: `ask` (alias `pipeline`), `gguf:PATH` and
`openai:URL` (a model on an OpenAI-compatible server; `openai:URL#MODEL` names one of several)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from conflictdesk.errors import UsageError


@dataclass(frozen=True)
class Reply:
    """A testee's response. `refused` / `contradiction` are set when the testee states them
    itself (a RAG pipeline's stance); None means a checker must read them from `text`."""

    text: str
    prompt: str
    refused: bool | None = None
    contradiction: bool | None = None
    detail: dict[str, Any] = field(default_factory=dict)


class Testee(Protocol):
    """One system under test; `name` keys its responses in a run."""

    name: str

    def respond(self, case: Any) -> Reply:
        """The answer to one case (a Ragability `TestCase`, or another suite's case)."""
        ...


@dataclass(frozen=True)
class TesteeSpec:
    kind: str  # "ask" | "gguf" | "openai"
    target: str = ""

    @property
    def label(self) -> str:
        return self.kind if not self.target else f"{self.kind}:{self.target}"


def parse_testee_spec(text: str) -> TesteeSpec:
    """`ask`, `pipeline`, `gguf:PATH` or `openai:URL`."""
    kind, _, target = text.partition(":")
    kind = {"pipeline": "ask"}.get(kind, kind)
    if kind == "ask" and not target:
        return TesteeSpec("ask")
    if kind in ("gguf", "openai") and target:
        return TesteeSpec(kind, target)
    raise UsageError(f"unknown testee {text!r}; use ask (or pipeline), gguf:PATH or openai:URL")


def openai_testee(generator: Any) -> Testee:
    """A model on an OpenAI-compatible server (a `Generator`), named by its model id
    (`openai:MODEL@DIGEST`)."""
    from conflictdesk.bench.testees.gguf import GeneratorTestee

    return GeneratorTestee(generator, name=generator.model_id)
