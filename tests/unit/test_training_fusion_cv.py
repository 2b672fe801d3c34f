"""Choosing the fusion labeller's class weights and decision offsets by grouped
cross-validation, and the held-out diagnostics (ranking AUC, paired bootstrap)."""

from __future__ import annotations

import numpy as np
import pytest

from conflictdesk.evaluation.cases import RELATIONS, Case
from conflictdesk.scoring.fusion import decide, split_relations
from conflictdesk.training.fusion import CaseSet, predict_relations
from conflictdesk.training.fusion_cv import (
    OFFSETS,
    SPLIT_THRESHOLDS,
    bootstrap_difference,
    case_auc,
    choose_decision,
    choose_split,
    fold_of,
    rank_auc,
    threshold_ceiling,
)

S, C, I = (RELATIONS.index(r) for r in RELATIONS)


def case_set(n_cases: int) -> CaseSet:
    """Cases of three documents: one supporting, one contradicting (every other case), the
    rest irrelevant; the single feature is the gold relation id."""
    cases, labels, groups = [], [], []
    for index in range(n_cases):
        gold = ("SUPPORTS", "CONTRADICTS" if index % 2 else "IRRELEVANT", "IRRELEVANT")
        cases.append(Case("t", "Q?", f"claim {index}", "A", (), ("a", "b", "c"), gold, "train"))
        labels += [RELATIONS.index(g) for g in gold]
        groups += [index] * 3
    y = np.asarray(labels)
    return CaseSet("t", cases, y[:, None].astype(float), y, np.asarray(groups),
                   np.zeros(len(y), dtype=bool))  # fmt: skip


def shy_of_contradiction(x, y, class_weight):
    """A 'fit' whose model gives a true CONTRADICTS pair P(C)=0.4 < P(I)=0.6: the argmax
    misses every contradiction, an offset on C above log(1.5) ≈ 0.41 finds them all."""

    def predict(z):
        rows = {S: (0.8, 0.1, 0.1), C: (0.0, 0.4, 0.6), I: (0.05, 0.15, 0.8)}
        return np.asarray([rows[int(v)] for v in z[:, 0]])

    return predict


def test_choice_raises_the_contradiction_offset_the_out_of_fold_data_need():
    sets = [case_set(20), case_set(10)]
    choices = choose_decision(sets, shy_of_contradiction, decide)
    best = choices[0]
    assert best.offsets[C] - max(best.offsets[S], best.offsets[I]) > np.log(1.5)
    assert best.per_set == ((1.0, 1.0), (1.0, 1.0))  # every relation and verdict right
    plain = next(c for c in choices if c.offsets == (0.0, 0.0, 0.0))
    assert plain.per_set[0][0] == 0.0  # the argmax finds no conflict
    assert len(choices) == 3 * len(OFFSETS)


def test_folds_keep_a_case_together_and_use_every_fold():
    groups = np.repeat(np.arange(50), 4)
    fold = fold_of(groups)
    assert all(len(set(fold[groups == g])) == 1 for g in range(50))
    assert set(fold.tolist()) == {0, 1, 2, 3, 4}


def test_decision_offsets_change_the_relation_not_the_probabilities():
    p = np.array([[0.5, 0.3, 0.2]])
    assert decide(p, (0.0, 0.0, 0.0)).tolist() == [S]
    assert decide(p, (0.0, 1.0, 0.0)).tolist() == [C]
    rows = predict_relations(p, np.array([True]), np.array([0]), 1, (0.0, 1.0, 0.0))
    assert rows == [["IRRELEVANT"]]  # a gated pair stays IRRELEVANT whatever the offsets


def test_rank_auc():
    assert rank_auc([0.1, 0.2, 0.8, 0.9], [False, False, True, True]) == 1.0
    assert rank_auc([0.9, 0.8, 0.2, 0.1], [False, False, True, True]) == 0.0
    assert rank_auc([0.5, 0.5, 0.5], [True, False, False]) == pytest.approx(0.5)
    assert np.isnan(rank_auc([0.1, 0.2], [True, True]))


def test_case_auc_uses_the_largest_contradiction_of_each_case():
    cs = case_set(4)
    p = np.tile([0.2, 0.1, 0.7], (len(cs.y), 1))
    p[cs.y == C, 1] = 0.9  # the contradicting documents of the conflict cases stand out
    assert case_auc(p, cs) == 1.0
    cs.gate[cs.y == C] = True  # gated pairs do not count
    assert case_auc(p, cs) == pytest.approx(0.5)


