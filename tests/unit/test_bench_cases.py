from __future__ import annotations

from collections import Counter

from conflictdesk.bench.cases import Expected, Task, entry_cases, generate_cases
from conflictdesk.bench.corpus import read_corpus
from tests.unit.test_bench_corpus import EXAMPLE


def test_one_entry_gives_the_papers_twenty_cases():
    entry = read_corpus(EXAMPLE)[0]
    cases = entry_cases(entry)
    assert len(cases) == 20  # 1060 cases from 53 entries (Ragability §4.1)
    assert Counter(c.task for c in cases) == {Task.QUERY: 13, Task.IDENTIFY: 7}
    assert Counter(c.expected for c in cases) == {
        Expected.REFUSE: 7, Expected.ANSWER_1: 5, Expected.ANSWER_2: 1,
        Expected.YES: 3, Expected.NO: 4,
    }  # fmt: skip
    metric_counts = Counter(m for c in cases for m in c.metrics)
    assert metric_counts == {
        "correct_answer_all": 20, "correct_answer_answerable": 6,
        "refusal_not_answerable": 7, "contradiction_identification": 7,
    }  # fmt: skip
    assert len({c.case_id for c in cases}) == 20


def test_pairs_come_in_both_orders_and_hints_only_on_query_cases():
    entry = read_corpus(EXAMPLE)[0]
    cases = {c.case_id.rsplit("-", 1)[1]: c for c in entry_cases(entry)}
    assert cases["q12"].contexts == (entry.context_1, entry.context_2)
    assert cases["q21"].contexts == (entry.context_2, entry.context_1)
    assert cases["q31h"].hint and "hint" in cases["q31h"].tags
    assert not any(c.hint for c in cases.values() if c.task is Task.IDENTIFY)
    assert cases["q0"].contexts == () and cases["q0"].expected is Expected.REFUSE
    assert cases["q2"].answer_short == entry.answer_context2
    assert cases["ic1234"].expected is Expected.YES and "contexts:4" in cases["ic1234"].tags
    assert f"reasoning:{entry.reasoning_required_c1c2}" in cases["q1"].tags


def test_tags_and_limit_slice_the_cases():
    entries = read_corpus(EXAMPLE)
    sliced = generate_cases(entries, tags=["task:query", "hint"])
    assert len(sliced) == 5 * len(entries)
    assert all("hint" in c.tags and c.task is Task.QUERY for c in sliced)
    assert len(generate_cases(entries, limit=7)) == 7
