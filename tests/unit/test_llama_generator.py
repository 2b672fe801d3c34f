"""LlamaCppGenerator's logic over FakeLlamaEngine: label rules, JSON retry, truncation."""

import math

import pytest

from conflictdesk.backends.llama_cpp import LlamaCppGenerator
from conflictdesk.backends.schema import SchemaError
from conflictdesk.errors import InputError, ModelOutputError
from tests.fakes import FakeLlamaEngine

LABELS = ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]
SCHEMA = {
    "type": "object",
    "properties": {"label": {"type": "string", "enum": LABELS}},
    "required": ["label"],
}


def make(n_ctx: int = 2048) -> tuple[LlamaCppGenerator, FakeLlamaEngine]:
    engine = FakeLlamaEngine(n_ctx=n_ctx)
    return LlamaCppGenerator("fake.gguf", model_id="fake", engine=engine), engine


def messages(document: str, claim: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"<document>{document}</document> Claim: {claim}"}]


def test_first_token_rule_is_softmax_of_label_logits():
    generator, engine = make()
    engine.logits = {engine.token("SUPPORTS"): 2.0, engine.token("CONTRADICTS"): 0.0}
    scores = generator.score_labels(messages("doc", "claim"), LABELS)
    assert generator.last_label_rule == "first-token"
    assert sum(scores.values()) == pytest.approx(1.0)
    expected = math.exp(2) / (math.exp(2) + 2)
    assert scores["SUPPORTS"] == pytest.approx(expected)
    assert scores["CONTRADICTS"] == pytest.approx(scores["IRRELEVANT"])
    assert len(engine.history) == 1  # one forward pass


def test_labels_sharing_a_first_token_use_full_label_rule():
    generator, engine = make()
    engine.logits = {engine.token("supported"): 1.0}
    scores = generator.score_labels(messages("d", "c"), ["not supported", "not refuted"])
    assert generator.last_label_rule == "full-label"
    assert sum(scores.values()) == pytest.approx(1.0)
    assert scores["not supported"] > scores["not refuted"]
    assert len(engine.history) == 4  # two tokens per label, one step each
    assert generator.stats.by_method == {"full-label": 1}


def test_shared_document_prefix_is_reused_across_claims():
    generator, _engine = make()
    document = " ".join(f"w{i}" for i in range(100))
    for claim in ("first claim", "second claim", "third claim"):
        generator.score_labels(messages(document, claim), LABELS)
    assert generator.stats.calls == 3
    assert generator.stats.hits == 2
    assert generator.stats.reused_tokens >= 2 * 100


def test_labels_must_be_distinct():
    generator, _ = make()
    with pytest.raises(ValueError, match="distinct"):
        generator.score_labels(messages("d", "c"), ["A", "A"])


def test_generate_json_returns_valid_value_first_time():
    generator, engine = make()
    engine.answers.extend(['{"label": "CONTRADICTS"}'])
    assert generator.generate_json(messages("d", "c"), SCHEMA) == {"label": "CONTRADICTS"}
    assert engine.history[0]["schema"] == SCHEMA


def test_generate_json_retries_once_with_the_problem_shown():
    generator, engine = make()
    engine.answers.extend(['{"label": "MAYBE"}', '{"label": "SUPPORTS"}'])
    assert generator.generate_json(messages("d", "c"), SCHEMA) == {"label": "SUPPORTS"}
    retry_prompt = engine.detokenize(engine.history[1]["tokens"])
    assert "MAYBE" in retry_prompt and "not valid" in retry_prompt


def test_generate_json_fails_after_second_invalid_answer():
    generator, engine = make()
    engine.answers.extend(["not json", '{"other": 1}', '{"label": "SUPPORTS"}'])
    with pytest.raises(ModelOutputError, match="missing 'label'"):
        generator.generate_json(messages("d", "c"), SCHEMA)
    assert len(engine.answers) == 1  # exactly two attempts


def test_unsupported_schema_is_refused_before_any_call():
    generator, engine = make()
    with pytest.raises(SchemaError):
        generator.generate_json(messages("d", "c"), {"type": "string", "format": "date"})
    assert engine.history == []


def test_long_document_is_truncated_with_a_warning():
    generator, engine = make(n_ctx=120)
    document = " ".join(f"w{i}" for i in range(400))
    with pytest.warns(UserWarning, match="document truncated"):
        generator.score_labels(messages(document, "the claim"), LABELS)
    prompt = engine.detokenize(engine.history[0]["tokens"])
    assert len(engine.history[0]["tokens"]) <= 120 - 1
    assert "w0 w1" in prompt and "w399" not in prompt and "the claim" in prompt


def test_prompt_without_document_span_that_does_not_fit_is_an_error():
    generator, _ = make(n_ctx=64)
    long = [{"role": "user", "content": " ".join(["x"] * 200)}]
    with pytest.raises(InputError, match="no <document>"):
        generator.generate(long, max_tokens=8)


def test_generate_reserves_room_for_the_answer():
    generator, engine = make(n_ctx=300)
    engine.answers.append("ok")
    document = " ".join(f"w{i}" for i in range(280))
    with pytest.warns(UserWarning):
        assert generator.generate(messages(document, "c"), max_tokens=100) == "ok"
    assert len(engine.history[0]["tokens"]) <= 200
