"""ConflictRAG two-stage pair detection: features, τ_c routing, NLI and LLM stage 2."""

from __future__ import annotations

import numpy as np
import pytest

from conflictdesk.analysis.pair_features import NLI_LAYOUT, NLI_WORDS
from conflictdesk.analysis.pairs import detect_pairs, pair_features, resolve_tau_c
from conflictdesk.analysis.types import ClaimFrame, PassageTag, QueryForm, Tagging
from conflictdesk.backends.base import Backends
from conflictdesk.errors import ModelOutputError
from conflictdesk.types import NLIScores, PairScores, PairType, Passage, Tag
from tests.fakes import FakeEmbedder, FakeGenerator, FakeNLI, MemoryCache


class ScriptedPair:
    """Returns the queued PairScores in order; records feature batches."""

    model_id = "scripted-pair"

    def __init__(self, scores, tau_c=None):
        self.scores = list(scores)
        self.history = []
        if tau_c is not None:
            self.tau_c = tau_c

    def classify(self, features):
        self.history.append(features)
        return self.scores[: len(features)]


PASSAGES = [
    Passage(0, "Alpha is 5 metres tall."),
    Passage(1, "Alpha is 9 metres tall."),
    Passage(2, "Alpha stands 5 metres high."),
]
TAGGING = Tagging(
    ClaimFrame("q", QueryForm.WH, "h"),
    tuple(
        PassageTag(p.id, Tag.SUPPORT, 0.9, 0.9, 0.05, 0.05, key_sentence=p.text) for p in PASSAGES
    ),
    "t",
)
# pair order: (0,1), (0,2), (1,2)
SCRIPT = [
    PairScores(0.95, (0.02, 0.90, 0.05, 0.03)),  # confident conflict, factual
    PairScores(0.05, (0.9, 0.05, 0.03, 0.02)),  # confident no conflict
    PairScores(0.55, (0.3, 0.1, 0.5, 0.1)),  # uncertain (confidence 0.55 < 0.7)
]


def test_features_are_the_four_interaction_blocks():
    e_i, e_j = np.array([[1.0, -2.0]]), np.array([[3.0, 0.5]])
    f = pair_features(e_i, e_j)
    assert f.dtype == np.float32 and f.shape == (1, 8)
    assert f[0].tolist() == [1.0, -2.0, 3.0, 0.5, 2.0, 2.5, 3.0, -1.0]


def test_tau_c_explicit_then_model_then_paper_default():
    with_tau = Backends(FakeEmbedder(), FakeNLI(), ScriptedPair([], tau_c=0.8))
    assert resolve_tau_c(with_tau, 0.6) == 0.6
    assert resolve_tau_c(with_tau, None) == 0.8
    assert resolve_tau_c(Backends(FakeEmbedder(), FakeNLI(), ScriptedPair([])), None) == 0.7


def test_confident_pairs_stay_in_stage_one_uncertain_go_to_nli_in_one_batch():
    """Stage 1 settles the confident pairs; NLI decides the rest and reads every pair."""
    contradiction = NLIScores(0.05, 0.1, 0.85)
    nli = FakeNLI(override={(PASSAGES[2].text, PASSAGES[1].text): contradiction})
    embedder, pair = FakeEmbedder(), ScriptedPair(SCRIPT)
    detection = detect_pairs("How tall is Alpha?", PASSAGES, TAGGING, Backends(embedder, nli, pair))
    assert embedder.history[0][0] == "How tall is Alpha?\nAlpha is 5 metres tall."
    assert pair.history[0].shape == (3, 4 * embedder.dim)
    first, second, third = detection.pairs
    assert (first.stage, first.conflict, first.pair_type) == ("mlp", True, PairType.FACTUAL)
    assert (second.stage, second.conflict, second.pair_type) == ("mlp", False, PairType.NONE)
    assert third.stage == "nli" and third.conflict
    assert third.conflict_prob == pytest.approx(0.85)
    assert third.pair_type is PairType.TEMPORAL  # head 2's best non-"none" type
    assert third.stage1_prob == pytest.approx(0.55)
    # one NLI batch over every pair, both directions: it decides the third pair, and the
    # settled ones keep stage 1's call with the NLI probabilities beside it (type features)
    assert len(nli.history) == 1 and len(nli.history[0]) == 6
    assert first.conflict_prob == pytest.approx(0.95) and len(first.nli) == 6
    assert len(second.nli) == 6 and len(third.nli) == 6
    assert detection.method == "mlp:scripted-pair+nli:fake-nli"
    assert detection.conflicting == (first, third)


