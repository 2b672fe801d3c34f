"""The shipping rule for a new labelling model (scripts/ship_check.py's decision)."""

from __future__ import annotations

import json

import pytest

from conflictdesk.evaluation.ship_rule import (
    NLI_TOLERANCE,
    Check,
    checks,
    detection_figures,
    folder_key,
    measure,
    nli_figures,
    table,
    verdict,
)


def slice_report(f1: float, macro: float) -> dict:
    return {"model": {"detection": {"f1": f1}, "relations": {"macro_f1": macro}}}


def report(ramdocs: tuple[float, float], qacc: tuple[float, float]) -> dict:
    return {"slices": {"RAMDocs eval half": slice_report(*ramdocs),
                       "RAMDocs all (half seen in training)": slice_report(0.99, 0.99),
                       "QACC dev": slice_report(*qacc)}}  # fmt: skip


def test_detection_figures_read_the_two_slices_the_rule_names_and_nothing_else():
    figures = detection_figures(report((0.85, 0.78), (0.28, 0.60)))
    assert figures == {
        "RAMDocs eval half: conflict F1": 0.85,
        "RAMDocs eval half: relation macro-F1": 0.78,
        "QACC dev: conflict F1": 0.28,
        "QACC dev: relation macro-F1": 0.60,
    }
    with pytest.raises(ValueError, match="QACC dev"):
        detection_figures({"slices": {"RAMDocs eval half": slice_report(0.8, 0.8)}})


def test_detection_figures_must_not_drop_and_nli_sets_may_drop_by_the_tolerance():
    shipped = {"QACC dev: conflict F1": 0.30, "NLI snli/dev": 0.80}
    assert verdict(checks(shipped, {"QACC dev: conflict F1": 0.30, "NLI snli/dev": 0.785})) == (
        "ships"
    )
    lower = checks(shipped, {"QACC dev: conflict F1": 0.2999, "NLI snli/dev": 0.80})
    assert [c.passes for c in lower] == [False, True]
    assert verdict(lower) == "does not ship: QACC dev: conflict F1"
    nli_drop = checks(shipped, {"QACC dev: conflict F1": 0.4, "NLI snli/dev": 0.80 - 0.021})
    assert verdict(nli_drop) == "does not ship: NLI snli/dev"
    assert Check("NLI x", 0.8, 0.8 - NLI_TOLERANCE, NLI_TOLERANCE).passes  # the edge passes
    with pytest.raises(ValueError, match="one side only"):
        checks(shipped, {"QACC dev: conflict F1": 0.4})


def test_nli_figures_apply_the_folders_own_band_and_rule():
    # row 0: the fast tier is sure (0.95) and right; row 1: unsure (0.5) and wrong, the
    # accurate tier is right, so only a band above 0.5 sends it on and fixes it
    store = {"snli/dev": {"gold": [0, 2],
                          "fast": [[0.95, 0.03, 0.02], [0.5, 0.3, 0.2]],
                          "accurate": [[0.9, 0.05, 0.05], [0.05, 0.05, 0.9]]}}  # fmt: skip
    assert nli_figures(store, 0.9, "replace") == {"NLI snli/dev": 1.0}
    assert nli_figures(store, 0.4, "replace") == {"NLI snli/dev": 0.5}


def test_the_table_names_every_figure_and_ends_with_the_verdict():
    results = checks({"QACC dev: conflict F1": 0.30, "NLI snli/dev": 0.80},
                     {"QACC dev: conflict F1": 0.35, "NLI snli/dev": 0.75})  # fmt: skip
    lines = table(results).splitlines()
    assert lines[1].split() == ["QACC", "dev:", "conflict", "F1", "0.3000", "0.3500", "+0.0500",
                                "yes"]  # fmt: skip
    assert lines[2].endswith("NO") and lines[-1] == "does not ship: NLI snli/dev"
    assert [c.to_json()["passes"] for c in results] == [True, False]


def test_measure_refuses_a_folder_without_both_tiers_before_measuring(tmp_path):
    (tmp_path / "manifest.json").write_text("{}")
    with pytest.raises(SystemExit, match="missing"):
        measure(tmp_path, tmp_path / "work", 10, 42, 1)
    assert not (tmp_path / "work").exists()


def test_measure_reads_back_cached_figures_by_manifest_hash(tmp_path):
    (tmp_path / "nli").mkdir()
    (tmp_path / "nli_mpnet").mkdir()
    (tmp_path / "nli_mpnet" / "nli_mpnet_config.json").write_text("{}")
    (tmp_path / "manifest.json").write_text('{"models": []}')
    work = tmp_path / "work"
    work.mkdir()
    cached = {"QACC dev: conflict F1": 0.3}
    (work / f"{folder_key(tmp_path)}.json").write_text(json.dumps(cached))
    assert measure(tmp_path, work, 10, 42, 1) == cached
    (tmp_path / "manifest.json").write_text('{"models": [1]}')  # another folder content
    assert folder_key(tmp_path) + ".json" not in {p.name for p in work.iterdir()}


def test_a_failed_detection_run_is_named_and_leaves_no_cached_report(tmp_path, monkeypatch):
    from conflictdesk.evaluation import ship_rule

    (tmp_path / "nli").mkdir()
    (tmp_path / "nli_mpnet").mkdir()
    (tmp_path / "nli_mpnet" / "nli_mpnet_config.json").write_text("{}")
    (tmp_path / "manifest.json").write_text('{"models": []}')
    monkeypatch.setattr(ship_rule, "DETECTION_RUN", "import sys; sys.exit(3)")
    with pytest.raises(SystemExit, match=r"detection run failed \(exit 3"):
        measure(tmp_path, tmp_path / "work", 10, 42, 1)
    assert list((tmp_path / "work").iterdir()) == []


def test_the_cache_key_changes_with_the_code_that_produced_the_figures(tmp_path):
    models, code = tmp_path / "models", tmp_path / "code"
    models.mkdir()
    (models / "manifest.json").write_text('{"models": []}')
    (code / "analysis").mkdir(parents=True)
    (code / "analysis" / "claims.py").write_text("RULE = 1\n")
    before = folder_key(models, code)
    assert folder_key(models, code) == before  # stable
    (code / "analysis" / "claims.py").write_text("RULE = 2\n")
    assert folder_key(models, code) != before
