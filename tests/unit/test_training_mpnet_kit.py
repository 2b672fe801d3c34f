"""The MPNet training trip to a lent GPU machine, rehearsed on the CPU with a tiny model: the
kit packs rows and float16 weights into calls within the budget, parts joined on the far side
are checked against their sha256, the ordinary loop trains from the packed rows, and the
weights that come back unpack to the trained model (float16 rounding) with the frozen word
embeddings restored exactly from the local base."""

from __future__ import annotations

import json
import shutil
from argparse import Namespace
from pathlib import Path

import numpy as np
import pytest

from conflictdesk.training import mpnet_kit
from tests.fakes import tiny_nli_rows

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "nli_mpnet_tiny"


def test_rows_survive_the_round_trip(tmp_path):
    encoded = [([0, 5, 2, 2, 7, 2], []), ([0, 30526, 2], [])]
    held = [([0, 9, 2], [])]
    mpnet_kit.save_rows(tmp_path / "rows.npz", encoded, [2, 0], held, [1], ["pools"])
    rows = mpnet_kit.load_rows(tmp_path / "rows.npz")
    assert rows.encoded == encoded and rows.held == held and rows.labels == [2, 0]
    assert rows.held_labels.tolist() == [1] and rows.held_groups.tolist() == ["pools"]


def test_joined_parts_are_checked_against_their_sha256(tmp_path):
    whole = tmp_path / "whole.bin"
    whole.write_bytes(bytes(range(256)) * 40)
    parts = mpnet_kit.split(whole, tmp_path / "kit", 1000, "w")
    assert len(parts) == 11 and max(p.stat().st_size for p in parts) == 1000
    digest = mpnet_kit.sha256(whole)
    joined = mpnet_kit.join(tmp_path / "kit", "w", tmp_path / "joined.bin", digest)
    assert joined.read_bytes() == whole.read_bytes()
    parts[3].write_bytes(parts[3].read_bytes()[:-1])  # cut short on the way
    with pytest.raises(ValueError, match="sha256"):
        mpnet_kit.join(tmp_path / "kit", "w", tmp_path / "again.bin", digest)
    assert not (tmp_path / "again.bin").exists()


def test_upload_calls_stay_within_the_budget(tmp_path):
    sizes = {"rows.npz": 30, "config.json": 1, "tokenizer.json": 5, "base16.part00": 40,
             "base16.part01": 40, "base16.part02": 12}  # fmt: skip
    for name, size in sizes.items():
        (tmp_path / name).write_bytes(b"x" * size)
    kit = {"base16": {"parts": ["base16.part00", "base16.part01", "base16.part02"]}}
    calls = mpnet_kit.upload_calls(tmp_path, kit, 50)
    assert [f for call in calls for f in call] == list(sizes)  # every file once, in order
    assert all(sum(sizes[f] for f in call) <= 50 for call in calls)
    assert calls[0] == ["rows.npz", "config.json", "tokenizer.json"]


def trip_args(tmp_path: Path, base: Path) -> Namespace:
    return Namespace(
        work=tmp_path / "there" / "run", base=base, kit=tmp_path / "there" / "kit", seed=1,
        threads=1, max_length=64, batch_size=4, epochs=1.0, max_steps=4, lr=1e-3, warmup=0.1,
        dropout=0.1, deadline="", init="", init_ct2="", bf16=False, fresh=False, device="cpu",
        freeze_word_embeddings=True, freeze_layers=0, eval_every=2, ckpt_every=2,
        log_step_cost=False,
    )  # fmt: skip


def test_a_trip_rehearsed_on_the_cpu_brings_back_the_trained_weights(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    transformers = pytest.importorskip("transformers")
    from conflictdesk.training import nli_mpnet

    base = tmp_path / "base"
    tiny = transformers.MPNetConfig(vocab_size=30527, hidden_size=16, num_hidden_layers=1,
                                    num_attention_heads=2, intermediate_size=32)  # fmt: skip
    transformers.MPNetModel(tiny, add_pooling_layer=False).save_pretrained(base)
    shutil.copyfile(FIXTURE / "tokenizer.json", base / "tokenizer.json")
    monkeypatch.setattr("conflictdesk.training.nli_recipe.build_rows", lambda args: tiny_nli_rows())

    here = tmp_path / "here" / "all"
    kit = mpnet_kit.pack(trip_args(tmp_path, base), base, here, call_bytes=800_000)
    assert len(kit["base16"]["parts"]) > 1 and not (here / "base16.safetensors").exists()
    assert len(kit["calls"]) == len(kit["base16"]["parts"])  # the rows ride with part 0
    for files in kit["calls"]:
        assert sum((here / name).stat().st_size for name in files) <= 800_000 - 4096
    there = tmp_path / "there" / "kit"  # each call's files gathered on the far side
    there.mkdir(parents=True)
    staged = mpnet_kit.stage_calls(here, tmp_path / "here")
    assert len(staged) == len(kit["calls"]) > 1
    for call, names in enumerate(staged):
        assert "kit.json" in names
        for name in names:
            shutil.copyfile(tmp_path / "here" / f"call{call}" / name, there / name)

    args = trip_args(tmp_path, base)
    monkeypatch.setattr(nli_mpnet, "build_rows", lambda args: pytest.fail("rows rebuilt there"))
    result = mpnet_kit.device_train(args, nli_mpnet.train)
    assert result["weights"] == "best.pt" and result["step"] in (2, 4)
    back = tmp_path / "here" / "back"
    back.mkdir()
    for call in range(len(result["calls"])):
        returned = mpnet_kit.device_return(args.work, call, back)
        assert len(returned["files"]) <= 1 + mpnet_kit.RESULT_FILES_PER_CALL

    with pytest.raises(ValueError, match="calls 0.."):
        mpnet_kit.device_return(args.work, len(result["calls"]), back)
    with pytest.raises(FileNotFoundError, match="result.json"):
        mpnet_kit.unpack_result(tmp_path, base, tmp_path / "nothing.pt")
    unpacked = mpnet_kit.unpack_result(back, base, tmp_path / "here" / "best.pt")
    trained = torch.load(args.work / "best.pt", weights_only=False)["model"]
    assert set(unpacked["model"]) == set(trained)
    for name, tensor in trained.items():
        assert torch.allclose(unpacked["model"][name], tensor.float(), atol=2e-3, rtol=1e-3), name
    from safetensors.numpy import load_file

    original = load_file(str(base / "model.safetensors"))[mpnet_kit.BASE_WORD_EMBEDDINGS]
    restored = unpacked["model"][mpnet_kit.WORD_EMBEDDINGS].numpy()
    assert np.array_equal(restored, original)  # exact, not the float16 copy that travelled
    log = (args.work / "log.jsonl").read_text()
    assert '"kit":' in log and json.loads((back / "result.json").read_text())["step"] >= 2