def test_without_a_pair_model_every_pair_goes_to_nli():
    nli = FakeNLI()
    detection = detect_pairs("q", PASSAGES, TAGGING, Backends(FakeEmbedder(), nli, None))
    assert {p.stage for p in detection.pairs} == {"nli"}
    assert len(nli.history[0]) == 6
    assert detection.method == "nli:fake-nli"
    # FakeNLI: differing numbers over shared words contradict
    verdicts = {(p.i, p.j): p.conflict for p in detection.pairs}
    assert verdicts == {(0, 1): True, (0, 2): False, (1, 2): True}


def test_llm_refines_uncertain_pairs_with_structured_json():
    llm = FakeGenerator()
    llm.enqueue({"conflict": True, "type": "opinion", "reason": "they judge differently"})
    cache = MemoryCache()
    backends = Backends(FakeEmbedder(), FakeNLI(), ScriptedPair(SCRIPT), llm)
    detection = detect_pairs("q", PASSAGES, TAGGING, backends, cache=cache)
    third = detection.pairs[2]
    assert (third.stage, third.conflict, third.pair_type) == ("llm", True, PairType.OPINION)
    assert third.rationale == "they judge differently"
    assert len(llm.history) == 1 and llm.history[0]["kind"] == "json"
    assert detection.method == "mlp:scripted-pair+llm:fake-llm"
    again = detect_pairs("q", PASSAGES, TAGGING, backends, cache=cache)
    assert len(llm.history) == 1 and again.pairs[2] == third


def test_malformed_llm_answer_raises():
    llm = FakeGenerator()
    llm.enqueue({"conflict": "maybe", "type": "none", "reason": ""})
    backends = Backends(FakeEmbedder(), FakeNLI(), ScriptedPair(SCRIPT), llm)
    with pytest.raises(ModelOutputError):
        detect_pairs("q", PASSAGES, TAGGING, backends)


def test_pair_model_refuses_features_from_another_embedder():
    from conflictdesk.errors import ModelIntegrityError

    pair = ScriptedPair(SCRIPT)
    pair.config = {"embedder": "minilm-l6-embedder-int8", "text_template": "{query}\n{passage}"}
    with pytest.raises(ModelIntegrityError):
        detect_pairs("q", PASSAGES, TAGGING, Backends(FakeEmbedder(), FakeNLI(), pair))
    pair.config["embedder"] = "fake-embedder"
    pair.config["text_template"] = "Q: {query} P: {passage}"
    embedder = FakeEmbedder()
    detect_pairs("q", PASSAGES, TAGGING, Backends(embedder, FakeNLI(), pair))
    assert embedder.history[0][0] == "Q: q P: Alpha is 5 metres tall."
    versioned = FakeEmbedder()
    versioned.model_id = "fake-embedder@0a1b2c3d"  # registry ids are name@version
    detect_pairs("q", PASSAGES, TAGGING, Backends(versioned, FakeNLI(), pair))
    versioned.model_id = "fake-embedder-v2@0a1b2c3d"
    with pytest.raises(ModelIntegrityError):
        detect_pairs("q", PASSAGES, TAGGING, Backends(versioned, FakeNLI(), pair))


def test_confident_stage_one_call_contradicted_by_the_answers_goes_to_stage_two():
    answers = {0: "5 metres", 1: "9 metres", 2: "5 metres"}
    tagging = Tagging(
        ClaimFrame("q", QueryForm.WH, "h"),
        tuple(
            PassageTag(
                p.id, Tag.SUPPORT, 0.9, 0.9, 0.05, 0.05, key_sentence=p.text, answer=answers[p.id]
            )
            for p in PASSAGES
        ),
        "t",
    )
    script = [
        PairScores(0.05, (0.9, 0.05, 0.03, 0.02)),  # (0,1): confident "none", answers differ
        PairScores(0.95, (0.02, 0.9, 0.05, 0.03)),  # (0,2): confident conflict, same answer
        PairScores(0.55, (0.3, 0.1, 0.5, 0.1)),  # (1,2): uncertain anyway
    ]
    nli = FakeNLI()
    detection = detect_pairs(
        "q", PASSAGES, tagging, Backends(FakeEmbedder(), nli, ScriptedPair(script))
    )
    assert [p.stage for p in detection.pairs] == ["nli", "nli", "nli"]
    assert len(nli.history[0]) == 6
    assert [p.conflict for p in detection.pairs] == [True, False, True]


def test_description_answers_need_contradiction_both_ways():
    from conflictdesk.analysis.types import Candidate

    a, b = "Q7 keeps bones dense.", "Q7 helps vision in dim light."
    passages = [Passage(0, a), Passage(1, b)]
    one_way = {(a, b): NLIScores(0.05, 0.55, 0.4), (b, a): NLIScores(0.02, 0.08, 0.9)}
    for kind, expected in (("sentence", False), ("number", True)):
        frame = ClaimFrame("q", QueryForm.WH, a, (Candidate(a, kind, (0,), 1.0),), a)
        tags = tuple(PassageTag(p.id, Tag.SUPPORT, 0.9, 0.9, 0.05, 0.05, key_sentence=p.text)
                     for p in passages)  # fmt: skip
        detection = detect_pairs(
            "What does Q7 do?", passages, Tagging(frame, tags, "t"),
            Backends(FakeEmbedder(), FakeNLI(override=one_way), None),
        )  # fmt: skip
        pair = detection.pairs[0]
        assert pair.conflict is expected
        assert pair.conflict_prob == pytest.approx(0.4 if kind == "sentence" else 0.9)


