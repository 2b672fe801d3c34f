"""Read a CTranslate2 `model.bin` back into float arrays (training only: a shipped int8
encoder becomes the starting point of a continued fine-tune when its torch checkpoint is gone).

Format (CTranslate2 model spec, version 6): uint32 binary version, a length-prefixed spec name,
uint32 spec revision, uint32 variable count, then per variable its name, uint8 rank, rank x
uint32 dimensions, uint8 data type, uint32 byte count and the raw bytes; then uint32 alias
count and (alias, target) name pairs. Strings are a uint16 length (terminating NUL included).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

import numpy as np

# CTranslate2's DataType enum, in order.
_DTYPES = {
    0: np.float32,
    1: np.int8,
    2: np.int16,
    3: np.int32,
    4: np.float16,
}
SCALE_SUFFIX = "/weight_scale"


def _u32(handle: BinaryIO) -> int:
    return struct.unpack("<I", handle.read(4))[0]


def _string(handle: BinaryIO) -> str:
    length = struct.unpack("<H", handle.read(2))[0]
    return handle.read(length).rstrip(b"\0").decode("utf-8")


def read_variables(path: Path) -> dict[str, np.ndarray]:
    """Every variable of a CTranslate2 model file as stored (int8 weights stay int8)."""
    out: dict[str, np.ndarray] = {}
    with open(path, "rb") as handle:
        version = _u32(handle)
        if version < 5:
            raise ValueError(f"{path}: CTranslate2 binary version {version} is not supported")
        _string(handle)  # spec name
        _u32(handle)  # spec revision
        for _ in range(_u32(handle)):
            name = _string(handle)
            rank = handle.read(1)[0]
            shape = [_u32(handle) for _ in range(rank)]
            dtype = _DTYPES.get(handle.read(1)[0])
            size = _u32(handle)
            raw = handle.read(size)
            if dtype is None:
                raise ValueError(f"{path}: variable {name} has an unsupported data type")
            out[name] = np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
        for _ in range(_u32(handle)):
            alias, target = _string(handle), _string(handle)
            out[alias] = out[target]
    return out


def dequantized(variables: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Float32 weights: an int8 `.../weight` with a per-row `.../weight_scale` becomes
    int8 / scale; the scales themselves are dropped."""
    out: dict[str, np.ndarray] = {}
    for name, value in variables.items():
        if name.endswith(SCALE_SUFFIX):
            continue
        scale = (
            variables.get(name[: -len("/weight")] + SCALE_SUFFIX)
            if name.endswith("/weight")
            else None
        )
        if scale is not None:
            value = value.astype(np.float32) / scale.astype(np.float32).reshape(-1, 1)
        out[name] = value
    return out


def _layer_state(variables: dict[str, np.ndarray], index: int) -> dict[str, np.ndarray]:
    src, dst = f"encoder/layer_{index}/", f"encoder.layer.{index}."
    qkv_w = variables[src + "self_attention/linear_0/weight"]
    qkv_b = variables[src + "self_attention/linear_0/bias"]
    state: dict[str, np.ndarray] = {}
    for part, (w, b) in zip(
        ("query", "key", "value"), zip(np.split(qkv_w, 3), np.split(qkv_b, 3)), strict=True
    ):
        state[dst + f"attention.self.{part}.weight"] = w
        state[dst + f"attention.self.{part}.bias"] = b
    pairs = {
        "self_attention/linear_1": "attention.output.dense",
        "self_attention/layer_norm": "attention.output.LayerNorm",
        "ffn/linear_0": "intermediate.dense",
        "ffn/linear_1": "output.dense",
        "ffn/layer_norm": "output.LayerNorm",
    }
    for ct2_name, hf_name in pairs.items():
        state.update(_linear_or_norm(variables, src + ct2_name, dst + hf_name))
    return state


def _linear_or_norm(variables: dict[str, np.ndarray], src: str, dst: str) -> dict[str, np.ndarray]:
    if src + "/gamma" in variables:
        return {dst + ".weight": variables[src + "/gamma"], dst + ".bias": variables[src + "/beta"]}
    return {dst + ".weight": variables[src + "/weight"], dst + ".bias": variables[src + "/bias"]}


def bert_state_dict(path: Path) -> dict[str, np.ndarray]:
    """A Hugging Face BertModel state dict (numpy, float32) from a CTranslate2 encoder
    converted from BERT (post-norm, fused QKV, learned positions, token types)."""
    variables = dequantized(read_variables(path))
    state = {
        "embeddings.word_embeddings.weight": variables["encoder/embeddings_0/weight"],
        "embeddings.token_type_embeddings.weight": variables["encoder/embeddings_1/weight"],
        "embeddings.position_embeddings.weight": variables["encoder/position_encodings/encodings"],
    }
    state.update(_linear_or_norm(variables, "encoder/layernorm_embedding", "embeddings.LayerNorm"))
    layers = sorted(
        {int(n.split("/")[1].split("_")[1]) for n in variables if n.startswith("encoder/layer_")}
    )
    for index in layers:
        state.update(_layer_state(variables, index))
    if "pooler_dense/weight" in variables:
        state.update(_linear_or_norm(variables, "pooler_dense", "pooler.dense"))
    return {name: np.ascontiguousarray(value, dtype=np.float32) for name, value in state.items()}
