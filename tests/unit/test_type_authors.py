"""Typed cases by author: the written training cases and the leave-one-author-out check."""

from __future__ import annotations

from collections import Counter

import numpy as np

from conflictdesk.analysis.typing_features import FEATURE_NAMES
from conflictdesk.training.type_authors import (
    author_of,
    is_rewording,
    join_rows,
    leave_one_author_out,
    paraphrased_cases,
    written_cases,
)
from conflictdesk.training.type_transfer import Recipe, row_weights, sources_of
from conflictdesk.training.types import TYPE_ORDER, CaseRows
from conflictdesk.types import ConflictType


def test_author_of_reads_the_writing_session():
    assert author_of("w3-outdated-2") == "written-3"
    assert author_of("w16-misinformation-1") == "written-16"
    assert author_of("d-outdated-2") == "typed_dev"
    assert author_of("what-1") == "typed_dev"  # "w" without a number is no written author


def test_written_cases_are_balanced_and_by_sixteen_authors():
    cases = written_cases()
    assert len(cases) == 160
    assert len({c.id for c in cases}) == 160
    assert Counter(c.gold for c in cases) == {kind: 32 for kind in ConflictType}
    authors = Counter(author_of(c.id) for c in cases)
    assert len(authors) == 16 and set(authors.values()) == {10}
    assert all(2 <= len(c.passages) <= 9 for c in cases)


def test_written_rows_weigh_as_typed_rows():
    """The written cases join typed_dev's group in the row weights (not the public sources'),
    so at typed share 1 they keep their weight."""
    ids = ["d-a-1", "w1-a-1", "pub-qacc-1"]
    y = np.array([0, 0, 0])
    weights = row_weights(y, sources_of(CaseRows(ids, np.zeros((3, 1)), y, [""] * 3)), 1.0)
    assert weights[0] == weights[1] > 0 and weights[2] == 0


def _rows(ids: list[str], x: np.ndarray, y: np.ndarray) -> CaseRows:
    return CaseRows(ids, x, y, [""] * len(ids))


def test_leave_one_author_out_never_sees_the_authors_cases():
    """Each author marks its types by its own feature, and the other authors' features the
    opposite way: a model that saw the author reads the author's mark; one that never saw it
    learns only the others' habit and gets the author's cases wrong."""
    rng = np.random.default_rng(0)
    n_feat = len(FEATURE_NAMES)
    recipe = Recipe("compact", 1.0, True, 1.0)
    cols = recipe.columns()
    ids, xs, ys = [], [], []
    for a, prefix in enumerate(["d", "w1", "w2"]):
        for k in range(20):
            y = k % 2
            x = rng.normal(0, 0.01, n_feat)
            sign = 1.0 if y else -1.0
            x[cols[:3]] = -sign  # the other authors' habit, reversed here
            x[cols[a]] = sign  # this author's own mark
            ids.append(f"{prefix}-t-{k}")
            xs.append(x)
            ys.append(y)
    typed = _rows(ids, np.array(xs), np.array(ys))
    pub = _rows(["pub-qacc-0", "pub-qacc-1"], rng.normal(0, 0.01, (2, n_feat)), np.array([0, 1]))
    out = leave_one_author_out(typed, pub, recipe)
    assert out["all"]["cases"] == 60
    assert out["all"]["accuracy"] < 0.25  # no author's own mark carries over
    # the same rows with one signal shared by every author carry over perfectly
    shared = typed.x.copy()
    shared[:, cols[:3]] = 0.0
    shared[:, cols[3]] = np.where(typed.y == 1, 1.0, -1.0)
    carried = leave_one_author_out(_rows(ids, shared, typed.y), pub, recipe)
    assert carried["all"]["accuracy"] == 1.0
    assert carried["typed_dev"]["cases"] == 20 and carried["written"]["cases"] == 40
    assert len(carried["correct"]) == 60


def test_join_rows_keeps_order():
    a = _rows(["d-1"], np.ones((1, 2)), np.array([1]))
    b = _rows(["w1-1", "w1-2"], np.zeros((2, 2)), np.array([0, 2]))
    joined = join_rows(a, b)
    assert joined.ids == ["d-1", "w1-1", "w1-2"]
    assert joined.y.tolist() == [1, 0, 2] and joined.x.shape == (3, 2)
    assert TYPE_ORDER[0] is ConflictType.NO_CONFLICT


def _choose_by_authors(monkeypatch, new: np.ndarray, old: np.ndarray, held_new: float):
    from conflictdesk.training import type_transfer_report as report

    candidate, shipped = Recipe("compact+sides", 30.0, True), Recipe("compact", 10.0, True)
    side = {"balanced": 0.5, "accuracy": 0.5, "majority": {"accuracy": 0.2}}
    cross = {"public->typed_dev": side, "typed_dev->public": side}

    def figures(correct: np.ndarray, held: float) -> dict:
        return {"authors": {"all": {"accuracy": float(correct.mean())}, "correct": correct},
                "held_out": {"balanced": held}, "cross": cross}  # fmt: skip

    grid = {candidate: figures(new, held_new), shipped: figures(old, 0.5)}
    monkeypatch.setattr(report, "rank_recipes", lambda *a, **k: ([candidate, shipped], grid))
    monkeypatch.setattr(
        report, "leave_one_author_out", lambda t, p, r: {"correct": grid[r]["authors"]["correct"]}
    )
    return report.choose_by_authors(None, None, None, None, shipped)[0], candidate


def test_an_unseen_author_gain_beyond_its_standard_error_ships(monkeypatch):
    old = np.array([1.0, 0.0] * 50)
    new = old.copy()
    new[1::2][:20] = 1.0  # twenty cases gained: +0.20
    chosen, candidate = _choose_by_authors(monkeypatch, new, old, held_new=0.5)
    assert chosen == candidate


