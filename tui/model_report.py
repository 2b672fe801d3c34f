"""The Models screen's report: manifest entries with their state, the method each stage runs
(with or without the GGUF LLM) and the device the runtimes will use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

# Stages that never use the LLM, with the method they run (for the stage table).
FIXED_STAGES: tuple[tuple[str, str], ...] = (
    ("retrieval", "BM25 + dense ({embedder}), reciprocal rank fusion"),
    ("cluster", "embedding clusters ({embedder})"),
    ("kappa", "ConRAG κ and δ rule (no model)"),
    ("packet", "ConRAG balanced packet (no model)"),
)


def model_report(config: Any, verify: bool = False) -> dict[str, Any]:
    from conflictdesk.backends.manifest import Manifest
    from conflictdesk.backends.registry import capabilities

    base = Path(config.models_dir)
    manifest = Manifest.load(base / "manifest.json")
    caps = capabilities(config)
    models = [_entry_row(entry, base, verify) for entry in manifest.entries]
    if config.llm_path and not any(r["role"] == "llm" for r in models):
        path = Path(config.llm_path)
        models.append({"name": path.name, "role": "llm",
                       "status": "present" if path.exists() else "missing",
                       "detail": f"{path} (configured, not in the manifest)"})
    embedder = caps.models.get("embedder") or "no embedder"
    stages = [{"stage": name, "method": method.format(embedder=embedder), "llm": False}
              for name, method in FIXED_STAGES]
    for stage, method in caps.to_json()["stages"].items():
        stages.append({"stage": stage, "method": method, "llm": "llm" in method})
    return {"device": device_summary(config.device), "llm": caps.models.get("llm"),
            "llm_ready": caps.llm, "notes": list(caps.notes), "models": models,
            "stages": stages}


def _entry_row(entry: Any, base: Path, verify: bool) -> dict[str, Any]:
    from conflictdesk.backends.registry import verify_entry
    from conflictdesk.errors import ModelIntegrityError, ModelMissingError

    row = {"name": entry.name, "role": entry.role, "detail": str(entry.resolve(base))}
    if not verify:
        row["status"] = "present" if entry.resolve(base).exists() else "missing"
        return row
    try:
        verify_entry(entry, base, cache=None)
        row["status"] = "verified"
    except ModelMissingError as exc:
        row.update(status="missing", detail=str(exc))
    except ModelIntegrityError as exc:
        row.update(status="mismatch", detail=str(exc))
    return row


def device_summary(requested: str) -> str:
    """"cpu", "cuda", or what "auto" resolves to for ONNX Runtime and CTranslate2."""
    if requested != "auto":
        return requested
    found = []
    try:
        import onnxruntime

        if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
            found.append("onnxruntime")
    except ImportError:
        pass
    try:
        import ctranslate2

        if ctranslate2.get_cuda_device_count() > 0:
            found.append("ctranslate2")
    except ImportError:
        pass
    return f"auto → cuda ({', '.join(found)})" if found else "auto → cpu"
