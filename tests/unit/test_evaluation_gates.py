"""The relevance-gate figures read against gold passage relations."""

from __future__ import annotations

import pytest

from conflictdesk.evaluation.cases import Case
from conflictdesk.evaluation.gates import PassageGate, gate_figures, read_case, render_gates
from tests.fakes import FakeEmbedder


def _case() -> Case:
    documents = (
        "Mount Plissadine rises to 3,120 metres above the Orlen valley.",
        "The summit of Mount Plissadine stands 3,410 metres high, a survey blog says.",
        "Bakeries in Tessby sell rye bread on Sundays.",
    )
    return Case(
        "ramdocs", "How high is Mount Plissadine?",
        "The answer to the question How high is Mount Plissadine? is 3,120 metres.",
        "3,120 metres", ("3,410 metres",), documents,
        ("SUPPORTS", "CONTRADICTS", "IRRELEVANT"), "eval",
    )  # fmt: skip


def test_an_off_topic_passage_is_set_aside_and_the_answering_ones_kept():
    rows = read_case(_case(), FakeEmbedder())
    assert [r.gold for r in rows] == ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]
    assert rows[2].topicality < 0.5 <= min(rows[0].topicality, rows[1].topicality)
    figures = gate_figures(rows, ratios=(0.5,))
    assert figures["topicality"] == [
        {"ratio": 0.5, "answering_set_aside": 0.0, "irrelevant_set_aside": 1.0}
    ]
    assert figures["discrimination"] == 1.0


def test_subject_gate_counts_only_topical_passages_by_gold_relation():
    rows = [
        PassageGate(0.9, True, "SUPPORTS"),
        PassageGate(0.8, True, "IRRELEVANT"),
        PassageGate(0.2, True, "IRRELEVANT"),  # below the topicality gate: not the subject's
        PassageGate(0.9, False, "CONTRADICTS"),
    ]
    figures = gate_figures(rows, ratios=(0.5,))
    assert figures["subject"]["set_aside"] == {"SUPPORTS": 1, "IRRELEVANT": 1}
    assert figures["subject"]["answering_share"] == pytest.approx(0.5)
    assert figures["subject"]["answering_share_of_passages"] == pytest.approx(0.5)
    assert figures["topicality"][0]["irrelevant_set_aside"] == pytest.approx(0.5)
    assert "(in use)" in render_gates({"toy": figures})
