"""The Desk's batch use cases on a Ray cluster (`--ray`): the same calls as a plain batch,
queued, run by actors, stored on the driver.

A `RayBatch` takes the Desk's `detect`, `score` and `ask` calls; input validation and, for
`ask`, retrieval from a collection run here on the driver, so a bad line fails exactly as in a
plain run. `results()` yields one outcome per call, in call order: actors do the model work
(`conflictdesk/scale/`), and the driver writes their new judgments and the run to the
database, which no worker ever writes.

The judgment cache: actors read hits through a read-only reader on the driver's node, and
send new judgments back with each result; an actor also reuses its own new judgments. A
judgment made for one item is a hit for a later item when the same actor made it, or when the
driver had stored it before the later item was looked up: with several workers, an input that
repeats a claim × document pair can show fewer `cached` hits than a plain run. The labels,
scores and every other field are the same."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conflictdesk.app.scoring import (
    ScoringOptions,
    StoredResult,
    detect_result,
    scoring_roles,
)
from conflictdesk.app.scoring import score_result as scored
from conflictdesk.app.wire import AskOutcome, AskRequest
from conflictdesk.backends.base import Backends, JudgmentCache
from conflictdesk.config import Settings
from conflictdesk.errors import ConflictDeskError, UsageError
from conflictdesk.retrieval.hybrid import Retrieval
from conflictdesk.scale import (
    RayEmbedder,
    RayOptions,
    TaskResult,
    WorkerSetup,
    connect,
    map_in_order,
)
from conflictdesk.types import Document

if TYPE_CHECKING:
    from conflictdesk.app.desk import Desk
    from conflictdesk.app.ingest import IngestReport

Json = dict[str, Any]
Outcome = StoredResult | AskOutcome | ConflictDeskError


@dataclass(frozen=True)
class ScoringTask:
    """`detect` or `score` of one input line, run by an actor."""

    kind: str
    text: str
    documents: tuple[Document, ...]
    options: ScoringOptions
    run_id: Any

    def __call__(self, backends: Backends, cache: JudgmentCache | None) -> Json:
        compute = detect_result if self.kind == "detect" else scored
        result = compute(self.text, self.documents, self.options, backends, cache)
        return {"id": self.run_id, **result.to_json()}


@dataclass(frozen=True)
class AskTask:
    """One question over passages the driver retrieved (or the line's inline documents)."""

    request: AskRequest
    retrieval: Retrieval

    def __call__(self, backends: Backends, cache: JudgmentCache | None) -> tuple:
        from conflictdesk.app.desk import answer_retrieval

        return answer_retrieval(self.request, self.retrieval, backends, cache)


class RayBatch:
    """Quacks like the Desk for `detect`, `score` and `ask`: each call queues an item."""

    def __init__(self, desk: Desk, options: RayOptions) -> None:
        self.desk, self.options = desk, options
        self.tasks: list[Any] = []
        self.asked: list[tuple[str, Any]] = []  # (kind, what is stored as the run's input)
        self.model_set: tuple[tuple[str, ...], bool] | None = None  # roles, cache used

    def detect(self, claim: str, documents: Sequence[Document], options: ScoringOptions, *,
               run_input: Json | None = None, run_id: Any = None) -> None:  # fmt: skip
        asked = run_input or {"claim": claim, "documents": [d.to_json() for d in documents]}
        task = ScoringTask("detect", claim, tuple(documents), options, run_id)
        self._queue("detect", asked, task, scoring_roles("detect", options), options.use_cache)

    def score(self, response: str, documents: Sequence[Document], options: ScoringOptions, *,
              run_input: Json | None = None, run_id: Any = None) -> None:  # fmt: skip
        asked = run_input or {"response": response, "documents": [d.to_json() for d in documents]}
        task = ScoringTask("score", response, tuple(documents), options, run_id)
        self._queue("score", asked, task, scoring_roles("score", options), options.use_cache)

    def ask(self, request: AskRequest) -> None:
        """Retrieval runs now, on the driver (it reads the database); the rest on an actor."""
        from conflictdesk.app.desk import ALL_ROLES

        task = AskTask(request, self.desk.passages_for(request))
        self._queue("ask", request, task, ALL_ROLES, request.use_cache)

    def _queue(self, kind: str, asked: Any, task: Any, roles: Sequence[str], cache: bool) -> None:
        model_set = (tuple(roles), cache)
        if self.model_set not in (None, model_set):
            raise UsageError("one Ray batch runs one model set and one cache setting")
        self.model_set = model_set
        self.tasks.append(task)
        self.asked.append((kind, asked))

    def results(self) -> Iterator[Outcome]:
        """Each queued call's stored result (or its error), in call order, as they come."""
        if not self.tasks or self.model_set is None:
            return
        roles, use_cache = self.model_set
        setup = WorkerSetup(worker_loader(self.desk.settings, self.options), roles,
                            cache_opener(self.desk) if use_cache else None)  # fmt: skip
        with connect(self.options):
            results = map_in_order(self.tasks, setup, self.options)
            try:
                for (kind, asked), result in zip(self.asked, results, strict=True):
                    yield self._store(kind, asked, result)
            finally:
                results.close()  # the actors and the cache reader go before the cluster does

    def _store(self, kind: str, asked: Any, result: TaskResult) -> Outcome:
        for judgment in result.judgments:
            self.desk.store.cache.put(*judgment)
        if result.error is not None:
            return result.error
        if kind == "ask":
            analysis, answer, record = result.value
            return self.desk.store_ask(asked, analysis, answer, record)
        output = result.value
        run_id = self.desk.store.save_run(kind, asked, output, output.get("method"))
        return StoredResult(run_id, output)


def cache_opener(desk: Desk) -> Any:
    """How the cache reader opens the Desk's database read-only."""
    from conflictdesk.store import ReadOnlyCache

    path = desk.store.path
    if path in ("", ":memory:"):
        raise UsageError("--ray reads the judgment cache from a database file; pass --db PATH "
                         "(or --no-cache where the command has it)")  # fmt: skip
    return functools.partial(ReadOnlyCache, path)


def worker_loader(settings: Settings, options: RayOptions) -> Any:
    """How an actor loads its models: the verified back-ends, on `cpus_per_worker` threads
    unless the settings name a thread count."""
    from conflictdesk.app.desk import verified_backends

    threads = settings.threads or options.cpus_per_worker
    return functools.partial(verified_backends, dataclasses.replace(settings, threads=threads))


def ingest_on_ray(
    desk: Desk, paths: Sequence[Path], collection: str, options: RayOptions, **ingest: Any
) -> IngestReport:
    """`Desk.ingest` with its embedding step on Ray actors: files are read and chunked here,
    each batch of passages is embedded by the pool, and the driver stores every document."""
    from conflictdesk.app.ingest import ingest_paths
    from conflictdesk.ingest.readers import discover

    files = list(discover(list(paths)))
    with connect(options):
        embedder = RayEmbedder(worker_loader(desk.settings, options), options)
        try:
            return ingest_paths(desk.store, [], collection, embedder, files=files,
                                embed_stream=embedder.embed_stream, **ingest)  # fmt: skip
        finally:
            embedder.close()


def ray_batch(desk: Desk, options: RayOptions) -> RayBatch:
    """A batch of the Desk's calls to run on Ray (see the module docstring)."""
    return RayBatch(desk, options)


# -- bench run --ray: the testees' replies on actors; checks, report and resume as usual -------

_ACTOR_TESTEES: dict[str, Any] = {}  # in an actor's process: testee spec → its Desk and testee


@dataclass(frozen=True)
class BenchTask:
    """One testee's reply to one case, by the plain run's own testee, built once per actor
    on a Desk whose in-memory store reads and writes judgments through the actor's cache."""

    spec: str
    case: Any  # conflictdesk.bench.cases.TestCase
    settings: Settings

    def __call__(self, backends: Backends, cache: JudgmentCache | None) -> tuple:
        import time

        desk, testee = _actor_testee(self.spec, self.settings, backends, cache)
        last = max((run["id"] for run in desk.store.runs(limit=1)), default=0)
        start = time.perf_counter()
        reply = testee.respond(self.case)
        ms = (time.perf_counter() - start) * 1000.0
        made = [r for r in reversed(desk.store.runs(limit=1000)) if r["id"] > last]
        return reply, ms, [(r["kind"], r["input"], r["output"], r["method"]) for r in made]


def _actor_testee(spec: str, settings: Settings, backends: Backends, cache: Any) -> Any:
    if spec not in _ACTOR_TESTEES:
        from conflictdesk.app.bench import make_testees
        from conflictdesk.app.desk import Desk
        from conflictdesk.store import Store

        store = Store.open(":memory:")
        if cache is not None:
            store.cache = cache
        desk = Desk(settings, store=store, load_backends=lambda roles: backends)
        _ACTOR_TESTEES[spec] = (desk, make_testees(desk, [spec])[0])
    return _ACTOR_TESTEES[spec]


def replies_on_ray(desk: Desk, cases: Sequence[Any], testees: Sequence[tuple[str, str]],
                   recorder: Any, options: RayOptions) -> None:  # fmt: skip
    """Every (spec, name) testee's missing replies, made on Ray actors and saved here, in
    case order, with the ask runs they stored; the runner then finds them and only checks."""
    from conflictdesk.app.desk import ALL_ROLES

    todo = [(name, spec, case) for spec, name in testees for case in cases
            if recorder.reply(name, case.case_id) is None]  # fmt: skip
    if not todo:
        return
    tasks = [BenchTask(spec, case, desk.settings) for _, spec, case in todo]
    setup = WorkerSetup(worker_loader(desk.settings, options), ALL_ROLES, cache_opener(desk))
    with connect(options):
        results = map_in_order(tasks, setup, options)
        try:
            for (name, _, case), result in zip(todo, results, strict=True):
                for judgment in result.judgments:
                    desk.store.cache.put(*judgment)
                if result.error is not None:
                    raise result.error
                reply, ms, runs = result.value
                for run in runs:
                    desk.store.save_run(*run)
                recorder.save_reply(name, case.case_id, reply, ms)
        finally:
            results.close()
