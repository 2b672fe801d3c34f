"""Public-provenance typed cases, cross-source weighting and the CONFLICTS prior shift."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np

from conflictdesk.analysis.typing_features import FEATURE_NAMES
from conflictdesk.training import type_public as tp
from conflictdesk.training.claims import ramdocs_half
from conflictdesk.training.type_transfer import (
    PAPER_PRIOR,
    Recipe,
    cross_source,
    held_out_public,
    prior_shift,
    row_weights,
    scores,
)
from conflictdesk.training.types import CaseRows
from conflictdesk.types import ConflictType


def _doc(kind: str, answer: str) -> dict:
    return {"text": f"A page that gives {answer}.", "type": kind, "answer": answer}


def test_ramdocs_type_reads_provenance_only():
    one = {"gold_answers": ["Paris"], "documents": [_doc("correct", "Paris"), _doc("noise", "")]}
    assert tp.ramdocs_type(one) == "no_conflict"
    planted = {**one, "documents": [*one["documents"], _doc("misinfo", "Lyon")]}
    assert tp.ramdocs_type(planted) == "misinformation"
    ambiguous = {
        "gold_answers": ["1993", "2012"],
        "documents": [_doc("correct", "1993"), _doc("correct", "2012")],
    }
    assert tp.ramdocs_type(ambiguous) == "complementary"
    # the same answer written two ways is one answer, not two
    same = {"gold_answers": ["3,559"], "documents": [_doc("correct", "3,559"),
                                                     _doc("correct", "3,559 people")]}  # fmt: skip
    assert tp.ramdocs_type(same) == "no_conflict"
    assert tp.ramdocs_type({"gold_answers": [], "documents": [_doc("noise", "")]}) is None


def _write_gz(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in rows)


def _tiny_root(tmp_path: Path) -> tuple[Path, list[str]]:
    persp = [
        {"question": "Claim one", "passage_a": f"Support {i}", "passage_b": f"Undermine {i}",
         "stance_a": "SUPPORT", "stance_b": "UNDERMINE", "claim_id": 1} for i in range(3)
    ]  # fmt: skip
    _write_gz(tmp_path / "perspectrum" / "pairs_train.jsonl.gz", persp)
    cqa = [
        {"question": "Is it so?", "passage_a": f"Yes text {i}", "passage_b": f"No text {i}",
         "answer_a": "It is so.", "answer_b": "It is not so."} for i in range(2)
    ]  # fmt: skip
    _write_gz(tmp_path / "conflictqa_strategyqa" / "pairs_train.jsonl.gz", cqa)
    questions = [f"Which city is number {i}?" for i in range(40)]
    train_q = [q for q in questions if ramdocs_half(q) == "train"]
    eval_q = [q for q in questions if ramdocs_half(q) == "eval"]
    rows = [{"question": q, "gold_answers": ["Paris"], "documents": [_doc("correct", "Paris")]}
            for q in train_q[:2] + eval_q[:2]]  # fmt: skip
    (tmp_path / "ramdocs").mkdir()
    (tmp_path / "ramdocs" / "dev.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    qacc = {"annotation_task_id": 7, "question": "When?", "contexts": ["Ctx A", "Ctx B"],
            "sources": ["a.org", "b.org"], "firstAnswer": "Monday", "firstContext": "['A']",
            "secondAnswerExist": "B"}  # fmt: skip
    (tmp_path / "qacc").mkdir()
    (tmp_path / "qacc" / "train.jsonl").write_text(json.dumps(qacc) + "\n")
    return tmp_path, eval_q[:2]


def test_public_cases_use_training_parts_only(tmp_path):
    root, eval_questions = _tiny_root(tmp_path)
    cases = tp.public_cases(root)
    kinds = {(tp.source_of(c.id), c.gold) for c in cases}
    assert ("perspectrum", ConflictType.CONFLICTING_OPINIONS) in kinds
    assert ("qacc", ConflictType.NO_CONFLICT) in kinds
    assert ("conflictqa", ConflictType.NO_CONFLICT) in kinds
    assert sum(tp.source_of(c.id) == "ramdocs" for c in cases) == 2
    assert not {c.query for c in cases} & set(eval_questions)  # RAMDocs EVAL half never read
    opinion = next(c for c in cases if c.gold is ConflictType.CONFLICTING_OPINIONS)
    texts = " ".join(p.text for p in opinion.passages)
    assert "Support" in texts and "Undermine" in texts  # both sides present
    assert tp.public_cases(root) == cases  # stable choice
    assert tp.source_of("d-outdated-3") == "typed_dev"


def test_qacc_cases_type_by_the_annotated_answers(tmp_path):
    base = {"contexts": ["Ctx A", "Ctx B", "Ctx C"], "sources": ["a.org", "b.org", "c.org"]}
    records = [
        {**base, "annotation_task_id": 1, "question": "Who one?", "firstAnswer": "Ann",
         "firstContext": "['A', 'B']", "secondAnswerExist": "B"},
        {**base, "annotation_task_id": 2, "question": "Who two?", "firstAnswer": "Ann",
         "firstContext": "['A']", "secondAnswerExist": "A", "secondAnswer": "Bo",
         "secondContext": "['C']"},
        # a second answer no context supports: no provenance for a type, left out
        {**base, "annotation_task_id": 3, "question": "Who three?", "firstAnswer": "Ann",
         "firstContext": "['A']", "secondAnswerExist": "A", "secondAnswer": "Bo",
         "secondContext": "[]"},
        # the "second" answer is the first one again: one answer, but flagged, left out
        {**base, "annotation_task_id": 4, "question": "Who four?", "firstAnswer": "Ann",
         "firstContext": "['A']", "secondAnswerExist": "A", "secondAnswer": "ann",
         "secondContext": "['B']"},
    ]  # fmt: skip
    (tmp_path / "qacc").mkdir()
    (tmp_path / "qacc" / "train.jsonl").write_text("\n".join(json.dumps(r) for r in records))
    typed = {c.query: c.gold for c in tp.qacc_cases(tmp_path, 10)}
    assert typed == {"Who one?": ConflictType.NO_CONFLICT, "Who two?": ConflictType.COMPLEMENTARY}
    assert len(tp.qacc_cases(tmp_path, 0)) == 0  # the limit is per type


def test_row_weights_equal_per_type_and_source():
    y = np.array([0, 0, 0, 1, 1, 2])
    sources = ["a", "a", "b", "a", "a", "b"]
    w = row_weights(y, sources)
    assert math.isclose(w.sum(), len(y))
    totals = [w[y == t].sum() for t in (0, 1, 2)]
    assert np.allclose(totals, totals[0])
    assert math.isclose(w[0] + w[1], w[2])  # type 0: source a and source b weigh the same


def test_a_full_typed_dev_share_leaves_the_public_rows_no_weight():
    y = np.array([0, 0, 1, 1, 2])
    sources = ["typed_dev", "ramdocs", "typed_dev", "qacc", "ramdocs"]
    w = row_weights(y, sources, typed_dev_share=1.0)
    assert w[1] == 0.0 and w[3] == 0.0  # types typed_dev gives: public rows weigh nothing
    assert w[4] > 0.0  # a type only a public source gives keeps its weight
    half = row_weights(y, sources, typed_dev_share=0.5)
    assert math.isclose(half[0], half[1]) and math.isclose(half[2], half[3])


def test_prior_shift_follows_paper_table2():
    assert np.allclose(PAPER_PRIOR, np.array([161, 115, 115, 62, 5]) / 458)
    trained = np.array([0, 1, 2, 3, 4])
    shift = prior_shift(1.0, trained)
    assert math.isclose(shift[0], math.log((161 / 458) / 0.2))
    assert shift[4] < -2.5 < shift[3] < 0 < shift[0]
    assert np.allclose(prior_shift(0.0, trained), 0.0)
    missing = prior_shift(1.0, np.array([0, 1, 2, 4]))
    assert missing[3] == 0.0 and math.isclose(missing[0], math.log((161 / 458) / 0.25))


def test_scores_majority_and_paper_weighting():
    gold = np.array([0, 0, 0, 1])
    pred = np.array([0, 0, 1, 1])
    figures = scores(gold, pred)
    assert figures["majority"] == {"type": "no_conflict", "accuracy": 0.75}
    assert math.isclose(figures["balanced"], (2 / 3 + 1) / 2)
    expected = (161 * 2 / 3 + 115 * 1) / (161 + 115)
    assert math.isclose(figures["paper_weighted"], expected)


def _rows(prefix: str, n: int, shift: float) -> CaseRows:
    rng = np.random.default_rng(len(prefix))
    y = np.arange(n) % 5
    x = rng.normal(size=(n, len(FEATURE_NAMES))) * 0.1
    x[np.arange(n), y] += 1.0 + shift  # features 0-4 carry the type in both sources
    return CaseRows(tuple(f"{prefix}{i}" for i in range(n)), x, y, y.copy())


def test_cross_source_learns_a_shared_signal():
    dev, pub = _rows("d-x-", 50, 0.0), _rows("pub-ramdocs-", 50, 0.05)
    figures = cross_source(dev, pub, Recipe("measured", 1.0, True))
    assert figures["public->typed_dev"]["accuracy"] > 0.9
    assert figures["typed_dev->public"]["balanced"] > 0.9


def test_held_out_public_never_scores_a_source_it_trained_on():
    # typed_dev and the ramdocs rows carry the type in features 0-4; the qacc rows carry it
    # in features 5-9 only: trained on, qacc would be easy; held out, it is not
    dev, pub = _rows("d-x-", 50, 0.0), _rows("pub-ramdocs-", 50, 0.0)
    other = _rows("pub-qacc-", 50, 0.0)
    other.x[:, :5] = 0.0
    other.x[np.arange(50), 5 + other.y] = 1.0
    both = CaseRows(pub.ids + other.ids, np.vstack([pub.x, other.x]),
                    np.concatenate([pub.y, other.y]), np.concatenate([pub.y, other.y]))  # fmt: skip
    held = held_out_public(dev, both, Recipe("measured", 1.0, True, 0.5))
    assert held["cases"] == 100
    assert held["accuracy"] >= 0.45  # the ramdocs half, learnt from typed_dev's rows
    assert held["accuracy"] < 0.8  # the qacc half fails when it is left out


def _choose_with(monkeypatch, new: np.ndarray, old: np.ndarray):
    from conflictdesk.training import type_transfer_report as report

    candidate, shipped = Recipe("compact+sides", 30.0, True), Recipe("compact", 10.0, True)
    side = {"balanced": 1.0, "accuracy": 1.0, "majority": {"accuracy": 0.2}}
    cross = {"public->typed_dev": side, "typed_dev->public": side}
    better = {"held_out": side, "cross": cross}
    monkeypatch.setattr(report, "rank_recipes", lambda d, p: ([candidate], {candidate: better}))
    monkeypatch.setattr(
        report, "cross_source", lambda d, p, r: {k: {"balanced": 0.5} for k in cross}
    )
    monkeypatch.setattr(report, "held_out_public", lambda d, p, r: {"balanced": 0.5})
    monkeypatch.setattr(report, "_correct", lambda d, p, r, s: new if r == candidate else old)
    return report.choose_recipe(None, None, shipped, seeds=(0,))[0], candidate


def test_a_recipe_that_only_ties_the_shipped_one_on_typed_dev_cv_does_not_ship(monkeypatch):
    # the same per-case accuracies (thirds: 3 seeds) in another order: a tie whose float
    # mean comes out at +1e-17, as compact+support against compact did on 2026-11-24
    rng = np.random.default_rng(0)
    for _ in range(3):
        old = rng.integers(0, 4, size=20) / 3
        new = rng.permutation(old)
    assert (new - old).mean() > 0
    chosen, _ = _choose_with(monkeypatch, new, old)
    assert chosen is None


def test_the_recipe_a_new_model_must_beat_is_the_shipped_models():
    import json

    from conflictdesk.backends.manifest import models_dir
    from conflictdesk.training.type_transfer import RECIPE_SETS
    from conflictdesk.training.type_transfer_report import SHIPPED

    shipped = json.loads((models_dir() / "types" / "type_model.json").read_text("utf-8"))
    assert list(RECIPE_SETS[SHIPPED.features]) == shipped["feature_names"]


def test_a_typed_dev_gain_within_its_standard_error_does_not_ship(monkeypatch):
    old = np.array([1.0, 0.0] * 50)
    new = old.copy()
    new[[1, 3, 5]] = 1.0  # three cases gained, two lost: +0.01, standard error 0.022
    new[[0, 2]] = 0.0
    chosen, _ = _choose_with(monkeypatch, new, old)
    assert chosen is None


def test_a_typed_dev_gain_beyond_its_standard_error_ships(monkeypatch):
    old = np.array([1.0, 0.0] * 50)
    new = old.copy()
    new[[1, 3, 5, 7, 9, 11, 13, 15]] = 1.0  # eight cases gained, none lost
    chosen, candidate = _choose_with(monkeypatch, new, old)
    assert chosen == candidate


def test_snippet_check_scores_each_model_beside_the_majority_class():
    from conflictdesk.analysis.type_model import TypeModel
    from conflictdesk.training.type_transfer_report import snippet_check
    from conflictdesk.training.types import TYPE_ORDER

    n = len(FEATURE_NAMES)
    column = FEATURE_NAMES.index("yes_no")
    weights = np.zeros((1, len(TYPE_ORDER)))
    weights[0, TYPE_ORDER.index(ConflictType.COMPLEMENTARY)] = 5.0  # yes_no -> complementary
    model = TypeModel("t", ("yes_no",), TYPE_ORDER, np.zeros(1), np.ones(1), weights,
                      np.zeros(len(TYPE_ORDER)), 0.3)  # fmt: skip
    x = np.zeros((4, n))
    x[:2, column] = 1.0  # the first two rows read as complementary, the rest as no_conflict
    gold = np.array([TYPE_ORDER.index(ConflictType.COMPLEMENTARY)] + [0] * 3)
    rows = CaseRows(("a", "b", "c", "d"), x, gold, gold)
    check = snippet_check(rows, {"m": model})["m"]
    assert check["accuracy"] == 0.75
    assert check["per_type"]["complementary"] == 1.0
    assert check["majority"] == {"type": "no_conflict", "accuracy": 0.75}
