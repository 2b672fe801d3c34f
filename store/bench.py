"""Ragability runs in SQLite: the `BenchRecorder` the bench runner writes through.

Each response and each check is its own committed transaction, so a run killed at any
moment loses at most the call in flight; reopening the same run key resumes it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from conflictdesk.bench.checkers import Check
from conflictdesk.bench.metrics import Outcome
from conflictdesk.bench.runner import BenchCase, check_from_json, check_json, outcomes_of
from conflictdesk.bench.testees import Reply
from conflictdesk.store.database import NotFoundError, Store, _now


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


def _unflag(value: int | None) -> bool | None:
    return None if value is None else bool(value)


@dataclass(frozen=True)
class BenchRun:
    id: int
    key: str
    corpus: str
    config: dict[str, Any]
    created: str
    finished: str | None


class BenchStore:
    """One run's recorder over the store's bench tables."""

    def __init__(self, store: Store, run_id: int) -> None:
        self.store, self.run_id = store, run_id

    @classmethod
    def open_run(cls, store: Store, key: str, corpus: str, config: dict[str, Any]) -> BenchStore:
        """The run with this key, created when new (the same command resumes it)."""
        with store._write() as conn:
            conn.execute(
                """INSERT INTO bench_runs (key, corpus, config, created) VALUES (?, ?, ?, ?)
                   ON CONFLICT (key) DO NOTHING""",
                (key, corpus, json.dumps(config, ensure_ascii=False), _now()),
            )
            row = conn.execute("SELECT id FROM bench_runs WHERE key = ?", (key,)).fetchone()
        return cls(store, int(row[0]))

    def reply(self, testee: str, case_id: str) -> Reply | None:
        with self.store._lock:
            row = self.store.conn.execute(
                """SELECT response, prompt, refused, contradiction, detail FROM bench_responses
                   WHERE run_id = ? AND testee = ? AND case_id = ?""",
                (self.run_id, testee, case_id),
            ).fetchone()
        if row is None:
            return None
        return Reply(row[0], row[1], _unflag(row[2]), _unflag(row[3]), json.loads(row[4]))

    def save_reply(self, testee: str, case_id: str, reply: Reply, ms: float) -> None:
        with self.store._write() as conn:
            conn.execute(
                """INSERT INTO bench_responses (run_id, testee, case_id, prompt, response,
                   refused, contradiction, detail, ms, created)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    self.run_id, testee, case_id, reply.prompt, reply.text,
                    _flag(reply.refused), _flag(reply.contradiction),
                    json.dumps(reply.detail, ensure_ascii=False), float(ms), _now(),
                ),
            )  # fmt: skip

    def check(self, testee: str, case_id: str, checker: str) -> Check | None:
        with self.store._lock:
            row = self.store.conn.execute(
                """SELECT verdict FROM bench_checks
                   WHERE run_id = ? AND testee = ? AND case_id = ? AND checker = ?""",
                (self.run_id, testee, case_id, checker),
            ).fetchone()
        return None if row is None else check_from_json(json.loads(row[0]))

    def save_check(self, testee: str, case: BenchCase, checker: str, check: Check) -> None:
        with self.store._write() as conn:
            conn.execute(
                """INSERT INTO bench_checks (run_id, testee, case_id, checker, ok, verdict,
                   tags, metrics, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    self.run_id, testee, case.case_id, checker, int(check.ok),
                    json.dumps(check_json(check), ensure_ascii=False),
                    json.dumps(list(case.tags)), json.dumps(list(case.metrics)), _now(),
                ),
            )  # fmt: skip

    def finish(self) -> None:
        with self.store._write() as conn:
            conn.execute("UPDATE bench_runs SET finished = ? WHERE id = ?", (_now(), self.run_id))

    def counts(self) -> tuple[int, int]:
        """(responses, checks) stored for this run."""
        with self.store._lock:
            conn = self.store.conn
            replies = conn.execute(
                "SELECT count(*) FROM bench_responses WHERE run_id = ?", (self.run_id,)
            ).fetchone()[0]
            checks = conn.execute(
                "SELECT count(*) FROM bench_checks WHERE run_id = ?", (self.run_id,)
            ).fetchone()[0]
        return int(replies), int(checks)


def list_runs(store: Store) -> list[BenchRun]:
    with store._lock:
        rows = store.conn.execute(
            "SELECT id, key, corpus, config, created, finished FROM bench_runs ORDER BY id"
        ).fetchall()
    return [BenchRun(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5]) for r in rows]


def get_run(store: Store, run_id: int) -> BenchRun:
    for run in list_runs(store):
        if run.id == run_id:
            return run
    raise NotFoundError(f"no bench run {run_id} (see `conflictdesk bench list`)")


def run_outcomes(store: Store, run_id: int, checker: str | None = None) -> list[Outcome]:
    """The checked outcomes of a run (of one checker; default: the run's own), read from the
    store alone, for reports and the TUI without loading any testee."""
    name = checker or get_run(store, run_id).config.get("checker", "")
    with store._lock:
        rows = store.conn.execute(
            """SELECT testee, case_id, tags, metrics, verdict FROM bench_checks
               WHERE run_id = ? AND checker = ? ORDER BY id""",
            (run_id, name),
        ).fetchall()
    return [
        outcome
        for r in rows
        for outcome in outcomes_of(r[0], r[1], tuple(json.loads(r[2])),
                                   tuple(json.loads(r[3])), check_from_json(json.loads(r[4])))
    ]  # fmt: skip
