"""Checking responses (Ragability §3.2): refused? correct against the short and long answers?

Identification cases need no checker: the reply's yes/no is read directly, as in the paper.
Query cases ask a `Checker` the paper's two yes/no questions. `GgufChecker` asks a GGUF
model; `OfflineChecker` runs without an LLM: refusal by phrase patterns, correctness by
answer-string matching, then the NLI model (response entails the long answer)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from conflictdesk.backends.base import NLI, Generator
from conflictdesk.bench.cases import Expected, Task, TestCase
from conflictdesk.bench.prompts import correct_messages, refused_messages
from conflictdesk.bench.testees import Reply

ENTAILMENT_THRESHOLD = 0.5
_REFUSAL = re.compile(
    r"\b(cannot|can ?not|can't|unable|not able|impossible|no (?:information|mention|context)|"
    r"not (?:enough|sufficient|provided|given|mentioned|stated|specified|clear)|insufficient|"
    r"(?:does|do|did)(?: not|n't) (?:say|state|mention|specify|contain|provide|know)|"
    r"unknown|unclear|contradict\w*|conflict\w*|inconsistent|disagree\w*|"
    r"not possible to (?:determine|tell|say))\b",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(a|an|the)\s+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


class Checker(Protocol):
    """Answers the two check questions for one query response."""

    name: str

    def refused(self, case: TestCase, response: str) -> bool: ...

    def correct(self, case: TestCase, response: str) -> bool: ...


@dataclass(frozen=True)
class Check:
    """The verdict on one response; `ok` is what the metrics count."""

    ok: bool
    refused: bool | None
    correct: bool | None
    said_contradiction: bool | None
    method: str
    detail: dict[str, Any] = field(default_factory=dict)


def yes_no(text: str) -> bool | None:
    """True for a reply that starts with yes, False for no, None when it says neither."""
    words = re.findall(r"[a-z]+", text.lower())[:3]
    for word in words:
        if word in ("yes", "no"):
            return word == "yes"
    return None


def check_reply(case: TestCase, reply: Reply, checker: Checker) -> Check:
    """The verdict: identification read from yes/no, query cases through `checker`."""
    if case.task is Task.IDENTIFY:
        said = reply.contradiction if reply.contradiction is not None else yes_no(reply.text)
        source = "declared by testee" if reply.contradiction is not None else "yes/no parse"
        ok = said is not None and said == (case.expected is Expected.YES)
        return Check(ok, None, None, said, source)
    if reply.refused is not None:
        refused, source = reply.refused, "refusal declared by testee"
    else:
        refused, source = checker.refused(case, reply.text), f"refusal by {checker.name}"
    if case.expected is Expected.REFUSE:
        return Check(refused, refused, None, None, source)
    if refused:
        return Check(False, True, False, None, source)
    correct = checker.correct(case, reply.text)
    return Check(correct, False, correct, None, f"{source}; correctness by {checker.name}")


class GgufChecker:
    """The paper's checker LLM: each check is a yes/no label scored in one forward pass."""

    def __init__(self, generator: Generator, name: str | None = None) -> None:
        self.generator = generator
        self.name = name or f"gguf:{generator.model_id}"

    def _yes(self, messages: list[Any]) -> bool:
        scores = self.generator.score_labels(messages, ["yes", "no"])
        return scores["yes"] >= scores["no"]

    def refused(self, case: TestCase, response: str) -> bool:
        return self._yes(refused_messages(case, response))

    def correct(self, case: TestCase, response: str) -> bool:
        return self._yes(correct_messages(case, response))


def _normal(text: str) -> str:
    return " ".join(re.findall(r"[\w.,]+", text.lower())).strip(" .,")


def string_match(answer: str, response: str) -> bool:
    """The short answer in the response: every number in it, or its words (article
    dropped) as a phrase."""
    numbers = _NUMBER.findall(answer)
    found = set(_NUMBER.findall(response))
    if numbers:
        return all(n in found for n in numbers)
    phrase = _ARTICLE.sub("", _normal(answer))
    return bool(phrase) and f" {phrase} " in f" {_normal(response)} "


class OfflineChecker:
    """No LLM: refusal patterns; string match, else NLI(response ⊨ long answer)."""

    def __init__(self, nli: NLI | None) -> None:
        self.nli = nli
        self.name = f"offline:{nli.model_id}" if nli else "offline:string-match"

    def refused(self, case: TestCase, response: str) -> bool:
        return not response.strip() or bool(_REFUSAL.search(response))

    def correct(self, case: TestCase, response: str) -> bool:
        if string_match(case.answer_short, response):
            return True
        if self.nli is None or not response.strip():
            return False
        scores = self.nli.classify([(response, case.answer_long)])[0]
        return scores.entailment >= ENTAILMENT_THRESHOLD
