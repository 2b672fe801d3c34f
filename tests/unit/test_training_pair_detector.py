"""Stage-1 pair-detector training code: data loaders, feature caches, metrics, calibration."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from conflictdesk.analysis.pair_features import pair_features
from conflictdesk.training import pair_eval, pair_model, pairs
from conflictdesk.training.features import NLICache
from conflictdesk.types import NLIScores, PairType


def _write_gz(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")


def test_conflictqa_and_perspectrum_pairs_carry_their_types(tmp_path):
    row = {"question": "Is X big?", "passage_a": "X is big.", "passage_b": "X is small."}
    _write_gz(
        tmp_path / "conflictqa_strategyqa" / "pairs_test.jsonl.gz",
        [{**row, "conflict": True}, {**row, "conflict": False}],
    )
    _write_gz(
        tmp_path / "perspectrum" / "pairs_dev.jsonl.gz",
        [{"question": "Zoos should close", "passage_a": "Cruel", "passage_b": "Educational",
          "conflict": True}],
    )  # fmt: skip
    cqa = pairs.conflictqa_pairs("test", root=tmp_path)
    assert [(p.conflict, p.kind) for p in cqa] == [(1, 1), (0, 0)]
    assert cqa[0].text_i == "Is X big?\nX is big." and cqa[0].group == "Is X big?"
    (persp,) = pairs.perspectrum_pairs("dev", root=tmp_path)
    assert persp.kind == 3 and persp.source == "perspectrum"


def test_pair_features_append_both_nli_directions():
    e = np.array([[1.0, 0.0]], dtype=np.float32)
    ij, ji = np.array([[0.1, 0.2, 0.7]]), np.array([[0.6, 0.3, 0.1]])
    f = pair_features(e, e, ij, ji)
    assert f.shape == (1, 8 + 6)
    assert f[0, 8:].tolist() == pytest.approx([0.1, 0.2, 0.7, 0.6, 0.3, 0.1])
    with pytest.raises(ValueError, match="both directions"):
        pair_features(e, e, ij, None)
    with pytest.raises(ValueError, match=r"\[N, 3\]"):
        pair_features(e, e, ij[:, :2], ji)


def test_nli_cache_scores_each_pair_once_and_resumes_from_disk(tmp_path):
    calls = []

    def classify(batch):
        calls.append(list(batch))
        return [
            NLIScores(0.1, 0.2, 0.7) if "not" in h else NLIScores(0.8, 0.1, 0.1) for _, h in batch
        ]

    path = tmp_path / "nli.npz"
    scores = NLICache(path, classify).scores([("a", "b"), ("a", "not b"), ("a", "b")])
    assert scores[:, 2].tolist() == pytest.approx([0.1, 0.7, 0.1])
    assert calls == [[("a", "b"), ("a", "not b")]]
    again = NLICache(path, classify).scores([("a", "not b")])
    assert again[0].tolist() == pytest.approx([0.1, 0.2, 0.7]) and len(calls) == 1


def _pair(conflict: int, kind: int) -> pairs.TextPair:
    return pairs.TextPair("q\na", "q\nb", conflict, kind, "test", "q")


def test_heldout_metrics_beside_the_baselines_worked_example():
    data = [_pair(1, 1), _pair(1, 3), _pair(0, 0), _pair(0, 0)]
    p = np.array([0.9, 0.8, 0.7, 0.1])  # one false positive
    types = np.array(
        [[0.1, 0.6, 0.1, 0.2], [0.1, 0.1, 0.1, 0.7], [0.5, 0.3, 0.1, 0.1], [1, 0, 0, 0]]
    )
    stage2 = np.array([True, False, False, False])
    m = pair_eval.heldout_metrics(p, types, data, stage2)
    # precision 2/3, recall 1 -> F1 0.8; always-conflict: share 0.5 -> 2*0.5/1.5
    assert m["f1"] == pytest.approx(0.8) and m["acc"] == pytest.approx(0.75)
    assert m["always_conflict_f1"] == pytest.approx(0.6667, abs=1e-4)
    assert m["nli_alone_f1"] == pytest.approx(2 / 3, abs=1e-4)
    assert m["per_type"]["opinion"] == {
        "support": 1,
        "predicted": 1,
        "precision": 1.0,
        "recall": 1.0,
    }
    assert m["per_type"]["factual"]["predicted"] == 2  # the false positive is typed factual
    assert m["type_acc_given_conflict"] == 1.0


def test_routing_table_and_tau_choice():
    p = np.array([0.95, 0.6, 0.4, 0.05])
    gold = np.array([True, False, True, False])
    stage2 = np.array([False, False, True, False])  # right on both uncertain pairs
    table = pair_eval.routing_table(p, stage2, gold)
    by_tau = {r["tau_c"]: r for r in table}
    assert by_tau[0.5]["combined_acc"] == 0.5 and by_tau[0.5]["settled"] == 1.0
    assert by_tau[0.7]["combined_acc"] == 1.0 and by_tau[0.7]["settled"] == 0.5
    assert pair_eval.choose_tau(table) == 0.7  # F1 1.0 at 0.7-0.9; all settle 0.5: first


def test_nli_alone_is_contradiction_on_top_in_either_direction():
    ij = np.array([[0.1, 0.2, 0.7], [0.8, 0.1, 0.1], [0.4, 0.5, 0.1]])
    ji = np.array([[0.8, 0.1, 0.1], [0.2, 0.2, 0.6], [0.4, 0.5, 0.1]])
    assert pair_eval.nli_alone(ij, ji).tolist() == [True, True, False]


def test_temperature_fit_recovers_an_overconfident_scale():
    rng = np.random.default_rng(0)
    true_logit = rng.normal(0, 2, size=4000)
    gold = (rng.random(4000) < 1 / (1 + np.exp(-true_logit))).astype(int)
    logits = np.stack([np.zeros(4000), 3.0 * true_logit], axis=1)  # three times too sharp
    assert pair_model.fit_temperature(logits, gold) == pytest.approx(3.0, rel=0.1)


def test_expected_calibration_error_is_zero_when_confidence_matches_accuracy():
    p = np.array([0.9] * 10)
    gold = np.array([True] * 9 + [False])
    assert pair_eval.expected_calibration_error(p, gold) == pytest.approx(0.0, abs=1e-9)
    assert pair_eval.expected_calibration_error(p, ~gold) == pytest.approx(0.8)


def test_inverse_frequency_weights_rare_types_up():
    w = pair_model.inverse_frequency(np.array([0, 0, 0, 1, 2, 3, 3, 3]), 4)
    assert w[2] > w[3] and w[0] == w[3] and w[1] == w[2]
    assert PairType.TEMPORAL.value == "temporal"


def _result(route: str) -> dict:
    figures = {
        "pairs": 4, "conflicts": 2, "f1": 0.8, "acc": 0.75, "always_conflict_f1": 0.667,
        "majority_acc": 0.5, "nli_alone_f1": 0.9 if route != "two-stage" else 0.5,
        "nli_alone_acc": 0.5, "ece": 0.1, "type_acc": 0.5,
        "per_type": {k: {"support": 1, "predicted": 1, "precision": 1.0, "recall": 1.0}
                     for k in ("none", "factual", "temporal", "opinion")},
    }  # fmt: skip
    figures["per_type_given_conflict"] = figures["per_type"]
    return {
        "layout": "emb4+nli6", "temperature": 1.5, "tau_c": 0.8, "route": route,
        "routing_dev": [{"tau_c": 0.8, "settled": 0.5, "stage1_acc_settled": 0.9,
                         "combined_acc": 0.8, "combined_f1": 0.8}],
        "heldout": {"conflictqa_test": figures},
    }  # fmt: skip


def test_report_section_replaces_only_the_pair_section(tmp_path):
    from conflictdesk.training import pair_report

    report = tmp_path / "report.md"
    report.write_text("# R\n\n## Stage-1 pair detector (old)\n\nold table\n\n## Speed\n\nfast\n")
    pair_report.replace_section(report, pair_report.markdown(_result("two-stage"), "cmd"))
    text = report.read_text()
    assert "old table" not in text and text.startswith("# R\n") and text.endswith("fast\n")
    assert "| conflictqa_test | 4 | 2 | 0.800 |" in text and "it stays in the route" in text
    off = pair_report.markdown(_result("stage2-only"), "cmd")
    assert any("NOT beat" in line for line in off)
    assert any("| **no** |" in line for line in off)
    ablation = {**_result("two-stage"), "layout": "emb4"}
    ablation["heldout"] = {"conflictqa_test": {**ablation["heldout"]["conflictqa_test"], "f1": 0.7}}
    ablation["threshold"] = 0.35
    lines = pair_report.markdown(_result("two-stage"), "cmd", [ablation])
    text = "\n".join(lines)
    assert "| emb4+nli6 | 0.50 | 0.800 / " in text and "| emb4 | 0.35 | 0.700 / " in text


def test_threshold_is_the_best_dev_f1_and_applies_to_the_figures():
    gold = np.array([True, True, False, False])
    p = np.array([0.9, 0.3, 0.2, 0.1])
    assert (
        pair_eval.choose_threshold(p, gold) == 0.3
    )  # catches the 0.3 conflict; ties → nearest 0.5
    types = np.tile([0.1, 0.7, 0.1, 0.1], (4, 1))
    data = [pairs.TextPair("q\na", "q\nb", int(g), int(g), "t", "q") for g in gold]
    stage2 = np.array([True, False, False, False])
    at_half = pair_eval.heldout_metrics(p, types, data, stage2)
    at_dev = pair_eval.heldout_metrics(p, types, data, stage2, threshold=0.3)
    assert at_half["f1"] == pytest.approx(2 / 3, abs=1e-3) and at_dev["f1"] == 1.0
    assert at_dev["type_acc"] == 1.0


def test_trained_mlp_exports_to_onnx_that_the_product_back_end_reads(tmp_path):
    pytest.importorskip("torch")
    from conflictdesk.backends.onnx_pair import OnnxPairClassifier

    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 12)).astype(np.float32)
    y_c = (x[:, 0] > 0).astype(np.int64)
    y_t = np.where(y_c == 1, 1 + (x[:, 1] > 0).astype(np.int64) * 2, 0)
    val = np.arange(400) % 5 == 0
    config = pair_model.TrainConfig(max_epochs=40, patience=40, lr=3e-3)
    model = pair_model.train(config, x, y_c, y_t, val, lambda event: None)
    pair_model.to_onnx(model, tmp_path / "pair_int8.onnx", 12, temperature=2.0)
    (tmp_path / "pair_config.json").write_text(json.dumps({"tau_c": 0.7, "feature_dim": 12}))
    scores = OnnxPairClassifier(tmp_path, device="cpu").classify(x[val])
    p = np.array([s.conflict for s in scores])
    assert ((p >= 0.5) == y_c[val]).mean() > 0.85
    c, _ = pair_model.logits(model, x[val])
    sharp = np.exp(c[:, 1]) / np.exp(c).sum(1)
    assert np.abs(p - 0.5).mean() < np.abs(sharp - 0.5).mean()  # T = 2 softens the head


def test_routed_figures_let_stage_one_settle_only_confident_pairs():
    gold = np.array([True, False, True, False])
    p = np.array([0.9, 0.55, 0.45, 0.1])  # the middle two are not confident at τ_c 0.7
    stage2 = np.array([False, False, True, True])
    r = pair_eval.routed(p, stage2, gold, tau=0.7, threshold=0.5)
    assert r == {"routed_settled": 0.5, "routed_f1": 1.0, "routed_acc": 1.0}
    assert pair_eval.routed(p, stage2, gold, tau=None, threshold=0.5) == {}
    # at τ_c 0.5 stage 1 settles all; threshold 0.4 makes the 0.45 a (right) conflict call
    at_half = pair_eval.routing_table(p, stage2, gold)[0]
    at_dev = pair_eval.routing_table(p, stage2, gold, 0.4)[0]
    assert at_half["tau_c"] == 0.5 and at_half["stage1_acc_settled"] == 0.5
    assert at_dev["stage1_acc_settled"] == 0.75


def test_report_shows_the_route_and_the_feature_cost_when_measured():
    from conflictdesk.training import pair_report

    result = _result("two-stage")
    result["heldout"]["conflictqa_test"].update(routed_f1=0.81, routed_acc=0.7, routed_settled=0.4)
    result["feature_speed"] = {"conflictqa_test": {"pairs_per_s": 8.0, "nli_calls": 191}}
    text = "\n".join(pair_report.markdown(result, "cmd"))
    assert "| 0.810 / 0.700 (0.40) |" in text
    assert "conflictqa_test 8.0 pairs/s (191 NLI calls for 100 pairs)" in text
    assert "Feature cost" not in "\n".join(pair_report.markdown(_result("two-stage"), "cmd"))
    dev = {"f1": 0.6, "type_acc_given_conflict": 0.5}
    result["dev"] = {"conflictqa": {**dev, "f1": 0.8}, "indomain_val": dev}
    assert "| emb4+nli6 | 0.800 | 0.600 | 0.700 | 0.500 |" in "\n".join(
        pair_report.markdown(result, "cmd")
    )
    result["variant"] = "emb4+stance.head1-stance"
    text = "\n".join(pair_report.markdown(result, "cmd"))
    assert "head 1 (conflict) reads only the stance block" in text
    assert "labelling cascade" not in text
    result["variant"] += ".statements-cascade"
    result["statement_stance"] = "cascade"
    text = "\n".join(pair_report.markdown(result, "cmd"))
    assert "head 1 (conflict) reads only the stance block" in text
    assert "stance towards a statement (yes/no and declarative queries) is read by the " in text
    assert "and the cascade for statement stances" in text


def test_statement_stance_names_the_variant_and_its_rebuild_command(tmp_path):
    from conflictdesk.backends.cascade_nli import model_family
    from conflictdesk.training import pair_detector

    config = pair_model.TrainConfig(conflict_tail=15)
    assert pair_detector.variant("emb4+stance", config) == "emb4+stance.head1-stance"
    name = pair_detector.variant("emb4+stance", config, "cascade")
    assert name == "emb4+stance.head1-stance.statements-cascade"
    command = pair_detector.rebuild_command("emb4+stance", config, "cascade")
    assert command.endswith("--conflict-head-stance --statement-stance cascade")
    assert "--statement-stance" not in pair_detector.rebuild_command("emb4+stance", config)
    pair_detector.write_config(tmp_path, "emb4+stance", 1551, 1.0, 0.5, 0.45, 15, "casc(a, b)")
    written = json.loads((tmp_path / "pair_config.json").read_text("utf-8"))
    assert written["variant"] == name and written["statement_stance"] == "cascade"
    assert written["statement_nli"] == "casc(a, b)"
    cascade = "cascade(a@0f12 if top-p>=0.9, else geomean(a@0f12, b@9ab3))"
    assert model_family(cascade) == "cascade(a if top-p>=0.9, else geomean(a, b))"


def test_conflict_head_on_the_trailing_columns_exports_with_zero_weights(tmp_path):
    pytest.importorskip("torch")
    from conflictdesk.backends.onnx_pair import OnnxPairClassifier

    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, 10)).astype(np.float32)
    y_c = (x[:, -1] > 0).astype(np.int64)  # only the last column decides a conflict
    y_t = np.where(y_c == 1, 1, 0)
    val = np.arange(300) % 5 == 0
    config = pair_model.TrainConfig(max_epochs=30, patience=30, lr=3e-3, conflict_tail=2)
    model = pair_model.train(config, x, y_c, y_t, val, lambda event: None)
    assert model.conflict[0].weight.shape[1] == 2 and model.types[0].weight.shape[1] == 10
    pair_model.to_onnx(model, tmp_path / "pair_int8.onnx", 10)
    (tmp_path / "pair_config.json").write_text(json.dumps({"tau_c": 0.7, "feature_dim": 10}))
    detector = OnnxPairClassifier(tmp_path, device="cpu")
    p = np.array([s.conflict for s in detector.classify(x[val])])
    c, _ = pair_model.logits(model, x[val])
    assert np.allclose(p, np.exp(c[:, 1]) / np.exp(c).sum(1), atol=1e-5)
    moved = x[val].copy()
    moved[:, :8] += 5.0  # the head-1-blind columns change nothing in P(conflict)
    q = np.array([s.conflict for s in detector.classify(moved)])
    assert np.allclose(p, q, atol=1e-5)


def test_a_held_back_variant_says_so_instead_of_the_route_verdict():
    from conflictdesk.training import pair_report

    text = "\n".join(pair_report.markdown(_result("two-stage"), "cmd", None, "types shift."))
    assert "**Not shipped.**" in text and "types shift." in text
    assert "Smallest F1 margin over the better baseline:" in text
    assert "it stays in the route" not in text


def test_without_metrics_the_committed_pair_section_is_shown(tmp_path):
    from conflictdesk.training import pair_report

    report = tmp_path / "report.md"
    report.write_text("# R\n\n## Stage-1 pair detector (x)\n\nthe table\n\n## Speed\n\nfast\n")
    out = pair_report.committed_report(report, tmp_path / "metrics-x.json")
    assert "as committed" in out and "the table" in out and "fast" not in out
    with pytest.raises(SystemExit, match="train first"):
        pair_report.committed_report(tmp_path / "none.md", tmp_path / "metrics-x.json")


def test_first_tier_statement_stances_need_no_statement_cache(tmp_path):
    from conflictdesk.training import pair_detector

    assert pair_detector.statement_cache(tmp_path, 1, "first-tier") == (None, None)
    assert not list(tmp_path.iterdir())  # nothing loaded, nothing written
