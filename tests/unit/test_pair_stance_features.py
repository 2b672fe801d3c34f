"""Stance features of the stage-1 pair detector: each passage read against an answer
statement built from the question, the same code in training and in `detect_pairs`."""

from __future__ import annotations

import numpy as np
import pytest

from conflictdesk.analysis.pair_features import (
    STANCE_DIM,
    STANCE_LAYOUT,
    STANCE_ONLY_LAYOUT,
    layout_features,
    stance_block,
    stance_request,
    swap_stance,
)
from conflictdesk.training import pair_eval
from conflictdesk.training.pairs import TextPair

YES, NO = [0.9, 0.05, 0.05], [0.05, 0.05, 0.9]


def test_yes_no_question_sides_read_its_declarative_form():
    r = stance_request("Is the Hollin bridge safe?", "It is safe.", "It is not.")
    assert r.form == "yes_no" and r.answers == (0, 0, 0)
    (_, h_i), (_, h_j) = r.inputs
    assert h_i == h_j and h_i == "The Hollin bridge is safe"


def test_declarative_query_is_its_own_statement():
    r = stance_request("Homework should be banned", "It harms sleep.", "It builds habits.")
    assert r.form == "claim" and [h for _, h in r.inputs] == ["Homework should be banned"] * 2


def test_wh_question_sides_read_the_other_sides_answer():
    q = "How tall is the Brell tower?"
    r = stance_request(
        q, "The Brell tower is 120 metres tall.", "The Brell tower is 95 metres tall."
    )
    assert r.form == "wh"
    (p_i, h_i), (_, h_j) = r.inputs
    assert "95 metres" in h_i and p_i.startswith("The Brell tower is 120")
    assert "120 metres" in h_j and h_j.startswith("The answer to the question")
    assert r.answers == (1.0, 0.0, 1.0)  # both answered, different numbers
    same = stance_request(q, "It is 120 metres tall.", "Its height: 120 metres tall, they say.")
    assert same.answers == (1.0, 1.0, 0.0)


def test_wh_side_without_an_answer_reads_the_question():
    q = "How tall is the Brell tower?"
    r = stance_request(q, "The Brell tower is 120 metres tall.", "Nobody knows much about it.")
    assert r.answers == (0.0, 0.0, 0.0)
    assert r.inputs[0][1] == q and "120 metres" in r.inputs[1][1]


def test_block_opposes_a_yes_and_a_no_and_agrees_on_two_yeses():
    requests = [stance_request("Is X big?", "a", "b")] * 2
    block = stance_block(requests, np.array([YES, NO, YES, YES]))
    assert block.shape == (2, STANCE_DIM) and block.dtype == np.float32
    opposed, agreed = block
    assert opposed[:3].tolist() == [0, 1, 0]  # yes/no form
    assert opposed[9] > 0.8 and opposed[10] < 0.1 and opposed[11] > 1.5
    assert agreed[9] < 0.1 and agreed[10] > 0.8 and agreed[11] < 0.01
    with pytest.raises(ValueError, match="NLI rows"):
        stance_block(requests, np.array([YES]))


def test_swapped_order_swaps_only_the_two_stances():
    requests = [stance_request("Is X big?", "a", "b")]
    block = stance_block(requests, np.array([YES, NO]))
    swapped = swap_stance(block)
    assert swapped[0, 3:6].tolist() == block[0, 6:9].tolist()
    assert swapped[0, 6:9].tolist() == block[0, 3:6].tolist()
    assert swapped[0, 9:].tolist() == block[0, 9:].tolist()
    again = stance_block([stance_request("Is X big?", "b", "a")], np.array([NO, YES]))
    assert np.allclose(again, swapped)


def test_layouts_put_the_stance_block_after_the_embedding_blocks():
    e = np.array([[1.0, 0.0]], dtype=np.float32)
    block = np.arange(STANCE_DIM, dtype=np.float32)[None, :]
    with_emb = layout_features(STANCE_LAYOUT, e, e, stance=block)
    assert with_emb.shape == (1, 8 + STANCE_DIM) and with_emb[0, 8:].tolist() == block[0].tolist()
    assert layout_features(STANCE_ONLY_LAYOUT, None, None, stance=block).shape == (1, STANCE_DIM)
    with pytest.raises(ValueError, match="stance block"):
        layout_features(STANCE_LAYOUT, e, e)


class ListNLI:
    """An NLI cache stand-in: contradiction when the hypothesis says 'not', else entailment."""

    def __init__(self):
        self.seen = []

    def scores(self, pairs):
        self.seen += list(pairs)
        return np.array([NO if "not" in p else YES for p, _ in pairs], dtype=np.float32)


def test_training_featurisation_reads_query_and_passage_of_each_side():
    data = [TextPair("Is X big?\nX is big.", "Is X big?\nX is not big.", 1, 1, "t", "q")]
    nli = ListNLI()
    x = pair_eval.featurise(None, nli, data, STANCE_ONLY_LAYOUT, both_orders=True)
    assert x.shape == (2, STANCE_DIM)
    assert nli.seen[0] == ("X is big.", "X is big") and nli.seen[1][0] == "X is not big."
    assert x[0, 9] > 0.8 and np.allclose(x[1], swap_stance(x[:1])[0])
    with pytest.raises(ValueError, match="needs NLI"):
        pair_eval.featurise(None, None, data, STANCE_ONLY_LAYOUT)


