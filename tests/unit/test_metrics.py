"""CARS, citation quality, contradiction rate and factual grounding on hand-computed cases."""

from __future__ import annotations

import pytest

from conflictdesk.generation.types import AnswerSentence, SentenceRole
from conflictdesk.metrics.cars import (
    CarsComponents,
    answer_contains,
    cars,
    detection_prf,
    normalize_answer,
    resolution_appropriate,
)
from conflictdesk.metrics.citations import (
    CONTRADICTORY,
    NO_FACT,
    SUPPORTED,
    UNSUPPORTED,
    citation_quality,
    factual_grounding,
)
from conflictdesk.types import ConflictType, NLIScores, Tag
from tests.fakes import FakeNLI

ENTAIL = NLIScores(0.9, 0.05, 0.05)
CONTRA = NLIScores(0.05, 0.05, 0.9)

# Premises and hypotheses are too short for FakeNLI's word overlap, so every pair not
# pinned below is neutral.
PASSAGES = {0: "P0", 1: "P1", 2: "P2"}
S1 = AnswerSentence("S1", (0, 1))
S2 = AnswerSentence("S2", (2,))
S3 = AnswerSentence("S3", (0, 2), SentenceRole.CONFLICT)


def test_cars_is_the_weighted_sum_of_eq_5():
    # 0.35·0.8 + 0.25·0.6 + 0.25·0.5 + 0.15·0.4 = 0.28 + 0.15 + 0.125 + 0.06 = 0.615
    assert cars(CarsComponents(ac=0.8, cda=0.6, ra=0.5, sf=0.4)) == pytest.approx(0.615)
    assert cars(CarsComponents(1, 1, 1, 1)) == pytest.approx(1.0)
    assert cars(CarsComponents(0, 0, 1, 0)) == pytest.approx(0.25)


def test_cars_component_outside_unit_interval_is_refused():
    with pytest.raises(ValueError, match="RA"):
        CarsComponents(ac=0.5, cda=0.5, ra=4.0, sf=0.5)  # a raw 1–5 rating, not normalised


def test_detection_prf_hand_computed():
    # tp = 2 (q1, q5), fp = 1 (q2), fn = 1 (q3), tn = 1 (q4)
    prf = detection_prf([True, True, False, False, True], [True, False, True, False, True])
    assert (prf.tp, prf.fp, prf.fn, prf.tn) == (2, 1, 1, 1)
    assert prf.precision == pytest.approx(2 / 3)
    assert prf.recall == pytest.approx(2 / 3)
    assert prf.f1 == pytest.approx(2 / 3)
    assert detection_prf([False, False], [False, False]).f1 == 0.0
    with pytest.raises(ValueError):
        detection_prf([True], [True, False])


def test_answer_contains_normalises_but_matches_whole_words():
    assert normalize_answer("The 3,559 People!") == "3559 people"
    assert answer_contains("As of 2010, there were 3,559 people.", ["3,559 people"])
    assert answer_contains("It is an apple.", ["the apple"])
    assert not answer_contains("It had 100 rooms.", ["10"])
    assert not answer_contains("anything", ["", "  "])


def test_resolution_appropriate_uses_the_expected_rule_of_the_gold_type():
    assert resolution_appropriate("recency", ConflictType.OUTDATED)
    assert resolution_appropriate("entropy_topsis", ConflictType.MISINFORMATION)
    assert not resolution_appropriate("direct", ConflictType.CONFLICTING_OPINIONS)


def _nli() -> FakeNLI:
    return FakeNLI(
        override={
            ("P0\nP1", "S1"): ENTAIL,  # the joint citation set entails S1
            ("P0", "S1"): ENTAIL,  # P0 alone does too
            # P1 alone does not, and without P1 the rest (P0) still entails: P1 is redundant
        }
    )


def test_citation_quality_alce_hand_computed():
    nli = _nli()
    report = citation_quality(
        [S1, S2, S3], PASSAGES, nli, {0: Tag.SUPPORT, 1: Tag.SUPPORT, 2: Tag.IRRELEVANT}
    )
    # recall: S1 entailed, S2 not → 1/2 (S3 is a conflict note, left out)
    assert report.recall == pytest.approx(0.5)
    # precision: S1 cites 0 (precise) and 1 (redundant); S2 cites 2 (not entailed) → 1/3
    assert report.precision == pytest.approx(1 / 3)
    assert report.sentences[0].precise == (0,) and report.sentences[0].imprecise == (1,)
    # leakage: 5 citations in all, 2 of them (S2 and S3) point to irrelevant passage 2
    assert report.leakage == pytest.approx(2 / 5)
    assert report.n_claims == 2 and report.n_citations == 3
    assert len(nli.history) == 1  # one NLI batch


def test_citation_of_two_jointly_needed_passages_is_precise():
    nli = FakeNLI(override={("P0\nP1", "S1"): ENTAIL})  # neither alone, both together
    report = citation_quality([S1], PASSAGES, nli)
    assert report.precision == 1.0 and report.recall == 1.0


def test_uncited_claim_has_zero_recall_and_no_precision():
    report = citation_quality([AnswerSentence("S9", ())], PASSAGES, FakeNLI())
    assert report.recall == 0.0 and report.precision is None and report.leakage is None


def test_citing_an_unknown_passage_is_an_error():
    with pytest.raises(ValueError, match=r"\[7\]"):
        citation_quality([AnswerSentence("S", (7,))], PASSAGES, FakeNLI())


def test_factual_grounding_and_contradiction_rate_hand_computed():
    nli = FakeNLI(
        override={
            ("P0", "A"): ENTAIL,  # A supported
            ("P1", "A"): CONTRA,  # ...even though P1 contradicts it: one side of a dispute
            ("P2", "B"): CONTRA,  # B contradicted, entailed by none
        }
    )
    sentences = [
        AnswerSentence("A", (0,)),
        AnswerSentence("B", (2,)),
        AnswerSentence("C", (1,)),  # neutral to everything: unsupported
        AnswerSentence("Sources disagree.", (0, 1), SentenceRole.CONFLICT),
    ]
    report = factual_grounding(sentences, PASSAGES, nli)
    assert report.labels == (SUPPORTED, CONTRADICTORY, UNSUPPORTED, NO_FACT)
    assert report.grounding == pytest.approx(1 / 3)
    assert report.contradiction_rate == pytest.approx(1 / 3)
    assert len(nli.history) == 1


def test_grounding_without_factual_sentences_is_undefined():
    report = factual_grounding(
        [AnswerSentence("No answer.", (), SentenceRole.ABSTAIN)], PASSAGES, FakeNLI()
    )
    assert report.grounding is None and report.contradiction_rate is None
