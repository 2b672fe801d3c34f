from __future__ import annotations

import pytest

from conflictdesk.bench.cases import Expected, Task, entry_cases
from conflictdesk.bench.checkers import (
    GgufChecker,
    OfflineChecker,
    check_reply,
    string_match,
    yes_no,
)
from conflictdesk.bench.corpus import read_corpus
from conflictdesk.bench.testees import Reply
from conflictdesk.types import NLIScores
from tests.fakes import FakeGenerator
from tests.unit.test_bench_corpus import EXAMPLE


@pytest.fixture(scope="module")
def cases():
    return {c.case_id.rsplit("-", 1)[1]: c for c in entry_cases(read_corpus(EXAMPLE)[5])}


class ScriptedNLI:
    model_id = "scripted-nli"

    def __init__(self, entailment: float) -> None:
        self.entailment, self.calls = entailment, []

    def classify(self, pairs):
        self.calls += list(pairs)
        rest = (1 - self.entailment) / 2
        return [NLIScores(self.entailment, rest, rest) for _ in pairs]


def test_yes_no_reads_the_first_words():
    assert yes_no("Yes, context 2 disagrees.") is True
    assert yes_no("no") is False
    assert yes_no("**No.**") is False
    assert yes_no("The contexts agree.") is None


def test_string_match_numbers_and_phrases():
    assert string_match("340", "In all, 340 soldiers died.")
    assert not string_match("340", "In all, 3400 soldiers died.")
    assert string_match("1,200", "About 1,200 people.")
    assert string_match("an amphibian", "It is an amphibian.")
    assert string_match("the river Ardune", "It flows into the River Ardune")
    assert not string_match("the river Ardune", "It flows into the sea.")


def test_identification_is_read_from_yes_no_without_a_checker(cases):
    checker = OfflineChecker(ScriptedNLI(0.0))
    assert check_reply(cases["ic12"], Reply("Yes.", ""), checker).ok
    assert not check_reply(cases["ic13"], Reply("Yes.", ""), checker).ok
    unparsed = check_reply(cases["ic12"], Reply("Maybe.", ""), checker)
    assert not unparsed.ok and unparsed.said_contradiction is None
    assert checker.nli.calls == []


def test_declared_refusal_wins_over_the_text(cases):
    checker = OfflineChecker(ScriptedNLI(0.0))
    check = check_reply(cases["q12"], Reply("Some text.", "", refused=True), checker)
    assert check.ok and check.method == "refusal declared by testee"


def test_offline_checker_refusal_then_correctness(cases):
    nli = ScriptedNLI(0.9)
    checker = OfflineChecker(nli)
    assert check_reply(cases["q12"], Reply("The contexts contradict each other.", ""), checker).ok
    assert not check_reply(cases["q12"], Reply("340 soldiers died.", ""), checker).ok
    answered = check_reply(cases["q1"], Reply("340 soldiers died.", ""), checker)
    assert answered.ok and answered.correct and nli.calls == []  # string match, no NLI
    refused = check_reply(cases["q1"], Reply("I cannot answer that.", ""), checker)
    assert not refused.ok and refused.refused
    by_nli = check_reply(cases["q1"], Reply("Three hundred and forty fell.", ""), checker)
    assert by_nli.ok and nli.calls == [("Three hundred and forty fell.", cases["q1"].answer_long)]
    low = OfflineChecker(ScriptedNLI(0.2))
    assert not check_reply(cases["q1"], Reply("Three hundred and forty fell.", ""), low).ok


def test_gguf_checker_asks_the_two_yes_no_questions(cases):
    llm = FakeGenerator()
    llm.enqueue({"yes": 0.2, "no": 0.8}, {"yes": 0.7, "no": 0.3})
    check = check_reply(cases["q1"], Reply("Roughly 340.", ""), GgufChecker(llm))
    assert check.ok and check.refused is False and check.correct is True
    assert [h["labels"] for h in llm.history] == [["yes", "no"], ["yes", "no"]]
    assert "refuse" in llm.history[0]["messages"][0]["content"]
    assert cases["q1"].answer_long in llm.history[1]["messages"][0]["content"]
    assert cases["q1"].expected is Expected.ANSWER_1 and cases["q1"].task is Task.QUERY
