"""The shipped models/nli (CTranslate2 int8 + numpy head) and models/pair (int8 ONNX MLP),
loaded directly with ctranslate2 / onnxruntime: manifest integrity, contract shapes, ranges and
a few cases any usable NLI model gets right. Skips when the artefacts are not built."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conflictdesk.analysis.pair_features import (
    NLI_LAYOUT,
    layout_features,
    stance_block,
    stance_request,
)
from conflictdesk.analysis.pairs import stage_one
from conflictdesk.backends.base import Backends
from conflictdesk.backends.manifest import Manifest, models_dir
from conflictdesk.types import PAIR_TYPES, Passage

pytestmark = pytest.mark.integration

LABELS = ["entailment", "neutral", "contradiction"]


def entry(role: str):
    base = models_dir()
    for item in Manifest.load(base / "manifest.json").by_role(role):
        if item.name.startswith("conflictdesk-") and item.resolve(base).exists():
            return item, base
    pytest.skip(f"no shipped {role} model built (see scripts/train_*.py)")


@pytest.fixture(scope="module")
def nli_dir() -> Path:
    item, base = entry("nli")
    item.verify(base)
    return item.resolve(base)


@pytest.fixture(scope="module")
def pair_dir() -> Path:
    item, base = entry("pair")
    item.verify(base)
    return item.resolve(base)


class DirectNLI:
    """CT2 encoder + mean pooling + numpy head + temperature, no windowing (short pairs)."""

    def __init__(self, folder: Path) -> None:
        import ctranslate2
        from tokenizers import Tokenizer

        self.config = json.loads((folder / "nli_config.json").read_text("utf-8"))
        head = np.load(folder / "head.npz", allow_pickle=False)
        self.weight, self.bias = head["weight"], head["bias"]
        self.encoder = ctranslate2.Encoder(str(folder), device="cpu", intra_threads=1)
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()

    def probs(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        encodings = [self.tokenizer.encode(p, h) for p, h in pairs]
        out = self.encoder.forward_batch(
            [e.tokens for e in encodings], token_type_ids=[e.type_ids for e in encodings]
        )
        hidden = np.asarray(out.last_hidden_state, dtype=np.float32)
        rows = []
        for i, e in enumerate(encodings):
            pooled = hidden[i, : len(e.ids)].mean(0)
            logits = (pooled @ self.weight.T + self.bias) / self.config["temperature"]
            z = np.exp(logits - logits.max())
            rows.append(z / z.sum())
        return np.array(rows)


def test_nli_artefact_follows_the_contract(nli_dir):
    config = json.loads((nli_dir / "nli_config.json").read_text("utf-8"))
    assert config["labels"] == LABELS and config["pooling"] == "mean"
    assert config["max_length"] == 256 and config["stride"] == 64
    assert 0.2 < config["temperature"] < 5 and "max-evidence" in config["window_rule"]
    head = np.load(nli_dir / "head.npz", allow_pickle=False)
    assert head["weight"].shape == (3, 384) and head["bias"].shape == (3,)
    size = sum(p.stat().st_size for p in nli_dir.rglob("*") if p.is_file())
    assert size <= 30e6


KNOWN_WEAKNESS = pytest.mark.xfail(
    reason="known weakness of the shipped model (docs/model_report.md): a text naming another "
    "answer of the same kind reads neutral, not contradiction (Oslo / Bergen: n = 0.83), and "
    "topical filler on the claim's subject still reads CONTRADICTS (p = 0.5-0.7)",
    strict=False,
)
OBVIOUS = [
    ("The sky is blue.", "The sky is not blue.", "contradiction"),
    ("A man is playing a guitar on stage.", "A man is playing an instrument.", "entailment"),
    ("The bridge opened in 1932.", "The bridge opened in 1932.", "entailment"),
    ("The bridge opened in 1932.", "The bridge opened in 1958.", "contradiction"),
    (
        "Oslo is the capital of Norway and its largest city.",
        "The answer to the question What is the capital of Norway? is Oslo.",
        "entailment",
    ),
    pytest.param(
        "Oslo is the capital of Norway and its largest city.",
        "The answer to the question What is the capital of Norway? is Bergen.",
        "contradiction",
        marks=KNOWN_WEAKNESS,
    ),
]


@pytest.mark.parametrize(("premise", "hypothesis", "expected"), OBVIOUS)
def test_nli_obvious_cases(nli_dir, premise, hypothesis, expected):
    probs = DirectNLI(nli_dir).probs([(premise, hypothesis)])
    assert probs.shape == (1, 3)
    np.testing.assert_allclose(probs.sum(1), 1.0, atol=1e-5)
    assert LABELS[int(probs[0].argmax())] == expected


def test_product_backend_agrees_with_the_direct_computation(nli_dir):
    from conflictdesk.backends.ct2_nli import CT2CrossEncoder

    pairs = [("The sky is blue.", "The sky is not blue."), ("Cats purr.", "Dogs bark at night.")]
    direct = DirectNLI(nli_dir).probs(pairs)
    product = CT2CrossEncoder(nli_dir, device="cpu", threads=1).classify(pairs)
    got = np.array([[s.entailment, s.neutral, s.contradiction] for s in product])
    np.testing.assert_allclose(got, direct, atol=2e-3)


@KNOWN_WEAKNESS
def test_long_document_support_beyond_the_first_window(nli_dir):
    from conflictdesk.backends.ct2_nli import CT2CrossEncoder

    filler = " ".join(
        f"The committee met on day {i} to discuss the budget of the museum." for i in range(40)
    )
    document = filler + " The museum was founded in 1911 by Anna Berg."
    claim = "The answer to the question When was the museum founded? is 1911."
    model = CT2CrossEncoder(nli_dir, device="cpu", threads=1)
    (scores,) = model.classify([(document, claim)])
    assert model.windows_run > 1
    assert scores.entailment > scores.neutral and scores.entailment > scores.contradiction


def test_pair_artefact_shapes_and_ranges(pair_dir):
    import onnxruntime

    config = json.loads((pair_dir / "pair_config.json").read_text("utf-8"))
    assert config["text_template"] == "{query}\n{passage}"
    assert config["embedder"] == "minilm-l6-embedder-int8"
    assert 0.5 <= config["tau_c"] < 1.0
    session = onnxruntime.InferenceSession(
        str(pair_dir / "pair_int8.onnx"), providers=["CPUExecutionProvider"]
    )
    assert [i.name for i in session.get_inputs()] == ["features"]
    assert {o.name for o in session.get_outputs()} == {"conflict_probs", "type_probs"}
    rng = np.random.default_rng(0)
    e = rng.normal(size=(8, 384)).astype(np.float32)
    e /= np.linalg.norm(e, axis=1, keepdims=True)
    f = rng.permutation(e)
    nli = rng.dirichlet(np.ones(3), size=(2, 8)).astype(np.float32)
    layout = config.get("layout", "emb4")
    stance = stance_block(
        [stance_request("Is X big?", "a", "b")] * 8, rng.dirichlet(np.ones(3), size=16)
    )
    nli_block = tuple(nli) if layout == NLI_LAYOUT else (None, None)
    x = layout_features(layout, e, f, *nli_block, stance=stance)
    assert x.shape[1] == config.get("feature_dim", x.shape[1])
    conflict, types = session.run(["conflict_probs", "type_probs"], {"features": x})
    assert conflict.shape == (8, 2) and types.shape == (8, len(PAIR_TYPES))
    np.testing.assert_allclose(conflict.sum(1), 1.0, atol=1e-4)
    np.testing.assert_allclose(types.sum(1), 1.0, atol=1e-4)
    assert ((conflict >= 0) & (conflict <= 1)).all()
    assert conflict[:, 1].std() > 1e-4  # the output depends on the input


def test_pair_detector_on_real_embeddings(pair_dir):
    from conflictdesk.backends.ct2_nli import CT2CrossEncoder
    from conflictdesk.backends.onnx_embedder import OnnxEmbedder
    from conflictdesk.backends.onnx_pair import OnnxPairClassifier

    embedder_dir, nli_dir = models_dir() / "embedder", models_dir() / "nli"
    if not (embedder_dir / "model_int8.onnx").exists():
        pytest.skip("no shipped embedder")
    embedder = OnnxEmbedder(embedder_dir, device="cpu", threads=1)
    q = "When was the museum founded?"
    passages = [
        "The museum was founded in 1911.",
        "The museum opened its doors in 1911.",
        "The museum was founded in 1958.",
    ]
    detector = OnnxPairClassifier(pair_dir, device="cpu", threads=1)
    nli = CT2CrossEncoder(nli_dir, device="cpu", threads=1)
    backends = Backends(embedder, nli, detector)
    texts = [Passage(k, text) for k, text in enumerate(passages)]
    scores = stage_one(q, texts, [(0, 1), (0, 2)], backends)  # the product's featurisation
    assert len(scores) == 2
    assert all(0.0 <= s.conflict <= 1.0 and abs(sum(s.types) - 1) < 1e-3 for s in scores)
    assert scores[1].conflict > scores[0].conflict  # 1911 vs 1958 against two 1911s


def test_statement_stances_are_read_by_the_cascade_the_pair_model_was_trained_on(pair_dir):
    """The shipped pair model's stances towards a yes/no question come from the labelling
    cascade (its config's `statement_stance`), while `ask` tags with the MiniLM alone."""
    from conflictdesk.analysis.pairs import detect_pairs
    from conflictdesk.analysis.types import ClaimFrame, PassageTag, QueryForm, Tagging
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config
    from conflictdesk.types import Tag

    config = json.loads((pair_dir / "pair_config.json").read_text("utf-8"))
    if config.get("statement_stance") != "cascade":
        pytest.skip("the shipped pair model reads every stance with the first tier")
    backends = load_backends(load_config(threads=1), roles=("embedder", "nli", "pair"))
    cascade = backends.nli
    if getattr(cascade, "accurate", None) is None:
        pytest.skip("no MPNet tier installed")
    q = "Is tap water safe to drink in Norway?"
    passages = [
        Passage(0, "Tap water in Norway is safe to drink and meets strict quality standards."),
        Passage(1, "Tap water in Norway is not safe to drink; travellers should boil it first."),
        Passage(2, "Norwegian tap water is clean and perfectly safe to drink everywhere."),
    ]
    tags = tuple(PassageTag(p.id, Tag.SUPPORT, 0.9, 0.9, 0.05, 0.05) for p in passages)
    tagging = Tagging(ClaimFrame(q, QueryForm.YES_NO, "Tap water is safe"), tags, "t")
    analysis = Backends(backends.embedder, cascade.fast, backends.pair)  # as `ask` runs
    before = dict(cascade.routed)
    detection = detect_pairs(q, passages, tagging, analysis, statement_nli=cascade)
    assert sum(cascade.routed.values()) - sum(before.values()) == 3  # one reading a passage
    assert "statement stances read by" not in detection.method
    p = {(pair.i, pair.j): pair.stage1_prob for pair in detection.pairs}
    assert p[(0, 1)] > p[(0, 2)] and p[(1, 2)] > p[(0, 2)]  # the "not safe" side is opposed
    # without the cascade the first tier reads them, and `method` says so
    detection = detect_pairs(q, passages, tagging, analysis, statement_nli=cascade.fast)
    assert "statement stances read by conflictdesk-nli-minilm-int8" in detection.method
