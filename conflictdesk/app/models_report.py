"""The one models report: manifest entries with their state, the method each stage runs
(with or without the GGUF LLM) and the device the runtimes will use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conflictdesk.app.stage_methods import LABELLER_NOTE, stage_methods
from conflictdesk.app.wire import ModelRow, ModelsReport, StageRow
from conflictdesk.backends.manifest import Manifest, ModelEntry
from conflictdesk.backends.registry import capabilities, server_entry, verify_entry
from conflictdesk.config import Settings
from conflictdesk.errors import ModelIntegrityError, ModelMissingError, UsageError
from conflictdesk.stages import FIXED_METHODS


def models_report(settings: Settings, *, verify: bool = False) -> ModelsReport:
    """`verify` hashes every file afresh (no verification cache): the check a person asks for."""
    base = Path(settings.models_dir)
    manifest = Manifest.load(base / "manifest.json")
    caps = capabilities(settings)
    rows = [entry_row(entry, base, verify) for entry in manifest.entries]
    if settings.llm_url:
        rows.append(_configured_server(settings))
    elif settings.llm_path and not any(r.role == "llm" for r in rows):
        rows.append(_configured_llm(Path(settings.llm_path)))
    embedder = caps.models.get("embedder") or "no embedder"
    stages = [StageRow(name, method.format(embedder=embedder), False)
              for name, method in FIXED_METHODS]  # fmt: skip
    stages += stage_methods(settings, caps)
    return ModelsReport(
        manifest=str(manifest.path), device=device_summary(settings.device),
        llm=caps.models.get("llm"), llm_ready=caps.llm, models=tuple(rows),
        stages=tuple(stages), notes=(*caps.notes, LABELLER_NOTE), capabilities=caps.to_json(),
    )  # fmt: skip


def entry_row(entry: ModelEntry, base: Path, verify: bool) -> ModelRow:
    if server_entry(entry):
        return _server_row(entry)
    path = entry.resolve(base)
    status, detail = ("present" if path.exists() else "missing"), str(path)
    if verify:
        status, detail = _verified(entry, base, detail)
    return ModelRow(
        name=entry.name, role=entry.role, path=str(path), status=status, detail=detail,
        files=len(entry.files), licence=entry.licence, source=entry.source,
        rebuild=entry.rebuild, sha256=dict(entry.files), model_id=entry.model_id,
    )  # fmt: skip


def _server_row(entry: ModelEntry) -> ModelRow:
    """A server entry: nothing on disk to hash, and the server is not contacted here."""
    extra = entry.extra
    detail = f"OpenAI-compatible server, model {extra.get('model') or '(the one it serves)'}"
    if extra.get("digest"):
        detail += f", digest pinned {extra['digest']}"
    return ModelRow(
        name=entry.name, role=entry.role, path=str(extra["url"]), status="server", detail=detail,
        files=0, licence=entry.licence, source=entry.source, rebuild=entry.rebuild,
        sha256={}, model_id=f"openai:{extra.get('model') or '?'}",
    )  # fmt: skip


def add_server(
    settings: Settings, url: str, *, name: str | None, model: str | None, digest: str | None,
    licence: str, source: str,
) -> tuple[ModelRow, bool]:  # fmt: skip
    """Register an OpenAI-compatible server as the llm (nothing is contacted or copied)."""
    from urllib.parse import urlsplit

    from conflictdesk.backends.manifest import ModelEntry

    Settings(models_dir=settings.models_dir, llm_url=url)  # validates the URL
    base = Path(settings.models_dir)
    manifest = Manifest.load(base / "manifest.json")
    name = name or model or urlsplit(url).netloc
    flags = "".join(f" --{k} {v}" for k, v in (("model", model), ("digest", digest)) if v)
    entry = ModelEntry(
        name=name, role="llm", path=url, files={}, licence=licence, source=source,
        rebuild=f"conflictdesk models add --url {url} --name {name}{flags}",
        extra={"url": url, "model": model, "digest": digest},
    )  # fmt: skip
    replaced = any(e.name == name for e in manifest.entries)
    manifest.upsert(entry)
    manifest.save()
    return entry_row(entry, base, verify=False), replaced


def _verified(entry: ModelEntry, base: Path, detail: str) -> tuple[str, str]:
    try:
        verify_entry(entry, base, cache=None)
    except ModelMissingError as exc:
        return "missing", str(exc)
    except ModelIntegrityError as exc:
        return "mismatch", str(exc)
    return "verified", detail


def _configured_server(settings: Settings) -> ModelRow:
    model = settings.llm_model or "(the one it serves)"
    return ModelRow(
        name=model, role="llm", path=str(settings.llm_url), status="server",
        detail=f"OpenAI-compatible server (configured), model {model}",
    )  # fmt: skip


def _configured_llm(path: Path) -> ModelRow:
    return ModelRow(
        name=path.name, role="llm", path=str(path),
        status="present" if path.exists() else "missing",
        detail=f"{path} (configured, not in the manifest)",
    )  # fmt: skip


def device_summary(requested: str) -> str:
    """ "cpu", "cuda", or what "auto" resolves to for ONNX Runtime and CTranslate2."""
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


def add_model(
    settings: Settings, path: Path, role: str, *, name: str | None, licence: str, source: str
) -> tuple[ModelRow, bool]:
    """Register a model file by absolute path and sha256 (copies nothing); refuses pickle-like
    formats and, for the LLM role, anything that is not a GGUF. Returns the row and whether an
    entry of that name was replaced."""
    from conflictdesk.backends.manifest import entry_for
    from conflictdesk.backends.registry import check_gguf, refuse_pickle

    path = path.expanduser().resolve()
    if not path.is_file():
        raise UsageError(f"{path} is not a file")
    refuse_pickle(path)
    if role == "llm":
        check_gguf(path)
    base = Path(settings.models_dir)
    manifest = Manifest.load(base / "manifest.json")
    name = name or path.stem
    entry = entry_for(
        name, role, path, licence=licence, source=source, base=base,
        rebuild=f"conflictdesk models add {path} --role {role} --name {name}",
    )  # fmt: skip
    replaced = any(e.name == name for e in manifest.entries)
    manifest.upsert(entry)
    manifest.save()
    return entry_row(entry, base, verify=False), replaced


def discover_models() -> tuple[list[Any], list[str]]:
    """GGUF files found in the usual places (LM Studio, Ollama, the Hugging Face cache,
    CONFLICTDESK_MODEL_PATH), with the paths that could not be read."""
    from conflictdesk.backends.gguf_info import discover

    return discover()


def probe_llm_server(settings: Settings) -> tuple[bool, str]:
    """Ask the configured server (only when `llm_url` is set: the user named it) which model
    it serves: (reachable, what it said or what went wrong)."""
    from conflictdesk.backends.registry import build_server_llm
    from conflictdesk.errors import ServerError

    try:
        model_id = build_server_llm(settings).model_id
    except ServerError as exc:
        return False, str(exc)
    return True, f"{settings.llm_url} answers; judgment-cache key {model_id}"
