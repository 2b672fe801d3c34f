"""`ask`'s conflict call by the verdict model: it overrides the type classifier's conflict /
no-conflict call only, says so, and keeps `uncertain` where a reviewer should look."""

from __future__ import annotations

import numpy as np
import pytest

from conflictdesk.analysis.conflict_call import (
    call_by_pairs,
    call_conflict,
    claim_evidence,
    likeliest_conflict_type,
    verdict_model_for,
)
from conflictdesk.analysis.pipeline import AnalysisOptions, analyze
from conflictdesk.analysis.types import ConflictPair, ConflictVerdict, PassageTag
from conflictdesk.errors import UsageError
from conflictdesk.scoring.verdict import FEATURES, VerdictModel
from conflictdesk.types import ConflictType, NLIScores, PairType, Passage, Tag
from tests.fakes import FakeNLI, fake_backends

PROBABILITIES = {"no_conflict": 0.5, "complementary": 0.1, "conflicting_opinions": 0.05,
                 "outdated": 0.3, "misinformation": 0.05}  # fmt: skip


def model(bias: float, threshold: float = 0.5) -> VerdictModel:
    """P(conflict) = sigmoid(4 * rule + bias), rule: one SUPPORTS and one CONTRADICTS tag."""
    weights = np.zeros(len(FEATURES))
    weights[FEATURES.index("rule")] = 4.0
    return VerdictModel("test-verdict", np.zeros(len(FEATURES)), np.ones(len(FEATURES)),
                        weights, bias, threshold, 0.1)  # fmt: skip


def tag(pid: int, e: float, n: float, c: float, method: str = "nli") -> PassageTag:
    kind = (Tag.SUPPORT, Tag.IRRELEVANT, Tag.REFUTE)[int(np.argmax([e, n, c]))]
    return PassageTag(pid, kind, max(e, n, c), e, n, c, method=method)


BOTH_SIDES = [tag(0, 0.9, 0.05, 0.05), tag(1, 0.1, 0.1, 0.8), tag(2, 0.1, 0.8, 0.1)]


def verdict(kind: ConflictType) -> ConflictVerdict:
    return ConflictVerdict(kind, "because", "model:types", {"probabilities": PROBABILITIES}, 0.5)


def test_the_model_can_withdraw_a_conflict():
    out = call_conflict(verdict(ConflictType.MISINFORMATION), BOTH_SIDES, 3, model(bias=-6.0))
    assert out.type is ConflictType.NO_CONFLICT
    assert "finds no conflict" in out.rationale and "had said misinformation" in out.rationale
    assert out.method == (
        "model:types; conflict call: verdict model test-verdict: P(conflict) >= 0.500 "
        "over the on-topic passage tags"
    )
    assert out.signals["conflict_call"]["conflict"] is False
    assert out.confidence == pytest.approx(0.5)  # the type model's P(no_conflict)


def test_the_model_can_add_a_conflict_with_the_likeliest_type():
    out = call_conflict(verdict(ConflictType.NO_CONFLICT), BOTH_SIDES, 3, model(bias=-1.0))
    assert out.type is ConflictType.OUTDATED  # the most probable type other than no_conflict
    assert out.confidence == pytest.approx(0.3)
    assert "finds a conflict" in out.rationale


def test_agreement_leaves_the_type_and_off_topic_tags_do_not_count():
    same = call_conflict(verdict(ConflictType.OUTDATED), BOTH_SIDES, 3, model(bias=-1.0))
    assert (same.type, same.rationale) == (ConflictType.OUTDATED, "because")
    off_topic = [BOTH_SIDES[0], tag(1, 0.0, 0.0, 0.0, method="subject")]
    alone = call_conflict(verdict(ConflictType.OUTDATED), off_topic, 2, model(bias=-1.0))
    assert alone.type is ConflictType.NO_CONFLICT  # one on-topic passage: no two sides


def test_a_call_near_the_threshold_is_uncertain():
    near = call_conflict(verdict(ConflictType.OUTDATED), BOTH_SIDES, 3, model(-4.0, 0.45))
    assert near.uncertain is True and near.rationale.startswith("uncertain conflict call")


def test_rules_without_probabilities_fall_back_to_misinformation():
    rules = ConflictVerdict(ConflictType.NO_CONFLICT, "why", "rules", {})
    assert likeliest_conflict_type(rules) is ConflictType.MISINFORMATION
    assert verdict_model_for("type") is None
    with pytest.raises(UsageError, match="verdict"):
        verdict_model_for("majority")


