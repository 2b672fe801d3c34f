"""The QACC probe's AUC and its corroborated-answer rule, on hand-made cases (no model)."""

from __future__ import annotations

import pytest

from conflictdesk.evaluation import qacc_probe as probe
from conflictdesk.evaluation.cases import Case
from conflictdesk.scoring.results import Judgment
from conflictdesk.types import Relation


def test_roc_auc_counts_wins_and_half_ties():
    # pairs (p, n): 0.9 beats 0.1, 0.5; 0.5 beats 0.1 and ties 0.5 -> (2 + 1.5) / 4
    assert probe.roc_auc([0.9, 0.5], [0.1, 0.5]) == pytest.approx(0.875)
    assert probe.roc_auc([0.1], [0.9]) == 0.0
    assert probe.roc_auc([], [0.5]) is None


def _judgment(relation: str) -> Judgment:
    probabilities = {"SUPPORTS": (0.8, 0.1, 0.1), "IRRELEVANT": (0.1, 0.1, 0.8)}[relation]
    return Judgment(Relation(relation), max(probabilities), probabilities, "nli")


def _view(documents: list[str], relations: list[str]) -> object:
    question = "When did India win the cricket world cup?"
    case = Case("qacc", question, f"The answer to the question {question} is 1983.", "1983",
                   (), tuple(documents), tuple(relations), "dev")  # fmt: skip
    return probe.CaseView(case, [_judgment(r) for r in relations])


def test_corroborated_rule_needs_the_other_answer_in_several_contexts():
    documents = [
        "India won the cricket world cup in 1983 at Lord's.",
        "India won the cricket world cup in 2011 in Mumbai.",
        "In 2011 India won the cricket world cup final against Sri Lanka.",
        "The cricket world cup in 1999 was won by Australia.",
    ]
    view = _view(documents, ["SUPPORTS", "IRRELEVANT", "IRRELEVANT", "IRRELEVANT"])
    labels = probe.corroborated_rule(view, min_contexts=2, top=1)
    # 2011 is in two contexts: both contradict; 1999 is in one only: left as it was.
    assert labels == ["SUPPORTS", "CONTRADICTS", "CONTRADICTS", "IRRELEVANT"]
    assert probe.corroborated_rule(view, min_contexts=3, top=1)[1:] == ["IRRELEVANT"] * 3


def test_corroborated_rule_leaves_contexts_that_name_the_claims_answer():
    documents = [
        "India won the cricket world cup in 1983.",
        "India won the cricket world cup in 2011 and in 1983.",
        "India won the cricket world cup in 2011.",
    ]
    view = _view(documents, ["SUPPORTS", "IRRELEVANT", "IRRELEVANT"])
    assert probe.corroborated_rule(view, min_contexts=2, top=1) == [
        "SUPPORTS",
        "IRRELEVANT",
        "CONTRADICTS",
    ]
