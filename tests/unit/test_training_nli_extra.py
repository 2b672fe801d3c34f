"""Loaders of the newer NLI sets and the mix of a continued fine-tune: which file trains,
which is held out, label mapping, caps; the held-out score groups."""

from __future__ import annotations

import gzip
import json
from argparse import Namespace

import numpy as np
import pytest

from conflictdesk.training import nli_extra, nli_recipe, nli_train


def write_rows(path, rows) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("\n".join(json.dumps(r) for r in rows))


def row(premise: str, hypothesis: str, label: str) -> dict:
    return {"premise": premise, "hypothesis": hypothesis, "label": label, "id": premise}


@pytest.fixture
def data_root(tmp_path):
    write_rows(
        tmp_path / "fm2" / "test.jsonl.gz",
        [row("P1", "H1", "entailment"), row("P2", "H2", "contradiction"), row("P3", "", "neutral")],
    )
    write_rows(tmp_path / "fm2" / "dev.jsonl.gz", [row("D1", "G1", "contradiction")])
    claims = [f"Claim number {i} about a topic." for i in range(200)]
    write_rows(tmp_path / "fever_rte" / "dev.jsonl.gz", [row("E", c, "entailment") for c in claims])
    write_rows(tmp_path / "wice" / "train_partial.jsonl.gz", [row("W1", "V1", "neutral")])
    write_rows(tmp_path / "wice" / "test.jsonl.gz", [row("W2", "V2", "entailment")])
    write_rows(tmp_path / "wice" / "dev.jsonl.gz", [row("W3", "V3", "neutral")])
    return tmp_path


def test_training_and_heldout_files_are_separate_and_labels_mapped(data_root):
    train = nli_extra.load_extra("fm2", "train", root=data_root)
    held = nli_extra.load_extra("fm2", "heldout", root=data_root)
    assert [(r.premise, r.label) for r in train] == [("P1", 0), ("P2", 2)]  # empty text dropped
    assert [(r.premise, r.label, r.source) for r in held] == [("D1", 2, "fm2/heldout")]
    wice = nli_extra.load_extra("wice", "train", root=data_root)
    assert [(r.premise, r.label) for r in wice] == [("W1", 1), ("W2", 0)]


def test_fever_hash_split_is_disjoint_complete_and_about_ten_percent(data_root):
    train = nli_extra.load_extra("fever", "train", root=data_root)
    held = nli_extra.load_extra("fever", "heldout", root=data_root)
    assert not {r.hypothesis for r in train} & {r.hypothesis for r in held}
    assert len(train) + len(held) == 200
    assert 5 <= len(held) <= 40
    assert all(nli_extra.claim_held_out(r.hypothesis) for r in held)


def test_unknown_side_is_refused(data_root):
    with pytest.raises(ValueError):
        nli_extra.load_extra("fm2", "dev", root=data_root)


def test_every_extra_set_holds_out_files_it_does_not_train_on():
    for name, (train_files, held_files) in nli_extra.EXTRA_SETS.items():
        if name not in nli_extra.HASH_SPLIT:
            assert not set(train_files) & set(held_files), name


def test_parse_extra_caps_and_refuses_unknown_sets():
    assert nli_recipe.parse_extra("conflictqa=12000, fever=0,fm2") == {
        "conflictqa": 12000,
        "fever": 0,
        "fm2": 0,
    }
    with pytest.raises(ValueError, match="unknown extra set"):
        nli_recipe.parse_extra("mnli=10")


def test_extra_rows_caps_training_rows_and_samples_heldout(data_root, monkeypatch):
    monkeypatch.setenv("CONFLICTDESK_DATA", str(data_root))
    rows = nli_recipe.extra_rows("fever=50,fm2=0", held_per_set=3, seed=1)
    assert rows.counts == {"fever_train": 50, "fm2_train": 2}
    assert len([r for r in rows.held if r.source == "fever/heldout"]) == 3
    again = nli_recipe.extra_rows("fever=50,fm2=0", held_per_set=3, seed=1)
    assert [r.hypothesis for r in again.train] == [r.hypothesis for r in rows.train]


def test_heldout_groups_and_score():
    sources = ["cad_snli/dev_original", nli_recipe.QACC_CALIB_SOURCE, "fm2/heldout", "fm2/train"]
    groups = np.array([nli_train.heldout_group(s) for s in sources])
    assert list(groups) == ["nli", "indomain", "extra", "nli"]
    scores = nli_train.heldout_scores(np.array([0, 1, 2, 0]), np.array([0, 1, 0, 1]), groups)
    assert scores == {"acc_nli": 0.5, "acc_indomain": 1.0, "acc_extra": 0.0, "score": 0.5}


def test_batches_cover_every_row_once_and_are_deterministic():
    lengths = [5, 3, 9, 1, 7, 2, 8]
    plan = nli_train.batches(lengths, batch_size=3, seed=4)
    assert sorted(i for batch in plan for i in batch) == list(range(7))
    assert plan == nli_train.batches(lengths, batch_size=3, seed=4)


def test_replay_keeps_a_fixed_sample_of_the_original_rows(monkeypatch):
    base = [nli_recipe.nli_data.NLIExample(f"p{i}", "h", 0, "pool") for i in range(10)]
    monkeypatch.setattr(nli_recipe, "_original_parts", lambda args: (base, [], [], {}))
    args = Namespace(seed=3, replay=4)
    rows = nli_recipe.original_rows(args)
    assert len(rows.train) == 4 and set(rows.train) <= set(base)
    assert rows.train == nli_recipe.original_rows(args).train


def test_compare_accuracy_reads_med_as_binary():
    from conflictdesk.training import nli_compare
    from conflictdesk.types import NLIScores

    scores = [NLIScores(0.1, 0.2, 0.7), NLIScores(0.8, 0.1, 0.1)]
    assert nli_compare._accuracy("snli/dev", [1, 0], scores) == 0.5
    assert nli_compare._accuracy("med/test", [1, 0], scores) == 1.0  # not-entailed either way