class NLIFeaturePair(ScriptedPair):
    """A scripted pair model trained on the embeddings+NLI layout."""

    layout = NLI_LAYOUT

    def __init__(self, scores, route="two-stage"):
        super().__init__(scores)
        self.route = route
        self.config = {"embedder": "fake-embedder", "nli": "fake-nli", "layout": NLI_LAYOUT}


def test_nli_layout_adds_both_directions_of_every_pair_to_the_features():
    nli, pair = FakeNLI(), NLIFeaturePair(SCRIPT)
    cache = MemoryCache()
    backends = Backends(FakeEmbedder(), nli, pair)
    detect_pairs("How tall is Alpha?", PASSAGES, TAGGING, backends, cache=cache)
    first_call = nli.history[0]
    assert first_call[:2] == [
        (PASSAGES[0].text, PASSAGES[1].text),
        (PASSAGES[1].text, PASSAGES[0].text),
    ]
    assert len(first_call) == 6  # three pairs, two directions
    features = pair.history[0]
    assert features.shape == (3, 4 * FakeEmbedder().dim + 6)
    # FakeNLI: 5 vs 9 metres contradicts, so the i→j contradiction column is high
    assert features[0, -4] == pytest.approx(0.85) and features[1, -4] == pytest.approx(0.05)


def test_pair_model_refuses_nli_features_from_another_nli_model():
    from conflictdesk.errors import ModelIntegrityError

    pair = NLIFeaturePair(SCRIPT)
    pair.config["nli"] = "another-nli"
    with pytest.raises(ModelIntegrityError, match="NLI features"):
        detect_pairs("q", PASSAGES, TAGGING, Backends(FakeEmbedder(), FakeNLI(), pair))


def test_a_pair_model_below_its_baselines_settles_nothing_but_still_types():
    nli, pair = FakeNLI(), NLIFeaturePair(SCRIPT, route="stage2-only")
    detection = detect_pairs("q", PASSAGES, TAGGING, Backends(FakeEmbedder(), nli, pair))
    assert {p.stage for p in detection.pairs} == {"nli"}  # even the confident (0, 1) pair
    assert detection.method == (
        "stage1-off(scripted-pair below baselines; types from head 2)+nli:fake-nli"
    )
    # FakeNLI: 5 vs 9 metres contradicts; head 2's best conflict type for (0, 1) is factual,
    # for (1, 2) temporal
    verdicts = {(p.i, p.j): (p.conflict, p.pair_type) for p in detection.pairs}
    assert verdicts[(0, 1)] == (True, PairType.FACTUAL)
    assert verdicts[(1, 2)] == (True, PairType.TEMPORAL)


def test_nli_feature_inputs_are_clipped_to_one_window():
    from conflictdesk.analysis.pair_features import nli_inputs

    long_text = " ".join(f"w{i}" for i in range(NLI_WORDS + 30))
    (forward, backward) = nli_inputs(long_text, "short one")
    assert len(forward[0].split()) == NLI_WORDS and forward[1] == "short one"
    assert backward == (forward[1], forward[0])


def test_under_the_cascade_stage_one_features_come_from_its_first_tier():
    from conflictdesk.backends.cascade_nli import CascadeNLI
    from conflictdesk.errors import ModelIntegrityError

    fast, accurate = FakeNLI(), FakeNLI()
    accurate.model_id = "fake-accurate"
    cascade = CascadeNLI(fast, accurate, 1.01)  # every stage-2 pair goes to the second tier
    pair = ScriptedPair(SCRIPT)
    pair.config = {"embedder": "fake-embedder", "layout": NLI_LAYOUT, "nli": "fake-nli"}
    pair.layout = NLI_LAYOUT
    detection = detect_pairs(
        "How tall is Alpha?", PASSAGES, TAGGING, Backends(FakeEmbedder(), cascade, pair)
    )
    # stage 1 read the first tier alone; stage 2 (the cascade: both tiers) read only the pair
    # stage 1 left, (1, 2), in both directions; the settled pairs' NLI evidence (type-model
    # features) came from the first tier, not the slow one
    assert len(fast.history) == 3 and len(accurate.history) == 1
    assert ("Alpha is 5 metres tall.", "Alpha is 9 metres tall.") in fast.history[0]
    assert accurate.history[0] == [
        ("Alpha is 9 metres tall.", "Alpha stands 5 metres high."),
        ("Alpha stands 5 metres high.", "Alpha is 9 metres tall."),
    ]
    assert sorted(len(batch) for batch in fast.history[1:]) == [2, 4]
    assert all(len(p.nli) == 6 for p in detection.pairs)
    assert [p.stage for p in detection.pairs] == ["mlp", "mlp", "nli"]
    pair.config["nli"] = "fake-accurate"  # a pair model trained on the other tier is refused
    with pytest.raises(ModelIntegrityError, match="fake-accurate"):
        detect_pairs("q", PASSAGES, TAGGING, Backends(FakeEmbedder(), cascade, pair))


