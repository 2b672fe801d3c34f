"""The `detect` timing of scripts/bench_detect.py (conflictdesk.benchmarks.scoring) on fakes."""

from __future__ import annotations

import json

import numpy as np

from conflictdesk.benchmarks.scoring import detect_benchmark, detect_inputs
from conflictdesk.scoring.fusion import FEATURES, FusionModel
from conflictdesk.training.claims import ramdocs_half
from tests.fakes import fake_backends


def ramdocs_folder(tmp_path, n: int):
    """A data folder whose ramdocs/dev.jsonl holds `n` EVAL-half questions and TRAIN-half
    ones between them."""
    rows, k = [], 0
    while sum(ramdocs_half(r["question"]) == "eval" for r in rows) < n:
        question = f"How many people live in Town {k}?"
        rows.append({"question": question, "gold_answers": [f"{k},000"],
                     "documents": [{"text": f"Town {k} has {k},000 people.", "type": "correct"},
                                   {"text": f"Town {k} has 7 people.", "type": "misinfo"}]})  # fmt: skip
        k += 1
    (tmp_path / "ramdocs").mkdir()
    (tmp_path / "ramdocs" / "dev.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    return tmp_path


def test_detect_inputs_are_answer_form_claims_of_the_eval_half(tmp_path):
    inputs = detect_inputs(ramdocs_folder(tmp_path, 3), 2)
    assert len(inputs) == 2
    for claim, docs in inputs:
        assert claim.startswith("The answer to the question How many people live in Town")
        assert ramdocs_half(claim.split("question ")[1].split("?")[0] + "?") == "eval"
        assert len(docs) == 2


def test_detect_benchmark_times_each_labeller(tmp_path):
    backends = fake_backends()
    fusion = FusionModel("split@1", np.zeros(len(FEATURES)), np.ones(len(FEATURES)),
                         np.zeros((len(FEATURES), 1)), np.zeros(1), 1.0, structure="split")  # fmt: skip
    backends = type(backends)(**{**backends.__dict__, "fusion": fusion})
    result = detect_benchmark(ramdocs_folder(tmp_path, 3), backends, ("nli", "fusion"), 3, 2)
    assert (result["claims"], result["pairs"], result["repeats"]) == (3, 6, 2)
    rows = result["labellers"]
    assert set(rows) == {"nli", "fusion"} and rows["nli"]["vs_first"] == 1.0
    assert all(row["ms_per_claim"] >= 0 and "cpu_ms_per_claim" in row for row in rows.values())
