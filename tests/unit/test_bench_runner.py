from __future__ import annotations

from collections import Counter

import pytest

from conflictdesk.bench.cases import Task, generate_cases
from conflictdesk.bench.checkers import OfflineChecker
from conflictdesk.bench.corpus import read_corpus
from conflictdesk.bench.runner import MemoryRecorder, run_bench
from conflictdesk.bench.testees import Reply
from conflictdesk.bench.testees.desk import AskTestee
from conflictdesk.bench.testees.gguf import GeneratorTestee
from conflictdesk.generation.answer import ask
from conflictdesk.store import Store
from conflictdesk.store.bench import BenchStore, list_runs
from tests.fakes import FakeGenerator, fake_backends
from tests.unit.test_bench_corpus import EXAMPLE


class CountingTestee:
    """Answers "yes" / a refusal and counts calls; raises on call number `die_at`."""

    def __init__(self, name: str = "counting", die_at: int | None = None) -> None:
        self.name, self.die_at, self.calls = name, die_at, Counter()

    def respond(self, case):
        if self.die_at is not None and sum(self.calls.values()) == self.die_at:
            raise KeyboardInterrupt
        self.calls[case.case_id] += 1
        text = "yes" if case.task is Task.IDENTIFY else "I cannot answer."
        return Reply(text, f"prompt {case.case_id}")


@pytest.fixture(scope="module")
def cases():
    return generate_cases(read_corpus(EXAMPLE), limit=40)


def test_interrupted_run_resumes_without_repeating_a_call(tmp_path, cases):
    checker = OfflineChecker(None)
    path = tmp_path / "bench.db"
    with Store.open(path) as store:
        recorder = BenchStore.open_run(store, "key-1", "corpus.tsv", {"cases": 40})
        dying = CountingTestee(die_at=17)
        with pytest.raises(KeyboardInterrupt):
            run_bench(cases, [dying], checker, recorder)
        assert recorder.counts() == (17, 17)
    with Store.open(path) as store:
        recorder = BenchStore.open_run(store, "key-1", "corpus.tsv", {"cases": 40})
        fresh = CountingTestee()
        steps = []
        outcomes = run_bench(cases, [fresh], checker, recorder,
                             on_step=lambda t, c, reused: steps.append(reused))  # fmt: skip
        assert sum(fresh.calls.values()) == 40 - 17
        assert set((dying.calls + fresh.calls).values()) == {1}
        assert steps.count(True) == 17 and len(outcomes) == 40
        assert recorder.counts() == (40, 40)
        recorder.finish()
        assert [r.id for r in list_runs(store)] == [recorder.run_id]
        assert list_runs(store)[0].finished is not None


def test_stored_reply_round_trips(tmp_path):
    with Store.open(tmp_path / "b.db") as store:
        recorder = BenchStore.open_run(store, "k", "c.tsv", {})
        reply = Reply("text", "prompt", refused=True, contradiction=None, detail={"kappa": 0.5})
        recorder.save_reply("t", "case", reply, 12.0)
        assert recorder.reply("t", "case") == reply
        assert recorder.reply("t", "other") is None


def test_several_testees_each_answer_every_case(cases):
    first, second = CountingTestee("a"), CountingTestee("b")
    outcomes = run_bench(cases[:20], [first, second], OfflineChecker(None), MemoryRecorder())
    assert Counter(o.testee for o in outcomes) == {"a": 20, "b": 20}


def test_gguf_testee_sends_the_case_prompt(cases):
    llm = FakeGenerator("No.")
    reply = GeneratorTestee(llm).respond(cases[1])
    assert reply.text == "No." and cases[1].contexts[0] in reply.prompt
    assert llm.history[0]["messages"][-1]["content"].endswith(cases[1].query)


def test_ask_testee_maps_no_context_to_refusal_and_runs_the_pipeline(cases):
    backends = fake_backends()
    testee = AskTestee(lambda query, passages: ask(query, passages, backends)[:2])
    empty = testee.respond(cases[0])
    assert empty.refused is True and cases[0].contexts == ()
    identify = next(c for c in cases if c.task is Task.IDENTIFY and len(c.contexts) == 2)
    reply = testee.respond(identify)
    assert reply.text in ("yes", "no") and reply.contradiction is (reply.text == "yes")
    assert {"stance", "conflict_type", "conflicting_pairs"} <= set(reply.detail)


def test_outcomes_read_back_from_the_store_equal_the_runs(tmp_path, cases):
    from conflictdesk.store.bench import run_outcomes

    checker = OfflineChecker(None)
    with Store.open(tmp_path / "b.db") as store:
        recorder = BenchStore.open_run(store, "k", "c.tsv", {"checker": checker.name})
        outcomes = run_bench(cases, [CountingTestee()], checker, recorder)
        assert run_outcomes(store, recorder.run_id) == outcomes
        assert run_outcomes(store, recorder.run_id, "another-checker") == []
