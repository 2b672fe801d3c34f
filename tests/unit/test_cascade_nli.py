"""The labelling cascade with fakes: routing by the band, order kept, counts, the band's choice
on development rows, and how the registry and `models list` report the tiers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conflictdesk.backends.cascade_nli import CascadeNLI, band_table, choose_band
from conflictdesk.backends.ct2_nli import CT2CrossEncoder
from conflictdesk.backends.manifest import Manifest, entry_for
from conflictdesk.backends.nli_tiers import ROLE
from conflictdesk.backends.registry import VerificationCache, capabilities, load_backends
from conflictdesk.config import Config, load_config
from conflictdesk.errors import UsageError
from conflictdesk.types import NLIScores
from tests.fakes import FakeNLI

SURE = NLIScores(0.95, 0.03, 0.02)
UNSURE = NLIScores(0.5, 0.3, 0.2)
ACCURATE = NLIScores(0.1, 0.1, 0.8)


def tiers(pairs_unsure: list[tuple[str, str]]) -> tuple[FakeNLI, FakeNLI]:
    fast = FakeNLI({pair: UNSURE for pair in pairs_unsure})
    fast.model_id = "minilm@1"
    accurate = FakeNLI({pair: ACCURATE for pair in pairs_unsure})
    accurate.model_id = "mpnet@2"
    return fast, accurate


def test_only_pairs_below_the_band_reach_the_accurate_tier_and_order_is_kept():
    pairs = [(f"premise {i}", f"hypothesis {i}") for i in range(5)]
    fast, accurate = tiers([pairs[1], pairs[3]])
    for pair in (pairs[0], pairs[2], pairs[4]):
        fast.override[pair] = SURE
    cascade = CascadeNLI(fast, accurate, band=0.9)
    scores = cascade.classify(pairs)
    assert accurate.history == [[pairs[1], pairs[3]]]
    assert scores == [SURE, ACCURATE, SURE, ACCURATE, SURE]
    assert cascade.routed == {"fast": 3, "accurate": 2}


def test_a_confident_batch_never_calls_the_accurate_tier():
    pairs = [("a b", "c d")]
    fast, accurate = tiers([])
    fast.override[pairs[0]] = SURE
    assert CascadeNLI(fast, accurate, band=0.9).classify(pairs) == [SURE]
    assert accurate.history == []


def test_band_is_inclusive_and_its_id_names_both_tiers():
    pair = ("x", "y")
    fast, accurate = tiers([])
    fast.override[pair] = NLIScores(0.9, 0.05, 0.05)
    cascade = CascadeNLI(fast, accurate, band=0.9)
    assert cascade.classify([pair]) == [NLIScores(0.9, 0.05, 0.05)]
    assert cascade.model_id == "cascade(minilm@1 if top-p>=0.9, else mpnet@2)"
    assert CascadeNLI(fast, accurate, band=1.01).classify([pair]) != [fast.override[pair]]


def test_a_band_outside_its_range_is_refused():
    fast, accurate = tiers([])
    with pytest.raises(ValueError, match="band"):
        CascadeNLI(fast, accurate, band=0.0)


def test_band_table_and_choice_on_a_worked_example():
    # four rows: the fast tier is sure and right on 0, unsure and wrong on 1 and 2, sure and
    # wrong on 3; the accurate tier is right on 1 and 2.
    fast = np.array([[0.97, 0.02, 0.01], [0.55, 0.4, 0.05], [0.4, 0.35, 0.25], [0.96, 0.02, 0.02]])
    accurate = np.array([[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8], [0.9, 0.05, 0.05]])
    labels = np.array([0, 1, 2, 1])
    table = {row["band"]: row for row in band_table(fast, accurate, labels)}
    assert table[0.5] == {"band": 0.5, "escalated": 0.25, "accuracy": 0.5}
    assert table[0.6] == {"band": 0.6, "escalated": 0.5, "accuracy": 0.75}
    assert table[0.98]["escalated"] == 1.0 and table[0.98]["accuracy"] == 0.75
    assert choose_band(list(table.values())) == 0.6  # the cheapest band with the best accuracy


def placeholder(base: Path, name: str, role: str, files: dict[str, bytes], **extra) -> None:
    folder = base / name
    folder.mkdir(parents=True)
    for file_name, data in files.items():
        (folder / file_name).write_bytes(data)
    manifest = Manifest.load(base / "manifest.json")
    entry = entry_for(name, role, folder, licence="MIT", source="test", rebuild="make", base=base)
    entry.extra = extra
    manifest.upsert(entry)
    manifest.save()


@pytest.fixture
def models(tmp_path) -> Path:
    base = tmp_path / "models"
    base.mkdir()
    placeholder(base, "conflictdesk-nli-minilm-int8", "nli", {"model.bin": b"ct2"})
    return base


def test_without_the_mpnet_tier_the_minilm_alone_is_reported(models):
    caps = capabilities(Config(models_dir=models))
    assert caps.models["nli"].startswith("conflictdesk-nli-minilm-int8@")
    assert caps.method("tag") == "nli" and caps.method("label") == "nli"
    assert any("no MPNet tier installed, the MiniLM alone labels" in n for n in caps.notes)
    nli = load_backends(Config(models_dir=models), roles=("nli",),
                        verification=VerificationCache(None)).nli  # fmt: skip
    assert isinstance(nli, CT2CrossEncoder)


def test_with_the_mpnet_tier_the_cascade_is_built_and_reported(models):
    placeholder(models, "mpnet", ROLE, {"model_int8.onnx": b"onnx"}, cascade_band=0.85)
    caps = capabilities(Config(models_dir=models))
    assert caps.models["nli"].startswith("cascade(conflictdesk-nli-minilm-int8@")
    assert "if top-p>=0.85, else mpnet@" in caps.models["nli"]
    # ask's analysis runs the MiniLM alone by default (AnalysisOptions.cascade); labelling
    # claims against documents runs the cascade
    assert caps.method("tag") == "nli" and caps.method("label") == "nli-cascade"
    assert caps.analysis_nli.startswith("conflictdesk-nli-minilm-int8@")
    assert any("ask: the MiniLM alone tags passages" in n for n in caps.notes)
    assert any("MPNet (mpnet) labels the rest" in n for n in caps.notes)
    nli = load_backends(Config(models_dir=models), roles=("nli",),
                        verification=VerificationCache(None)).nli  # fmt: skip
    assert isinstance(nli, CascadeNLI) and nli.band == 0.85
    assert nli.model_id == caps.models["nli"]  # what outputs carry is what models list says


def test_a_pair_model_trained_on_cascade_statement_stances_is_noted(models):
    placeholder(models, "mpnet", ROLE, {"model_int8.onnx": b"onnx"}, cascade_band=0.9)
    placeholder(models, "pair-mlp", "pair", {"pair_int8.onnx": b"onnx"},
                route="two-stage", statement_stance="cascade")  # fmt: skip
    caps = capabilities(Config(models_dir=models))
    (note,) = [n for n in caps.notes if n.startswith("ask: the MiniLM alone")]
    assert "yes/no or declarative question's statement is read by the cascade" in note
    assert "and in stage 1's stances" in note


def test_nli_band_setting_overrides_or_turns_the_tier_off(models):
    placeholder(models, "mpnet", ROLE, {"model_int8.onnx": b"onnx"}, cascade_band=0.85)
    assert "top-p>=0.7," in capabilities(Config(models_dir=models, nli_band=0.7)).models["nli"]
    off = capabilities(Config(models_dir=models, nli_band=0.0))
    assert not off.models["nli"].startswith("cascade(")
    assert any("is off (nli_band 0), the MiniLM alone labels" in n for n in off.notes)


def test_a_tampered_mpnet_file_is_refused(models):
    from conflictdesk.errors import ModelIntegrityError

    placeholder(models, "mpnet", ROLE, {"model_int8.onnx": b"onnx"}, cascade_band=0.85)
    (models / "mpnet" / "model_int8.onnx").write_bytes(b"evil")
    with pytest.raises(ModelIntegrityError, match="sha256 mismatch"):
        load_backends(Config(models_dir=models), roles=("nli",),
                      verification=VerificationCache(None))  # fmt: skip


def test_nli_band_setting_is_validated(tmp_path):
    assert load_config(tmp_path / "none.toml", env={"CONFLICTDESK_NLI_BAND": "0.8"}).nli_band == 0.8
    with pytest.raises(UsageError, match="nli_band"):
        load_config(tmp_path / "none.toml", env={"CONFLICTDESK_NLI_BAND": "2"})
    with pytest.raises(UsageError, match="nli_band"):
        load_config(tmp_path / "none.toml", env={"CONFLICTDESK_NLI_BAND": "high"})


def test_geometric_rule_on_a_worked_example():
    pair = ("p", "h")
    fast, accurate = tiers([pair])  # fast (0.5, 0.3, 0.2), accurate (0.1, 0.1, 0.8)
    cascade = CascadeNLI(fast, accurate, band=0.9, rule="geometric")
    (scores,) = cascade.classify([pair])
    # sqrt(0.05), sqrt(0.03), sqrt(0.16) = 0.2236, 0.1732, 0.4, normalised by their sum 0.7968
    assert scores.entailment == pytest.approx(0.2806, abs=1e-4)
    assert scores.neutral == pytest.approx(0.2174, abs=1e-4)
    assert scores.contradiction == pytest.approx(0.5020, abs=1e-4)
    assert cascade.model_id == "cascade(minilm@1 if top-p>=0.9, else geomean(minilm@1, mpnet@2))"
    sure = ("s", "t")
    fast.override[sure] = SURE  # a settled pair keeps the fast tier's probabilities
    assert cascade.classify([sure]) == [SURE]
    with pytest.raises(ValueError, match="rule"):
        CascadeNLI(fast, accurate, band=0.9, rule="mean")


def test_band_table_under_the_geometric_rule():
    # the fast tier leans wrong (entailment 0.58) and the accurate one right, but only just
    # (neutral 0.55): replacing follows the accurate tier; the geometric mean keeps
    # entailment (0.58 x 0.40 = 0.232 > 0.37 x 0.55 = 0.2035)
    fast = np.array([[0.58, 0.37, 0.05]])
    accurate = np.array([[0.40, 0.55, 0.05]])
    labels = np.array([1])
    replace = {r["band"]: r["accuracy"] for r in band_table(fast, accurate, labels)}
    geometric = {r["band"]: r["accuracy"] for r in band_table(fast, accurate, labels, "geometric")}
    assert replace[0.6] == 1.0 and geometric[0.6] == 0.0
    assert replace[0.5] == geometric[0.5] == 0.0  # not escalated: the fast tier's label


def test_the_rule_comes_from_the_manifest_entry_and_the_setting_overrides_it(models):
    placeholder(models, "mpnet", ROLE, {"model_int8.onnx": b"onnx"}, cascade_band=0.85,
                cascade_rule="geometric")  # fmt: skip
    caps = capabilities(Config(models_dir=models))
    assert "else geomean(conflictdesk-nli-minilm-int8@" in caps.models["nli"]
    assert any("label the rest together (geometric mean)" in n for n in caps.notes)
    nli = load_backends(Config(models_dir=models), roles=("nli",),
                        verification=VerificationCache(None)).nli  # fmt: skip
    assert nli.rule == "geometric" and nli.model_id == caps.models["nli"]
    replaced = capabilities(Config(models_dir=models, nli_rule="replace")).models["nli"]
    assert "geomean" not in replaced and replaced.endswith(
        ", else mpnet@" + replaced.split("@")[-1]
    )
    assert load_config(
        models / "none.toml", env={"CONFLICTDESK_NLI_RULE": "Geometric"}
    ).nli_rule == ("geometric")
    with pytest.raises(UsageError, match="nli_rule"):
        load_config(models / "none.toml", env={"CONFLICTDESK_NLI_RULE": "average"})


def test_second_tier_falls_back_to_the_mean_when_the_tiers_rule_out_every_label():
    from conflictdesk.backends.cascade_nli import second_tier

    fast = np.array([[1.0, 0.0, 0.0], [0.5, 0.3, 0.2]])
    accurate = np.array([[0.0, 1.0, 0.0], [0.1, 0.1, 0.8]])
    out = second_tier(fast, accurate, "geometric")
    assert out[0] == pytest.approx([0.5, 0.5, 0.0])  # sqrt products all 0: the mean
    assert out[1] == pytest.approx([0.2806, 0.2174, 0.5020], abs=1e-4)
    assert second_tier(fast, accurate, "replace") is accurate


def test_an_unknown_stored_rule_is_refused_with_the_rebuild_hint(models):
    from conflictdesk.errors import ModelIntegrityError

    placeholder(models, "mpnet", ROLE, {"model_int8.onnx": b"onnx"}, cascade_band=0.85,
                cascade_rule="median")  # fmt: skip
    with pytest.raises(ModelIntegrityError, match="unknown cascade_rule 'median'"):
        capabilities(Config(models_dir=models))