class StancePair:
    """A stance-only pair model: records its features; P(conflict) 0.85 for each pair, below
    its dev-chosen threshold 0.9."""

    model_id = "stance-pair"
    layout = STANCE_ONLY_LAYOUT
    threshold = 0.9

    def __init__(self):
        self.history = []

    def classify(self, features):
        from conflictdesk.types import PairScores

        self.history.append(features)
        return [PairScores(0.85, (0.02, 0.9, 0.05, 0.03)) for _ in features]


def test_detect_pairs_computes_the_same_stance_block_once_per_distinct_input():
    from conflictdesk.analysis.pairs import detect_pairs
    from conflictdesk.analysis.types import ClaimFrame, PassageTag, QueryForm, Tagging
    from conflictdesk.backends.base import Backends
    from conflictdesk.types import Passage, Tag
    from tests.fakes import FakeEmbedder, FakeNLI

    passages = [Passage(0, "Bexa is safe."), Passage(1, "Bexa is not safe."), Passage(2, "Safe.")]
    tags = tuple(PassageTag(p.id, Tag.SUPPORT, 0.9, 0.9, 0.05, 0.05) for p in passages)
    tagging = Tagging(ClaimFrame("Is Bexa safe?", QueryForm.YES_NO, "Bexa is safe"), tags, "t")
    nli, embedder, pair = FakeNLI(), FakeEmbedder(), StancePair()
    detection = detect_pairs("Is Bexa safe?", passages, tagging, Backends(embedder, nli, pair))
    (features,) = pair.history
    assert features.shape == (3, STANCE_DIM) and not embedder.history  # no embeddings needed
    assert nli.history[0] == [(p.text, "Bexa is safe") for p in passages]  # 3 distinct, not 6
    assert features[0, 9] > 0.7  # (0, 1): "safe" against "not safe" is opposed
    request = [stance_request("Is Bexa safe?", passages[0].text, passages[1].text)]
    expected = stance_block(request, np.array([[0.85, 0.1, 0.05], [0.05, 0.1, 0.85]]))
    assert np.allclose(features[0], expected[0])
    # confidence 0.85 ≥ τ_c 0.7 settles every pair in stage 1; 0.85 < threshold 0.9: no conflict
    assert [(p.stage, p.conflict) for p in detection.pairs] == [("mlp", False)] * 3


def test_feature_speed_scores_each_distinct_stance_input_once():
    from types import SimpleNamespace

    from conflictdesk.training.pair_detector import feature_speed

    calls = []
    nli = SimpleNamespace(classify=calls.append)
    side = "Is X big?\n"
    data = [
        TextPair(side + "X is big.", side + "X is small.", 1, 1, "t", "q"),
        TextPair(side + "X is big.", side + "X is huge.", 0, 0, "t", "q"),
    ]
    speed = feature_speed({"s": data}, nli, STANCE_ONLY_LAYOUT)
    assert speed["s"]["nli_calls"] == 3 and speed["s"]["pairs_per_s"] > 0
    assert len(calls) == 1 and len(calls[0]) == 3
    assert feature_speed({"s": data}, nli, "emb4") == {}


def test_statement_stances_go_to_their_reader_and_answer_claims_stay_with_the_first():
    from conflictdesk.analysis.pair_features import routed_inputs, stance_scores

    yes_no = stance_request("Is X big?", "X is big.", "X is not big.")
    wh = stance_request("How tall is X?", "X is 5 metres tall.", "X is 9 metres tall.")
    again = stance_request("Is X big?", "X is big.", "X is huge.")  # "X is big." read once
    first_calls, statement_calls = [], []

    def reader(calls, value):
        def read(batch):
            calls.append(list(batch))
            return np.tile(np.array(value, dtype=np.float32), (len(batch), 1))

        return read

    scores = stance_scores(
        [yes_no, wh, again], reader(first_calls, NO), reader(statement_calls, YES)
    )
    assert scores.shape == (6, 3)
    assert np.allclose(scores[[0, 1, 4, 5]], YES) and np.allclose(scores[[2, 3]], NO)
    assert statement_calls == [[("X is big.", "X is big"), ("X is not big.", "X is big"),
                                ("X is huge.", "X is big")]]  # fmt: skip
    assert first_calls == [list(wh.inputs)]
    # without a statement reader the first tier reads everything, each input once
    first_calls.clear()
    assert np.allclose(stance_scores([yes_no, wh, again], reader(first_calls, NO)), NO)
    assert len(first_calls) == 1 and len(first_calls[0]) == 5
    assert routed_inputs([yes_no, wh], split=False)[1] == []


def test_training_featurisation_reads_statements_with_the_statement_cache():
    data = [TextPair("Is X big?\nX is big.", "Is X big?\nX is not big.", 1, 1, "t", "q")]
    first, statements = ListNLI(), ListNLI()
    x = pair_eval.featurise(None, first, data, STANCE_ONLY_LAYOUT, statements=statements)
    assert x.shape == (1, STANCE_DIM) and not first.seen
    assert statements.seen == [("X is big.", "X is big"), ("X is not big.", "X is big")]