def test_statement_stances_come_from_the_labelling_cascade_the_model_was_trained_on():
    from conflictdesk.analysis.pair_features import STANCE_ONLY_LAYOUT
    from conflictdesk.backends.cascade_nli import CascadeNLI, model_family
    from tests.unit.test_pair_stance_features import StancePair

    passages = [Passage(0, "Bexa is safe."), Passage(1, "Bexa is not safe.")]
    tags = tuple(PassageTag(p.id, Tag.SUPPORT, 0.9, 0.9, 0.05, 0.05) for p in passages)
    tagging = Tagging(ClaimFrame("Is Bexa safe?", QueryForm.YES_NO, "Bexa is safe"), tags, "t")
    fast, accurate = FakeNLI(), FakeNLI()
    accurate.model_id = "fake-accurate@0123abcd"
    cascade = CascadeNLI(fast, accurate, 1.01)
    pair = StancePair()
    pair.config = {"layout": STANCE_ONLY_LAYOUT, "nli": "fake-nli"}
    pair.statement_stance, pair.statement_nli = "cascade", model_family(cascade.model_id)
    assert "@" not in pair.statement_nli
    # the analysis tags with the first tier; the statement stances go to the cascade
    detection = detect_pairs("Is Bexa safe?", passages, tagging,
                             Backends(FakeEmbedder(), fast, pair), statement_nli=cascade)  # fmt: skip
    assert accurate.history[0] == [(p.text, "Bexa is safe") for p in passages]
    assert "statement stances" not in detection.method
    # a configured NLI without that cascade: the first tier reads them, and `method` says so
    fast.history.clear()
    detection = detect_pairs("Is Bexa safe?", passages, tagging,
                             Backends(FakeEmbedder(), fast, pair), statement_nli=fast)  # fmt: skip
    assert fast.history[0] == [(p.text, "Bexa is safe") for p in passages]
    assert "statement stances read by fake-nli" in detection.method
    # a model trained on first-tier stances never reads the cascade
    pair.statement_stance = "first-tier"
    accurate.history.clear()
    detection = detect_pairs("Is Bexa safe?", passages, tagging,
                             Backends(FakeEmbedder(), fast, pair), statement_nli=cascade)  # fmt: skip
    assert not accurate.history and "statement stances" not in detection.method


def test_stances_the_tagger_already_read_with_the_same_model_are_not_read_again():
    from conflictdesk.analysis.pair_features import STANCE_ONLY_LAYOUT
    from conflictdesk.backends.cascade_nli import CascadeNLI, model_family
    from tests.unit.test_pair_stance_features import StancePair

    passages = [Passage(0, "Bexa is safe."), Passage(1, "Bexa is not safe."), Passage(2, "Hm.")]
    fast, accurate = FakeNLI(), FakeNLI()
    accurate.model_id = "fake-accurate"
    cascade = CascadeNLI(fast, accurate, 1.01)
    tags = (
        PassageTag(0, Tag.SUPPORT, 0.9, 0.9, 0.05, 0.05),
        PassageTag(1, Tag.REFUTE, 0.8, 0.1, 0.1, 0.8),
        PassageTag(2, Tag.IRRELEVANT, 0.9, 0.0, 0.0, 0.0, method="topicality"),  # not read
    )
    frame = ClaimFrame("Is Bexa safe?", QueryForm.YES_NO, "Bexa is safe")
    tagging = Tagging(frame, tags, f"nli:{cascade.model_id}")
    pair = StancePair()
    pair.config = {"layout": STANCE_ONLY_LAYOUT, "nli": "fake-nli"}
    pair.statement_stance, pair.statement_nli = "cascade", model_family(cascade.model_id)
    detect_pairs("Is Bexa safe?", passages, tagging, Backends(FakeEmbedder(), fast, pair),
                 statement_nli=cascade)  # fmt: skip
    # only the off-topic passage's stance is read; the two tagged ones come from their tags
    assert accurate.history == [[("Hm.", "Bexa is safe")]]
    (features,) = pair.history
    assert features[0, 3:9].tolist() == pytest.approx([0.9, 0.05, 0.05, 0.1, 0.1, 0.8])
