"""The run loop: every (testee, case) answered once and checked once, each result
committed as it comes, so a killed run resumes where it stopped.

The loop serves every evaluation: Ragability's `TestCase` with `check_reply`, and the
CONFLICTS and ConflictScore/TruthfulQA suites with their own cases and check functions. A
check may score several metrics of one case at once (`Check.detail["metric_ok"]`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any, Protocol

from conflictdesk.bench.checkers import Check, Checker, check_reply
from conflictdesk.bench.metrics import Outcome
from conflictdesk.bench.testees import Reply, Testee

OnStep = Callable[[str, Any, bool], None]  # (testee name, case, reused from the store)


class BenchCase(Protocol):
    """What the loop and the store need of a case: an id, its tags and its metrics."""

    @property
    def case_id(self) -> str: ...

    @property
    def tags(self) -> tuple[str, ...]: ...

    @property
    def metrics(self) -> tuple[str, ...]: ...


CheckFunction = Callable[[Any, Reply], Check]  # (case, reply) -> verdict


class BenchRecorder(Protocol):
    """Where a run's responses and checks are kept; the store implements it."""

    def reply(self, testee: str, case_id: str) -> Reply | None: ...

    def save_reply(self, testee: str, case_id: str, reply: Reply, ms: float) -> None: ...

    def check(self, testee: str, case_id: str, checker: str) -> Check | None: ...

    def save_check(self, testee: str, case: BenchCase, checker: str, check: Check) -> None:
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

    def save_check(self, testee: str, case: BenchCase, checker: str, check: Check) -> None:
        self.checks[(testee, case.case_id, checker)] = check


def answer_and_check(
    testee: Testee,
    case: BenchCase,
    checker: Checker,
    recorder: BenchRecorder,
    check_with: CheckFunction | None = None,
) -> tuple[Check, bool]:
    """The check of one case for one testee; True when nothing had to be recomputed.
    `check_with` defaults to Ragability's `check_reply` through `checker`."""
    reused = True
    reply = recorder.reply(testee.name, case.case_id)
    if reply is None:
        start = time.perf_counter()
        reply = testee.respond(case)  # type: ignore[arg-type]
        recorder.save_reply(testee.name, case.case_id, reply, _ms(start))
        reused = False
    check = recorder.check(testee.name, case.case_id, checker.name)
    if check is None:
        if check_with is None:
            check = check_reply(case, reply, checker)  # type: ignore[arg-type]
        else:
            check = check_with(case, reply)
        recorder.save_check(testee.name, case, checker.name, check)
        reused = False
    return check, reused


def run_bench(
    cases: Sequence[BenchCase],
    testees: Sequence[Testee],
    checker: Checker,
    recorder: BenchRecorder,
    *,
    on_step: OnStep | None = None,
    check_with: CheckFunction | None = None,
) -> list[Outcome]:
    """All testees on all cases, testee by testee (one model loaded at a time)."""
    outcomes = []
    for testee in testees:
        for case in cases:
            check, reused = answer_and_check(testee, case, checker, recorder, check_with)
            outcomes += outcomes_of(testee.name, case.case_id, case.tags, case.metrics, check)
            if on_step is not None:
                on_step(testee.name, case, reused)
    return outcomes


def outcomes_of(
    testee: str, case_id: str, tags: tuple[str, ...], metrics: tuple[str, ...], check: Check
) -> list[Outcome]:
    """One outcome for a case checked as a whole; one per metric where the check scored
    each metric apart (`detail["metric_ok"]`; a metric it could not score is left out)."""
    per_metric = check.detail.get("metric_ok")
    if not per_metric:
        return [Outcome(testee, case_id, tags, metrics, check.ok)]
    return [
        Outcome(testee, case_id, tags, (metric,), bool(per_metric[metric]))
        for metric in metrics
        if per_metric.get(metric) is not None
    ]


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def check_json(check: Check) -> dict[str, Any]:
    return asdict(check)


def check_from_json(data: dict[str, Any]) -> Check:
    return Check(**data)
