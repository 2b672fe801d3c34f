"""ConflictScore on the shipped embedded NLI model (and the SmolLM2 GGUF for the LLM paths):
labels, ranges, windowing and the cache, not exact scores."""

from __future__ import annotations

import importlib.util
import json

import pytest

from conflictdesk.errors import ModelMissingError
from conflictdesk.training.artefacts import shipped_entry, smollm2_gguf
from conflictdesk.types import Relation

pytestmark = pytest.mark.integration

S, C, I = Relation.SUPPORTS, Relation.CONTRADICTS, Relation.IRRELEVANT
CLAIM = "Broken Bow had a population of 3,559 people in 2010."
DOCS = [
    "In the 2010 census, 3,559 people, 1,575 households and 909 families lived in Broken Bow.",
    "In the 2010 census, 10,000 people, 4,200 households and 2,500 families lived in Broken Bow.",
    "Bobby Carpenter is a former American football linebacker who played for the Dallas Cowboys.",
]


@pytest.fixture(scope="module")
def backends():
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config

    if shipped_entry("nli") is None:
        pytest.skip("models/nli is not in the manifest yet")
    try:
        return load_backends(load_config(threads=2, device="cpu"), roles=("nli",))
    except ModelMissingError as exc:
        pytest.skip(str(exc))


def test_detect_labels_support_contradiction_and_irrelevance(backends):
    from conflictdesk.scoring import detect

    result = detect(CLAIM, DOCS, backends)
    assert result.claim.relations == (S, C, I)
    assert result.conflict is True
    assert [j.labeller for j in result.claim.judgments] == ["nli", "nli", "gate"]
    ungated = detect(CLAIM, DOCS, backends, gate=False)
    # Without the gate the encoder judges the unrelated third document too; this model often
    # calls unrelated text CONTRADICTS (why the gate is on by default), so only the first two
    # relations are asserted here.
    assert ungated.claim.relations[:2] == (S, C)
    for judgment in ungated.claim.judgments:
        assert judgment.labeller == "nli"
        assert 1 / 3 <= judgment.confidence <= 1.0
        assert sum(judgment.probabilities) == pytest.approx(1.0, abs=1e-4)


def test_supporting_sentence_deep_in_a_long_document_is_found(backends):
    """The max-evidence window rule keeps the window with the largest max(entailment,
    contradiction): unrelated filler windows must read neutral, or their contradiction
    outranks the supporting window (the step-2000 model failed here)."""
    from conflictdesk.scoring import detect

    filler = "The county fair featured livestock shows, quilts and a parade downtown. " * 60
    long_doc = filler + DOCS[0] + " " + filler
    before = backends.nli.windows_run
    result = detect(CLAIM, [long_doc], backends)
    assert backends.nli.windows_run - before > 1  # windowed
    assert result.claim.relations == (S,)


def test_score_response_and_cached_rerun(backends, tmp_path):
    from conflictdesk.scoring import score_response
    from conflictdesk.store import Store

    response = f"{CLAIM} Bobby Carpenter played American football for the Dallas Cowboys."
    with Store.open(tmp_path / "cd.db") as store:
        first = score_response(response, DOCS, backends, cache=store.cache)
        again = score_response(response, DOCS, backends, cache=store.cache)
    assert len(first.claims) == 2
    assert first.claims[0].conflict is True
    assert first.claims[1].relations[2] is S
    assert first.cs_c == pytest.approx(0.5)
    assert 0.0 <= first.cs_r <= 1.0
    assert first.cache.hits == 0 and again.cache.hits == again.cache.total == first.cache.total
    assert [c.relations for c in again.claims] == [c.relations for c in first.claims]


def test_cli_detect_on_real_models(tmp_path, capsys):
    from conflictdesk.cli import main

    if shipped_entry("nli") is None:
        pytest.skip("models/nli is not in the manifest yet")
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"id": "x", "claim": CLAIM, "documents": DOCS}) + "\n", "utf-8")
    code = main(["detect", str(path), "--db", str(tmp_path / "cd.db"), "--threads", "2",
                 "--device", "cpu"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["relations"] == ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]
    assert out["method"].startswith("labels=nli(") and "conflictdesk-nli-minilm" in out["method"]


@pytest.fixture(scope="module")
def llm():
    if importlib.util.find_spec("llama_cpp") is None or smollm2_gguf() is None:
        pytest.skip("llama-cpp-python or the SmolLM2 GGUF is not installed")
    from conflictdesk.backends.llama_cpp import LlamaCppGenerator

    return LlamaCppGenerator(smollm2_gguf(), model_id="smollm2-135m", n_ctx=4096, threads=2)


@pytest.fixture(scope="module")
def llm_backends(backends, llm):
    from conflictdesk.backends.base import Backends

    return Backends(embedder=backends.embedder, nli=backends.nli, llm=llm)


def test_table7_labels_are_a_distribution_on_a_real_gguf(llm):
    """SmolLM2-135M answers near chance: structure only. The encoder is not needed here."""
    from conflictdesk.backends.base import Backends
    from conflictdesk.backends.registry import UnloadedBackend
    from conflictdesk.scoring import detect

    only_llm = Backends(embedder=UnloadedBackend("embedder"), nli=UnloadedBackend("nli"), llm=llm)
    result = detect(CLAIM, DOCS[:2], only_llm, labeller="llm")
    for judgment in result.claim.judgments:
        assert judgment.labeller == "llm"
        assert sum(judgment.probabilities) == pytest.approx(1.0, abs=1e-4)
    assert result.method.startswith("labels=llm-table7(smollm2-135m)")


def test_regenerate_on_a_real_gguf(llm_backends):
    from conflictdesk.scoring import regenerate

    result = regenerate(
        "What was the population of Broken Bow in 2010?", CLAIM, DOCS, llm_backends,
        decomposer="splitter",
    )  # fmt: skip
    assert result.selected is not None and result.selected.conflict
    assert isinstance(result.revised_response, str) and result.revised_response.strip()
    assert result.after is not None and result.after.cs_c is not None
