"""The CTranslate2 model.bin reader: the binary layout, int8 dequantization, BERT name mapping."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from conflictdesk.training import ct2_weights

CODES = {np.dtype(np.float32): 0, np.dtype(np.int8): 1, np.dtype(np.int16): 2}


def _string(text: str) -> bytes:
    raw = text.encode("utf-8") + b"\0"
    return struct.pack("<H", len(raw)) + raw


def write_model(path, variables: dict[str, np.ndarray], aliases=()) -> None:
    """A model.bin in CTranslate2's layout (version 6)."""
    out = struct.pack("<I", 6) + _string("TransformerEncoderSpec") + struct.pack("<I", 1)
    out += struct.pack("<I", len(variables))
    for name, value in variables.items():
        out += _string(name) + bytes([value.ndim])
        out += b"".join(struct.pack("<I", d) for d in value.shape)
        out += bytes([CODES[value.dtype]]) + struct.pack("<I", value.nbytes) + value.tobytes()
    out += struct.pack("<I", len(aliases))
    out += b"".join(_string(a) + _string(t) for a, t in aliases)
    path.write_bytes(out)


def test_read_variables_round_trips_names_shapes_and_aliases(tmp_path):
    variables = {
        "encoder/num_heads": np.array(12, dtype=np.int16),
        "x/weight": np.arange(6, dtype=np.int8).reshape(2, 3),
        "x/weight_scale": np.array([2.0, 4.0], dtype=np.float32),
        "x/bias": np.array([0.5, -1.5], dtype=np.float32),
    }
    write_model(tmp_path / "model.bin", variables, aliases=[("y/bias", "x/bias")])
    got = ct2_weights.read_variables(tmp_path / "model.bin")
    assert set(got) == set(variables) | {"y/bias"}
    assert int(got["encoder/num_heads"]) == 12
    np.testing.assert_array_equal(got["x/weight"], variables["x/weight"])
    np.testing.assert_array_equal(got["y/bias"], variables["x/bias"])


def test_dequantized_divides_each_row_by_its_scale_and_drops_scales():
    variables = {
        "x/weight": np.array([[2, -4], [8, 12]], dtype=np.int8),
        "x/weight_scale": np.array([2.0, 4.0], dtype=np.float32),
        "x/bias": np.array([1.0, 2.0], dtype=np.float32),
    }
    got = ct2_weights.dequantized(variables)
    assert set(got) == {"x/weight", "x/bias"}
    np.testing.assert_allclose(got["x/weight"], [[1.0, -2.0], [2.0, 3.0]])
    np.testing.assert_array_equal(got["x/bias"], variables["x/bias"])


def test_old_binary_version_is_refused(tmp_path):
    (tmp_path / "model.bin").write_bytes(struct.pack("<I", 3))
    with pytest.raises(ValueError, match="version 3"):
        ct2_weights.read_variables(tmp_path / "model.bin")


def _tiny_bert(hidden: int = 4, ffn: int = 8) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)

    def f(*shape):
        return rng.normal(size=shape).astype(np.float32)

    out = {
        "encoder/embeddings_0/weight": f(10, hidden),
        "encoder/embeddings_1/weight": f(2, hidden),
        "encoder/position_encodings/encodings": f(16, hidden),
        "encoder/layernorm_embedding/gamma": f(hidden),
        "encoder/layernorm_embedding/beta": f(hidden),
    }
    layer = "encoder/layer_0/"
    shapes = {
        "self_attention/linear_0": (3 * hidden, hidden),
        "self_attention/linear_1": (hidden, hidden),
        "ffn/linear_0": (ffn, hidden),
        "ffn/linear_1": (hidden, ffn),
    }
    for name, shape in shapes.items():
        out[layer + name + "/weight"] = f(*shape)
        out[layer + name + "/bias"] = f(shape[0])
    for norm in ("self_attention/layer_norm", "ffn/layer_norm"):
        out[layer + norm + "/gamma"] = f(hidden)
        out[layer + norm + "/beta"] = f(hidden)
    return out


def test_bert_state_dict_splits_fused_qkv_in_query_key_value_order(tmp_path):
    variables = _tiny_bert()
    write_model(tmp_path / "model.bin", variables)
    state = ct2_weights.bert_state_dict(tmp_path / "model.bin")
    qkv = variables["encoder/layer_0/self_attention/linear_0/weight"]
    np.testing.assert_array_equal(state["encoder.layer.0.attention.self.query.weight"], qkv[:4])
    np.testing.assert_array_equal(state["encoder.layer.0.attention.self.key.weight"], qkv[4:8])
    np.testing.assert_array_equal(state["encoder.layer.0.attention.self.value.weight"], qkv[8:])
    assert state["encoder.layer.0.output.LayerNorm.weight"].shape == (4,)
    assert state["embeddings.position_embeddings.weight"].shape == (16, 4)
    assert len(state) == 5 + 16  # embeddings + one layer's 16 tensors, no pooler
