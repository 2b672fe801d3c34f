"""The dequantized weights read back from the shipped models/nli/model.bin reproduce what
CTranslate2 computes: a plain numpy BERT forward on them gives the same labels (no torch)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from conflictdesk.training import ct2_weights
from conflictdesk.training.artefacts import shipped_entry

pytestmark = pytest.mark.integration

PAIRS = [
    (
        "The bridge opened to traffic in 1932 after four years of work.",
        "The bridge opened in 1932.",
    ),
    (
        "The bridge opened to traffic in 1932 after four years of work.",
        "The bridge opened in 1958.",
    ),
    ("Mara bought apples at the market on Sunday.", "The city council met on Monday."),
    ("The drug is approved for adults but not for children.", "Children may take the drug."),
    ("Rainfall this year was twice the ten-year average.", "It was a wet year."),
    ("The company reported a loss for the third straight quarter.", "The company made a profit."),
]
_erf = np.vectorize(math.erf)


def _norm(x, gamma, beta, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def _layer(x, s, i, heads):
    p = f"encoder.layer.{i}."
    n, d = x.shape
    qkv = [
        (x @ s[p + f"attention.self.{k}.weight"].T + s[p + f"attention.self.{k}.bias"])
        .reshape(n, heads, d // heads)
        .transpose(1, 0, 2)
        for k in ("query", "key", "value")
    ]
    att = qkv[0] @ qkv[1].transpose(0, 2, 1) / math.sqrt(d // heads)
    att = np.exp(att - att.max(-1, keepdims=True))
    ctx = (att / att.sum(-1, keepdims=True) @ qkv[2]).transpose(1, 0, 2).reshape(n, d)
    out = ctx @ s[p + "attention.output.dense.weight"].T + s[p + "attention.output.dense.bias"]
    ln = p + "attention.output.LayerNorm."
    x = _norm(x + out, s[ln + "weight"], s[ln + "bias"])
    h = x @ s[p + "intermediate.dense.weight"].T + s[p + "intermediate.dense.bias"]
    h = 0.5 * h * (1 + _erf(h / math.sqrt(2)))
    h = h @ s[p + "output.dense.weight"].T + s[p + "output.dense.bias"]
    return _norm(x + h, s[p + "output.LayerNorm.weight"], s[p + "output.LayerNorm.bias"])


def numpy_bert(state, ids, types, heads=12) -> np.ndarray:
    x = (
        state["embeddings.word_embeddings.weight"][ids]
        + state["embeddings.token_type_embeddings.weight"][types]
        + state["embeddings.position_embeddings.weight"][: len(ids)]
    )
    x = _norm(x, state["embeddings.LayerNorm.weight"], state["embeddings.LayerNorm.bias"])
    layers = len({k.split(".")[2] for k in state if k.startswith("encoder.layer.")})
    for i in range(layers):
        x = _layer(x, state, i, heads)
    return x


def test_dequantized_shipped_weights_reproduce_ct2_logits():
    import ctranslate2
    from tokenizers import Tokenizer

    shipped = shipped_entry("nli")
    if not shipped:
        pytest.skip("no models/nli in the manifest")
    folder = shipped[0].resolve(shipped[1])
    state = ct2_weights.bert_state_dict(folder / "model.bin")
    head = np.load(folder / "head.npz")
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    encodings = [tok.encode(p, h) for p, h in PAIRS]
    vocab = json.loads((folder / "tokenizer.json").read_text("utf-8"))["model"]["vocab"]
    inverse = {v: k for k, v in vocab.items()}
    encoder = ctranslate2.Encoder(str(folder), device="cpu", intra_threads=1)
    mine, theirs = [], []
    for enc in encodings:
        hidden = numpy_bert(state, np.array(enc.ids), np.array(enc.type_ids))
        mine.append(hidden.mean(0) @ head["weight"].T + head["bias"])
        result = encoder.forward_batch(
            [[inverse[i] for i in enc.ids]], token_type_ids=[enc.type_ids]
        )
        pooled = np.array(result.last_hidden_state, dtype=np.float32)[0].mean(0)
        theirs.append(pooled @ head["weight"].T + head["bias"])
    mine, theirs = np.array(mine), np.array(theirs)
    assert (mine.argmax(1) == theirs.argmax(1)).all()
    assert np.abs(mine - theirs).max() < 0.5  # int8 activations in CT2, float here
