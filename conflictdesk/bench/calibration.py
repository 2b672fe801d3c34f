"""The checker's own accuracy, measured on hand-labelled responses (as Ragability §4.1).

Sample file (JSON Lines): {"id", "query", "expected": "refuse" | "answer_1",
"answer_short", "answer_long", "response", "human_ok"}; `human_ok` is a person's verdict
on whether the response is what the case asks for (a refusal, or the correct answer)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conflictdesk.bench.cases import Expected, Task, TestCase
from conflictdesk.bench.checkers import Checker, check_reply
from conflictdesk.bench.testees import Reply
from conflictdesk.errors import InputError


@dataclass(frozen=True)
class LabelledResponse:
    case: TestCase
    response: str
    human_ok: bool


@dataclass(frozen=True)
class CheckerAccuracy:
    """Agreement of a checker with the human labels; `disagreements` lists sample ids."""

    checker: str
    agree: int
    n: int
    false_positive: int  # checker ok, human not
    false_negative: int
    disagreements: tuple[str, ...]

    @property
    def accuracy(self) -> float:
        return self.agree / self.n if self.n else float("nan")

    def summary(self, source: str) -> str:
        return f"{self.accuracy:.3f} ({self.agree}/{self.n}) on {source}"


def _case(record: dict[str, Any]) -> TestCase:
    expected = Expected(record["expected"])
    if expected not in (Expected.REFUSE, Expected.ANSWER_1):
        raise InputError(f"sample {record.get('id')}: expected must be refuse or answer_1")
    return TestCase(
        case_id=str(record["id"]), entry_id=str(record["id"]), task=Task.QUERY,
        query=record["query"], contexts=(), hint=False, expected=expected,
        answer_short=record.get("answer_short", ""), answer_long=record.get("answer_long", ""),
        reasoning="", tags=(), metrics=(),
    )  # fmt: skip


def read_sample(path: str | Path) -> list[LabelledResponse]:
    items = []
    with open(path, encoding="utf-8") as stream:
        for lineno, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                items.append(
                    LabelledResponse(_case(record), record["response"], record["human_ok"])
                )
            except (json.JSONDecodeError, KeyError, ValueError) as exc:
                raise InputError(f"{path}: line {lineno}: {exc}") from exc
    return items


def checker_accuracy(sample: Sequence[LabelledResponse], checker: Checker) -> CheckerAccuracy:
    """Run `checker` on every labelled response and count agreement with the human."""
    agree = fp = fn = 0
    wrong = []
    for item in sample:
        ok = check_reply(item.case, Reply(item.response, ""), checker).ok
        if ok == item.human_ok:
            agree += 1
            continue
        wrong.append(item.case.case_id)
        fp, fn = fp + int(ok), fn + int(not ok)
    return CheckerAccuracy(checker.name, agree, len(sample), fp, fn, tuple(wrong))
