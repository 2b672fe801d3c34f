"""The examples' questions in several wordings, on the shipped models and the example
collection (all documents inline): the conflict type and the leading answer must not change
with the wording, and no passage about another entity may lead."""

from __future__ import annotations

from pathlib import Path

import pytest

from conflictdesk.analysis.pipeline import analyze
from conflictdesk.analysis.types import QueryForm

pytestmark = pytest.mark.integration

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

WORDINGS = {
    "quillmere-lighthouse": (
        "When was the Quillmere lighthouse first lit and how tall is it?",
        "How tall is the Quillmere lighthouse, and when was it first lit?",
        "Quillmere lighthouse - when was it first lit and how tall is it?",
    ),
    "lumivex-benefits": (
        "What does lumivex (vitamin Q7) do for the body?",
        "What does lumivex do in the human body?",
        "What is lumivex (vitamin Q7) good for in the body?",
        "lumivex (vitamin Q7) - what does it do for the body?",
    ),
    "brannock-diet": (
        "Does the Brannock diet lower blood pressure?",
        "Does following the Brannock diet reduce blood pressure?",
        "Can the Brannock diet lower your blood pressure?",
        "Brannock diet - does it lower blood pressure?",
    ),
    "orvane-ceo": (
        "Who is the chief executive officer of Orvane Systems?",
        "Who is the CEO of Orvane Systems?",
        "Who is Orvane Systems' chief executive?",
        "Orvane Systems CEO",
        "Tell me who the chief executive of Orvane Systems is.",
    ),
    "velsarin-dose": (
        "What is the maximum daily dose of velsarin for adults?",
        "What is the recommended daily dose of velsarin for adults?",
        "How much velsarin may adults take per day at most?",
        "Could you tell me the maximum daily dose of velsarin for adults?",
    ),
    "ysolde-height": (
        "How tall is Mount Ysolde?",
        "What is the height of Mount Ysolde?",
        "How high is Mount Ysolde?",
        "Mount Ysolde height",
        "Can you tell me how tall Mount Ysolde is?",
    ),
}
SUBJECTS = {
    "quillmere-lighthouse": "quillmere",
    "lumivex-benefits": "lumivex",
    "brannock-diet": "brannock",
    "orvane-ceo": "orvane",
    "velsarin-dose": "velsarin",
    "ysolde-height": "ysolde",
}


def _answer(analysis) -> str:
    """The leading answer: the leading candidate (wh) or the stance (yes/no)."""
    if analysis.tagging.frame.form is QueryForm.WH:
        return (analysis.tagging.frame.leading or "").lower()
    return analysis.stance.value


# Once wording-dependent, now fixed at the cause: "what is the height of" picked the name
# nearest the subject (claims.py `_agreed_spans`); "what is X good for" read as a value
# question (`asks_description`) and a tie between two answers was broken by packet order
# (typing_features `_dissent_features`); "CEO" against passages that say "chief executive
# officer" (tag.py, `text.spell_out_acronyms`).
# Since the NLI continuation merged into main (e7aba78): "Can the Brannock diet lower your
# blood pressure?" becomes the claim "The Brannock can diet lower your blood pressure"
# (claims.declarative puts a modal after the article and capitalised run, inside the noun
# phrase); the new model reads that claim against the passages differently (κ 0.56 against
# 0.85) and the type tips to misinformation. Fixed at the cause (2026-11-24):
# claims.declarative now finds the main verb after a modal ("The Brannock diet can lower your
# blood pressure"), and the three wordings get the same type. The stance still differs:
# do-support leaves the verb uninflected ("The Brannock diet lower blood pressure"), which
# the MiniLM reads as refuted where the other two read supported; the cascade (MiniLM, then
# MPNet) reads all three alike, and since 2026-11-25 it reads every yes/no question's
# statement in `ask` (AnalysisOptions.statement_tags), so the three wordings agree.
# Since session 17 the type model (evidence+answers, L2 100) is flatter and reads the
# question's wording through the subjectivity probe: the Brannock diet's three wordings sit
# on a near tie between conflicting opinions and misinformation (0.34 / 0.32, 0.37 / 0.31,
# and 0.32 / 0.33 for "Does the Brannock diet lower blood pressure?"), so one wording tips.
# Since session 18 (keyword queries, requests and a topic before the question read as the
# question they ask: analysis/wording.py; the type model refitted with two other wordings of
# every written case) three of its four wordings read misinformation (0.39 / 0.28, 0.37 /
# 0.30, 0.37 / 0.29) and "Can the Brannock diet lower your blood pressure?" opinions (0.37 /
# 0.34); the keyword, request and topic wordings of the other examples agree.
UNSTABLE: dict[str, str] = {
    "brannock-diet": "near tie between opinions and misinformation (docs/type_report.md)",
}


@pytest.mark.parametrize(
    "item",
    [
        pytest.param(i, marks=pytest.mark.xfail(strict=True, reason=UNSTABLE[i]))
        if i in UNSTABLE
        else i
        for i in sorted(WORDINGS)
    ],
    ids=str,
)
def test_type_and_answer_do_not_change_with_wording(backends, example_passages, item):
    runs = [analyze(query, example_passages, backends) for query in WORDINGS[item]]
    types = {query: run.verdict.type.value for query, run in zip(WORDINGS[item], runs)}
    answers = {query: _answer(run) for query, run in zip(WORDINGS[item], runs)}
    assert len(set(types.values())) == 1, types
    assert len(set(answers.values())) == 1, answers


@pytest.mark.parametrize("item", sorted(WORDINGS), ids=str)
def test_only_passages_about_the_subject_are_on_topic(backends, example_passages, item):
    for query in WORDINGS[item]:
        analysis = analyze(query, example_passages, backends)
        on_topic = [t.passage_id for t in analysis.tags if t.on_topic]
        assert on_topic, query
        for pid in on_topic:
            passage = analysis.passage(pid)
            assert SUBJECTS[item] in f"{passage.title} {passage.text}".lower(), (query, pid)