QUERY = "When did season 5 of Prison Break come out?"
PASSAGES = [
    Passage(0, "Season 5 of Prison Break premiered on April 4, 2017 on Fox."),
    Passage(1, "Season 5 of Prison Break was released on May 30, 2017."),
    Passage(2, "Tulips grow in spring."),
]


def test_claim_evidence_labels_the_detect_claim_for_the_leading_answer():
    claim = (
        "The answer to the question When did season 5 of Prison Break come out? is April 4, 2017."
    )
    nli = FakeNLI(override={(PASSAGES[1].text, claim): NLIScores(0.05, 0.05, 0.9)})
    evidence = claim_evidence(QUERY, "April 4, 2017", PASSAGES, nli)
    assert evidence is not None and len(evidence) == 2  # the tulips share no content word
    assert (PASSAGES[0].text, claim) in nli.history[0]
    assert evidence[0][0] > 0.5 and evidence[1][1] > 0.5  # supports, then contradicts
    assert claim_evidence(QUERY, None, PASSAGES, nli) is None


def test_analyze_with_the_verdict_model_says_so(monkeypatch):
    monkeypatch.setattr(
        "conflictdesk.analysis.conflict_call.default_verdict_models",
        lambda: {"ask": model(bias=-6.0)},  # never a conflict
    )
    analysis = analyze(QUERY, PASSAGES, fake_backends(), options=AnalysisOptions(verdict="model"))
    assert analysis.verdict.type is ConflictType.NO_CONFLICT
    assert "conflict call: verdict model test-verdict" in analysis.verdict.method
    assert analysis.verdict.signals["conflict_call"]["conflict"] is False
    plain = analyze(QUERY, PASSAGES, fake_backends(), options=AnalysisOptions(verdict="type"))
    assert "conflict_call" not in plain.verdict.signals


def pair(i: int, j: int, prob: float) -> ConflictPair:
    return ConflictPair(i, j, prob, prob >= 0.5, PairType.FACTUAL, "mlp", prob, 0.9)


def test_a_flagged_pair_turns_no_conflict_into_the_likeliest_conflict_type():
    out = call_by_pairs(verdict(ConflictType.NO_CONFLICT), [pair(0, 1, 0.2), pair(1, 2, 0.8)])
    assert out.type is ConflictType.OUTDATED  # likeliest conflict type of PROBABILITIES
    assert out.confidence == pytest.approx(0.3)
    assert out.rationale.startswith("passages 1 and 2 conflict (mlp, P 0.80)")
    assert "had found none (because)" in out.rationale
    assert out.method == "model:types"  # the classifier's, as `models list` reports it
    assert out.signals["conflict_call"] == {"by": "a conflicting pair", "pairs": 1}


def test_a_pair_called_type_below_the_model_threshold_is_marked_uncertain():
    import dataclasses

    base = verdict(ConflictType.NO_CONFLICT)
    low = dataclasses.replace(base, signals={**base.signals, "threshold": 0.4})
    out = call_by_pairs(low, [pair(0, 1, 0.8)])
    assert out.type is ConflictType.OUTDATED and out.confidence == pytest.approx(0.3)
    assert out.uncertain and out.rationale.startswith("uncertain (a reviewer should look)")
    high = dataclasses.replace(base, signals={**base.signals, "threshold": 0.2})
    assert not call_by_pairs(high, [pair(0, 1, 0.8)]).uncertain
    assert not call_by_pairs(base, [pair(0, 1, 0.8)]).uncertain  # no threshold: a rule


def test_no_flagged_pair_or_a_conflict_type_already_leaves_the_verdict():
    quiet = verdict(ConflictType.NO_CONFLICT)
    assert call_by_pairs(quiet, [pair(0, 1, 0.3)]) is quiet
    typed = verdict(ConflictType.MISINFORMATION)
    assert call_by_pairs(typed, [pair(0, 1, 0.9)]) is typed
    llm = ConflictVerdict(ConflictType.NO_CONFLICT, "fig. 2", "llm:smollm2", {})
    assert call_by_pairs(llm, [pair(0, 1, 0.9)]) is llm  # the LLM's own reading stands
    assert verdict_model_for("pairs") is None


def test_analyze_calls_conflict_by_pairs_by_default(monkeypatch):
    from conflictdesk.analysis import pipeline

    calls = []
    real = pipeline.call_by_pairs
    monkeypatch.setattr(pipeline, "call_by_pairs", lambda v, p: calls.append(len(p)) or real(v, p))
    analyze(QUERY, PASSAGES, fake_backends())
    analyze(QUERY, PASSAGES, fake_backends(), options=AnalysisOptions(verdict="type"))
    assert len(calls) == 1  # the default only
