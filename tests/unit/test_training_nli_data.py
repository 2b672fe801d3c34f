"""NLI pool loading: evaluation splits never reach training; the training package stays free
of torch at import time."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from conflictdesk.errors import UsageError
from conflictdesk.training import nli_data


@pytest.mark.parametrize("split", nli_data.EVAL_SPLITS + ("anli/dev_r3", "cad_snli/test_original"))
def test_evaluation_splits_are_refused(split):
    with pytest.raises(ValueError):
        nli_data.check_trainable(split)


def test_train_and_heldout_lists_hold_no_evaluation_split():
    for split in nli_data.TRAIN_SPLITS + nli_data.HELDOUT_SPLITS:
        nli_data.check_trainable(split)
    assert not set(nli_data.TRAIN_SPLITS) & set(nli_data.HELDOUT_SPLITS)


def test_read_split_maps_labels_and_skips_bad_rows(tmp_path):
    folder = tmp_path / "nli" / "toy"
    folder.mkdir(parents=True)
    rows = [
        {"premise": "A", "hypothesis": "B", "label": "contradiction"},
        {"premise": "C", "hypothesis": "D", "label": "-"},
        {"premise": "", "hypothesis": "D", "label": "neutral"},
        {"premise": "E", "hypothesis": "F", "label": "entailment"},
    ]
    with gzip.open(folder / "train.jsonl.gz", "wt") as handle:
        handle.write("\n".join(json.dumps(r) for r in rows))
    got = nli_data.load_pool(["toy/train"], root=tmp_path)
    assert [(r.premise, r.label) for r in got] == [("A", 2), ("E", 0)]
    swapped = list(nli_data.swap_contradictions(got))
    assert [(s.premise, s.hypothesis) for s in swapped] == [("B", "A")]


def test_majority_accuracy():
    assert nli_data.majority_accuracy([0, 0, 1, 2]) == 0.5
    assert nli_data.majority_accuracy([]) == 0.0


def test_training_package_does_not_import_torch():
    code = (
        "import sys; import conflictdesk.training.claims, conflictdesk.training.perturb, "
        "conflictdesk.training.pairs, conflictdesk.training.features; "
        "print('torch' in sys.modules or 'transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_metrics():
    from conflictdesk.training import metrics

    gold = ["a", "a", "b", "c"]
    pred = ["a", "b", "b", "b"]
    assert metrics.accuracy(gold, pred) == 0.5
    assert metrics.f1_for(gold, pred, "a") == pytest.approx(2 / 3)
    assert metrics.f1_for(gold, pred, "b") == pytest.approx(0.5)
    assert metrics.macro_f1(gold, pred, ["a", "b", "c"]) == pytest.approx((2 / 3 + 0.5) / 3)
    assert metrics.confusion(gold, pred)["a->b"] == 1
    assert metrics.majority(gold) == "a"
    with pytest.raises(ValueError):
        metrics.accuracy(gold, pred[:2])


def test_data_root_is_the_data_dir_setting(monkeypatch, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f'data_dir = "{tmp_path / "from-file"}"\n', encoding="utf-8")
    monkeypatch.setenv("CONFLICTDESK_CONFIG", str(config))
    monkeypatch.delenv("CONFLICTDESK_DATA", raising=False)
    assert nli_data.data_root() == tmp_path / "from-file"
    monkeypatch.setenv("CONFLICTDESK_DATA", str(tmp_path / "from-env"))
    assert nli_data.data_root() == tmp_path / "from-env"


def test_data_root_without_a_setting_says_how_to_set_one(monkeypatch, tmp_path):
    monkeypatch.setenv("CONFLICTDESK_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.delenv("CONFLICTDESK_DATA", raising=False)
    with pytest.raises(UsageError, match="CONFLICTDESK_DATA"):
        nli_data.data_root()


def test_a_training_deadline_past_midnight_is_tomorrows():
    import datetime

    from conflictdesk.training.nli_train import deadline_at

    now = datetime.datetime(2026, 11, 24, 23, 20).timestamp()
    assert deadline_at("00:40", now) - now == 80 * 60
    assert deadline_at("23:50", now) - now == 30 * 60
    assert deadline_at("23:20", now) - now == 24 * 3600  # the minute just begun has passed


def test_in_domain_rows_keep_their_gold_labels():
    import numpy as np

    from conflictdesk.training.nli_data import NLIExample
    from conflictdesk.training.nli_distil import gold_where_in_domain

    rows = [NLIExample("p", "h", 2, "ramdocs_train"), NLIExample("p", "h", 0, "snli/train"),
            NLIExample("p", "h", 1, "qacc_train")]  # fmt: skip
    soft = np.full((3, 3), 1 / 3, dtype=np.float32)
    out = gold_where_in_domain(soft, rows)
    assert out[0].tolist() == [0, 0, 1] and out[2].tolist() == [0, 1, 0]
    assert np.allclose(out[1], 1 / 3) and np.allclose(soft, 1 / 3)  # the input is untouched


def test_a_distilled_models_rebuild_command_is_its_own_run():
    from conflictdesk.training.nli_distil import distilled_rebuild

    argv = ["--stage", "export", "--teacher", "models/nli_mpnet", "--distil-weight", "0.3",
            "--no-distil-in-domain", "--work", ".train/my run"]  # fmt: skip
    rebuild = distilled_rebuild(argv, "abc1234")
    train, export = rebuild.split("; ")
    assert train.startswith(".venv/bin/python scripts/train_nli.py --stage train --teacher")
    assert "--stage export --teacher models/nli_mpnet --distil-weight 0.3" in export
    assert "--no-distil-in-domain" in train and "'.train/my run'" in train
    assert "--stage export" not in train and "abc1234" in export


@pytest.mark.parametrize("value", ["24:00", "7.30", "ab:cd", "12:60"])
def test_a_malformed_deadline_is_refused_when_parsed(value):
    import argparse

    from conflictdesk.training.nli_train import deadline_arg

    with pytest.raises(argparse.ArgumentTypeError):
        deadline_arg(value)
    assert deadline_arg("00:40") == "00:40" and deadline_arg("") == ""
