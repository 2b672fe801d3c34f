"""A GGUF chat model as testee, through the `Generator` protocol (llama.cpp)."""

from __future__ import annotations

from conflictdesk.backends.base import Generator
from conflictdesk.bench.cases import TestCase
from conflictdesk.bench.prompts import render, testee_messages
from conflictdesk.bench.testees import Reply

MAX_TOKENS = 128


class GeneratorTestee:
    """Sends each case's prompt to the model at temperature 0 (as the paper did)."""

    def __init__(self, generator: Generator, name: str | None = None) -> None:
        self.generator = generator
        self.name = name or f"gguf:{generator.model_id}"

    def respond(self, case: TestCase) -> Reply:
        messages = testee_messages(case)
        text = self.generator.generate(messages, max_tokens=MAX_TOKENS, temperature=0.0)
        return Reply(text=text.strip(), prompt=render(messages))
