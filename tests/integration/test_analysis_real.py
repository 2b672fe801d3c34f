"""The analysis pipeline on the shipped embedded models and the example collection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflictdesk.analysis.pipeline import STAGES, analyze
from conflictdesk.analysis.types import Stance
from conflictdesk.types import ConflictType, Passage, Tag

pytestmark = pytest.mark.integration

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _questions() -> list[dict]:
    lines = (EXAMPLES / "questions.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


# The shipped type model (evidence+answers recipe, L2 100, chosen on unseen authors and
# held-out sources since session 17; docs/type_report.md) types this example otherwise;
# recorded as a strict expected failure so that a model that gets it right shows up.
MISTYPED = {
    "brannock-diet": "typed misinformation (p 0.39), not conflicting opinions (docs/type_report.md)",
}


def _typed_questions() -> list:
    return [
        pytest.param(q, marks=pytest.mark.xfail(strict=True, reason=MISTYPED[q["id"]]))
        if q["id"] in MISTYPED
        else q
        for q in _questions()
    ]


@pytest.mark.parametrize("item", _typed_questions(), ids=lambda q: q["id"])
def test_examples_are_typed_as_expected(backends, example_passages, item):
    analysis = analyze(item["query"], example_passages, backends)
    assert set(analysis.timings) == {"embed", *STAGES}
    assert analysis.methods["classify"].startswith("model:")
    assert all(0.0 <= t.confidence <= 1.0 for t in analysis.tags)
    assert 0.0 <= analysis.kappa <= 1.0
    packet = set(analysis.packet.passage_ids)
    assert packet and all(analysis.tagging.by_id()[pid].on_topic for pid in packet)
    assert {p.stage for p in analysis.pairs} <= {"mlp", "nli"}
    assert analysis.verdict.type is ConflictType(item["expected_type"]), analysis.verdict


def test_off_topic_passages_stay_out_of_a_small_collection_packet(backends, example_passages):
    analysis = analyze("How tall is Mount Ysolde?", example_passages, backends)
    texts = [analysis.passage(pid).text for pid in analysis.packet.passage_ids]
    assert texts and all("Ysolde" in text for text in texts)
    assert analysis.tagging.frame.leading is not None
    assert "2,841" in analysis.tagging.frame.leading


def test_inline_yes_no_question_gets_a_stance(backends):
    passages = [
        Passage(0, "A large trial found that the Brannock diet lowers blood pressure."),
        Passage(1, "Two further trials found that the Brannock diet lowers blood pressure."),
        Passage(2, "Tidal turbines produce electricity from sea currents."),
    ]
    analysis = analyze("Does the Brannock diet lower blood pressure?", passages, backends)
    tags = analysis.tagging.by_id()
    assert tags[0].tag is Tag.SUPPORT and tags[1].tag is Tag.SUPPORT
    assert tags[2].tag is Tag.IRRELEVANT
    assert analysis.stance is Stance.SUPPORT
