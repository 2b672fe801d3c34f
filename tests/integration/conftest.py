"""Fixtures shared by the integration tests: the shipped back-ends and the example passages
(a module may define its own `backends` to load other roles)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conflictdesk.errors import ModelMissingError
from conflictdesk.types import Passage

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def backends():
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config

    try:
        return load_backends(load_config(), roles=("embedder", "nli", "pair"))
    except ModelMissingError as exc:
        pytest.skip(f"embedded models not built: {exc}")


@pytest.fixture(scope="module")
def example_passages() -> list[Passage]:
    """Every chunk of every file in examples/docs, as passages."""
    from conflictdesk.ingest.chunking import chunk_text
    from conflictdesk.ingest.readers import discover, read_file

    passages: list[Passage] = []
    for path, _ in discover([EXAMPLES / "docs"]):
        for doc in read_file(path).documents:
            for chunk in chunk_text(doc.text):
                passages.append(
                    Passage(len(passages), chunk.text, title=doc.title, date=doc.date,
                            source=doc.source, url=doc.url)
                )  # fmt: skip
    return passages


@pytest.fixture(scope="session")
def llama_server():
    """llama-cpp-python's own OpenAI-compatible server (`python -m llama_cpp.server`) serving
    the SmolLM2 fixture as "smollm2" on a free loopback port, for the whole session."""
    import importlib.util

    from conflictdesk.training.artefacts import smollm2_gguf
    from tests.servers import LlamaServer

    gguf = smollm2_gguf()
    if gguf is None:
        pytest.skip("the SmolLM2 GGUF fixture is not installed (scripts/setup.sh)")
    missing = [m for m in ("uvicorn", "fastapi", "sse_starlette", "starlette_context",
                           "pydantic_settings") if importlib.util.find_spec(m) is None]  # fmt: skip
    assert not missing, f"llama_cpp.server needs {missing}: run scripts/setup.sh (test extra)"
    server = LlamaServer(gguf, alias="smollm2")
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def mpnet_tier():
    """(manifest entry, folder) of the shipped MPNet tier, verified; skips when none is built."""
    from conflictdesk.backends.manifest import Manifest, models_dir
    from conflictdesk.backends.nli_tiers import ROLE

    base = models_dir()
    entries = Manifest.load(base / "manifest.json").by_role(ROLE)
    if not entries:
        pytest.skip("no MPNet tier built (scripts/train_nli_mpnet.py)")
    entries[-1].verify(base)
    return entries[-1], entries[-1].resolve(base)