def test_an_unseen_author_gain_lost_on_the_held_out_sources_does_not_ship(monkeypatch):
    """The criterion averages unseen authors with the held-out public sources: a recipe that
    gains on hand-written cases but loses more on real sources stays out."""
    old = np.array([1.0, 0.0] * 50)
    new = old.copy()
    new[1::2][:10] = 1.0  # +0.10 on the authors
    chosen, _ = _choose_by_authors(monkeypatch, new, old, held_new=0.2)  # −0.15 on the sources
    assert chosen is None


def test_an_unseen_author_gain_within_noise_does_not_ship(monkeypatch):
    old = np.array([1.0, 0.0] * 50)
    new = old.copy()
    new[[1, 3, 5]] = 1.0
    new[[0, 2]] = 0.0  # +0.01, standard error 0.022
    chosen, _ = _choose_by_authors(monkeypatch, new, old, held_new=0.5)
    assert chosen is None


def test_every_written_case_has_two_other_wordings_of_its_question():
    cases = written_cases()
    reworded = paraphrased_cases(cases)
    assert len(reworded) == 2 * len(cases)
    by_id = {c.id: c for c in cases}
    for case in reworded:
        original = by_id[case.id.split("~")[0]]
        assert is_rewording(case.id) and author_of(case.id) == author_of(original.id)
        assert case.query.strip() and case.query != original.query
        assert case.passages == original.passages and case.gold is original.gold


def _author_rows(marks: dict[str, float], reworded: dict[str, float] | None = None):
    """Two written authors and typed_dev, ten cases each of two types; each row's first
    compact feature is the author's mark (sign by type), the rewordings' by their own."""
    recipe = Recipe("compact", 1.0, True, 1.0)
    col = recipe.columns()[0]
    ids, xs, ys = [], [], []
    for prefix, mark in marks.items():
        for k in range(10):
            for suffix, m in [("", mark)] + [
                (f"~{j}", reworded[prefix]) for j in (1, 2) if reworded
            ]:
                x = np.zeros(len(FEATURE_NAMES))
                x[col] = m * (1 if k % 2 else -1)
                ids.append(f"{prefix}-t-{k}{suffix}")
                xs.append(x)
                ys.append(k % 2)
    pub = _rows(["pub-qacc-0"], np.zeros((1, len(FEATURE_NAMES))), np.array([0]))
    return _rows(ids, np.array(xs), np.array(ys)), pub, recipe


def test_rewordings_train_the_other_authors_models_but_are_not_scored_as_cases():
    """The rewordings carry the sign every author shares; the written cases of the held-out
    author carry it too, while the other authors' written cases carry the opposite one: only
    a model trained on the rewordings gets the held-out author right."""
    typed, pub, recipe = _author_rows(
        {"d": 1.0, "w1": -1.0, "w2": -1.0}, reworded={"d": 1.0, "w1": 1.0, "w2": 1.0}
    )
    with_ = leave_one_author_out(typed, pub, recipe)
    without = leave_one_author_out(typed, pub, recipe, train_rewordings=False)
    assert with_["all"]["cases"] == without["all"]["cases"] == 30  # the cases as written
    assert len(with_["correct"]) == 30
    assert with_["typed_dev"]["accuracy"] == 1.0
    assert without["typed_dev"]["accuracy"] == 0.0
    assert with_["wordings"]["reworded"] == 60 and with_["wordings"]["cases"] == 30


def test_one_type_across_wordings_counts_cases_whose_wordings_agree():
    # the rewordings carry the opposite mark: every case's wordings disagree
    typed, pub, recipe = _author_rows(
        {"d": 1.0, "w1": 1.0, "w2": 1.0}, reworded={"d": -1.0, "w1": -1.0, "w2": -1.0}
    )
    out = leave_one_author_out(typed, pub, recipe, train_rewordings=False)
    assert out["wordings"]["accuracy_as_written"] == 1.0
    assert out["wordings"]["accuracy_reworded"] == 0.0
    assert out["wordings"]["one_type"] == 0.0


def test_rewording_gain_says_when_the_rewordings_help_unseen_authors():
    from conflictdesk.training.type_transfer_report import rewording_gain

    # the written cases carry no signal as written, their rewordings the one typed_dev has:
    # only a model trained on the rewordings reads typed_dev's cases
    typed, _, recipe = _author_rows(
        {"d": 1.0, "w1": 0.0, "w2": 0.0}, reworded={"d": 1.0, "w1": 1.0, "w2": 1.0}
    )
    pick = lambda test: _rows(
        [i for i in typed.ids if test(i)],
        typed.x[[test(i) for i in typed.ids]],
        typed.y[[test(i) for i in typed.ids]],
    )
    dev = pick(lambda i: i.startswith("d-"))
    written = pick(lambda i: i.startswith("w") and not is_rewording(i))
    reworded = pick(is_rewording)
    rng = np.random.default_rng(1)
    pub = _rows(
        [f"pub-qacc-{k}" for k in range(4)] + [f"pub-perspectrum-{k}" for k in range(4)],
        rng.normal(0, 0.01, (8, len(FEATURE_NAMES))),
        np.array([0, 1] * 4),
    )
    gain = rewording_gain(dev, pub, written, reworded, recipe)
    assert gain["with"]["authors"]["typed_dev"]["accuracy"] == 1.0
    assert gain["without"]["authors"]["typed_dev"]["accuracy"] <= 0.5
    assert gain["paired"]["mean"] > 0
    assert gain["with"]["author_score"] > gain["without"]["author_score"]
    assert gain["gains"]  # beyond the paired standard error and on the criterion
