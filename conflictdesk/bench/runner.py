"""The run loop: every (testee, case) answered once and checked once, each result
committed as it comes, so a killed run resumes where it stopped."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any, Protocol

from conflictdesk.bench.cases import TestCase
from conflictdesk.bench.checkers import Check, Checker, check_reply
from conflictdesk.bench.metrics import Outcome
from conflictdesk.bench.testees import Reply, Testee

OnStep = Callable[[str, TestCase, bool], None]  # (testee name, case, reused from the store)


class BenchRecorder(Protocol):
    """Where a run's responses and checks are kept; the store implements it."""

    def reply(self, testee: str, case_id: str) -> Reply | None: ...

    def save_reply(self, testee: str, case_id: str, reply: Reply, ms: float) -> None: ...

    def check(self, testee: str, case_id: str, checker: str) -> Check | None: ...

    def save_check(self, testee: str, case: TestCase, checker: str, check: Check) -> None:
        """Kept with the case's tags and metrics, so scores can be read back alone."""
        ...


class MemoryRecorder:
    """A `BenchRecorder` in a dict (tests, one-off runs)."""

    def __init__(self) -> None:
        self.replies: dict[tuple[str, str], Reply] = {}
        self.checks: dict[tuple[str, str, str], Check] = {}

    def reply(self, testee: str, case_id: str) -> Reply | None:
        return self.replies.get((testee, case_id))

    def save_reply(self, testee: str, case_id: str, reply: Reply, ms: float) -> None:
        self.replies[(testee, case_id)] = reply

    def check(self, testee: str, case_id: str, checker: str) -> Check | None:
        return self.checks.get((testee, case_id, checker))

    def save_check(self, testee: str, case: TestCase, checker: str, check: Check) -> None:
        self.checks[(testee, case.case_id, checker)] = check


def answer_and_check(
    testee: Testee, case: TestCase, checker: Checker, recorder: BenchRecorder
) -> tuple[Check, bool]:
    """The check of one case for one testee; True when nothing had to be recomputed."""
    reused = True
    reply = recorder.reply(testee.name, case.case_id)
    if reply is None:
        start = time.perf_counter()
        reply = testee.respond(case)
        recorder.save_reply(testee.name, case.case_id, reply, _ms(start))
        reused = False
    check = recorder.check(testee.name, case.case_id, checker.name)
    if check is None:
        check = check_reply(case, reply, checker)
        recorder.save_check(testee.name, case, checker.name, check)
        reused = False
    return check, reused


def run_bench(
    cases: Sequence[TestCase],
    testees: Sequence[Testee],
    checker: Checker,
    recorder: BenchRecorder,
    *,
    on_step: OnStep | None = None,
) -> list[Outcome]:
    """All testees on all cases, testee by testee (one model loaded at a time)."""
    outcomes = []
    for testee in testees:
        for case in cases:
            check, reused = answer_and_check(testee, case, checker, recorder)
            outcomes.append(Outcome(testee.name, case.case_id, case.tags, case.metrics, check.ok))
            if on_step is not None:
                on_step(testee.name, case, reused)
    return outcomes


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def check_json(check: Check) -> dict[str, Any]:
    return asdict(check)


def check_from_json(data: dict[str, Any]) -> Check:
    return Check(**data)