def test_bootstrap_difference():
    gold = [True, False] * 20
    same = bootstrap_difference(gold, gold, gold, draws=200)
    assert same["difference"] == 0.0 and same["low"] == 0.0 and same["high"] == 0.0
    wrong = [not g for g in gold]
    better = bootstrap_difference(gold, gold, wrong, draws=200)
    assert better["difference"] == 1.0 and better["a_wins"] == 1.0 and better["low"] > 0.5


def test_encoder_separation_ranks_contradictions_against_irrelevant_pairs_only():
    from conflictdesk.scoring.fusion import FEATURES
    from conflictdesk.training.fusion import encoder_separation

    cs = case_set(6)
    x = np.zeros((len(cs.y), len(FEATURES)))
    x[:, FEATURES.index("doc_contra")] = np.where(cs.y == C, 0.9, 0.1)
    x[cs.y == S, FEATURES.index("doc_contra")] = 1.0  # supporting pairs are left out
    x[:, FEATURES.index("qa_contra")] = np.where(cs.y == C, 0.1, 0.9)
    cs.x = x
    separation = encoder_separation(cs)
    assert separation == {"doc_contra": 1.0, "qa_contra": 0.0}


def split_case_set(n_cases: int) -> CaseSet:
    """`case_set` with the encoder's columns first (it finds SUPPORTS, and calls every other
    pair CONTRADICTS), then a reading feature that is 1 for a gold CONTRADICTS pair."""
    base = case_set(n_cases)
    encoder = np.where(base.y[:, None] == S, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    reading = (base.y == C).astype(float)[:, None]
    x = np.hstack([encoder, reading])
    return CaseSet("t", base.cases, x, base.y, base.groups, base.gate)


def shy_contra(x, y):
    """A 'fit' whose P(CONTRADICTS | not SUPPORTS) is 0.35 for a true contradiction and 0.1
    otherwise: only a threshold at or below 0.35 finds them."""
    assert set(np.unique(y)) <= {0.0, 1.0}  # fitted on CONTRADICTS / IRRELEVANT pairs only
    return lambda z: np.where(z[:, 3] > 0.5, 0.35, 0.1)


def test_split_choice_takes_the_threshold_the_out_of_fold_data_need():
    sets = [split_case_set(20), split_case_set(10)]
    choices = choose_split(sets, shy_contra, split_relations)
    assert choices[0].threshold <= 0.35 and choices[0].threshold in SPLIT_THRESHOLDS
    assert choices[0].per_set == ((1.0, 1.0), (1.0, 1.0))
    high = next(c for c in choices if c.threshold == 0.5)
    assert high.per_set[0][0] == 0.0  # no contradiction found: no conflict
    assert len(choices) == len(SPLIT_THRESHOLDS)


def test_split_relations_keep_the_encoders_supports():
    x = np.array([[0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.2, 0.1, 0.7]])
    q = np.array([0.9, 0.2, 0.5])  # a high q cannot turn the encoder's SUPPORTS
    assert split_relations(x, q, 0.4).tolist() == [S, I, C]


def test_threshold_ceiling_is_the_best_conflict_f1_over_thresholds_on_the_set_itself():
    cases = case_set(4)  # cases 1 and 3 conflict
    supports = (cases.y == S).astype(float)[:, None]

    def split(x, q, threshold):
        return np.where(x[:, 0] == 1, S, np.where(q >= threshold, C, I))

    # the regression ranks case 1's contradiction first, then case 0's irrelevant pair, then
    # case 3's contradiction: no threshold separates the two conflicts from case 0
    q = np.zeros(len(cases.y))
    q[cases.groups * 3 + 1 == np.arange(len(q))] = [0.6, 0.9, 0.1, 0.5]
    best, threshold = threshold_ceiling(supports, q, cases, split)
    assert threshold == pytest.approx(0.5) and best == pytest.approx(0.8)  # 2 tp, 1 fp
    # a gated pair never counts, however high its output
    cases.gate[1] = True  # case 0's irrelevant pair with q 0.6
    best, threshold = threshold_ceiling(supports, q, cases, split)
    assert (best, threshold) == (pytest.approx(1.0), pytest.approx(0.5))
    # no case with a SUPPORTS pair: no threshold finds a conflict
    best, _ = threshold_ceiling(np.zeros_like(supports), q, cases, split)
    assert best == 0.0
