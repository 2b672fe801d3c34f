"""Runtime settings: a TOML file, then `CONFLICTDESK_*` environment variables, then flags.

Later sources win: `~/.config/conflictdesk/config.toml` < environment < explicit overrides
(the CLI passes its flags as overrides). Unknown keys and bad values are errors, not ignored.
Every location the product uses (database, models, data, cache) is a setting here; the shipped
models are found through the import system (`conflictdesk.locations`)."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from conflictdesk.errors import UsageError

DEVICES = ("auto", "cpu", "cuda")
ENV_PREFIX = "CONFLICTDESK_"
# Older names, still honoured: `CONFLICTDESK_MODELS` (manifest.models_dir), `CONFLICTDESK_DB`
# (the CLI's database) and `CONFLICTDESK_DATA` (the training data builders).
ENV_ALIASES = {
    "CONFLICTDESK_MODELS": "models_dir",
    "CONFLICTDESK_DB": "db_path",
    "CONFLICTDESK_DATA": "data_dir",
}
PATH_FIELDS = ("models_dir", "llm_path", "db_path", "data_dir", "cache_dir")
# Kept as written (a server URL, a model name, a digest); "" unsets them.
TEXT_FIELDS = ("llm_url", "llm_model", "llm_digest")
NLI_RULES = ("replace", "geometric")  # the labelling cascade's rules (backends/cascade_nli.py)
# The key of an OpenAI-compatible server is read from this variable only (never a settings
# field, so it is not written to config files or shown by `doctor`).
LLM_KEY_ENV = "CONFLICTDESK_LLM_KEY"


@dataclass(frozen=True)
class Settings:
    """Where things live (database, models, evaluation data, cache) and how models run.

    `db_path` and `cache_dir` default to the user data and cache directories; `data_dir` (the
    evaluation and training data) has no default. `threads` 0 means "let the runtime choose"; `n_gpu_layers` -1 (the default) offloads every
    layer of the GGUF when llama.cpp was built with CUDA (a CPU build ignores it);
    `device="cpu"` keeps everything on the CPU. `llm_url` names an OpenAI-compatible server
    (llama.cpp's, vLLM, LM Studio, Ollama) that serves the LLM role instead of a GGUF file;
    `llm_model` picks one of its models and `llm_digest` pins the judgment-cache key.
    `nli_band` overrides the labelling cascade's band (None: the one stored with the MPNet
    model; 0 turns the MPNet tier off, so the MiniLM alone labels); `nli_rule` overrides what
    an unsettled pair gets (`replace`: MPNet's probabilities, `geometric`: both tiers'
    geometric mean; None: the rule stored with the MPNet model)."""

    models_dir: Path
    llm_path: Path | None = None
    n_gpu_layers: int = -1
    threads: int = 0
    device: str = "auto"
    n_ctx: int = 4096
    db_path: Path | None = None
    data_dir: Path | None = None
    cache_dir: Path | None = None
    llm_url: str | None = None
    llm_model: str | None = None
    llm_digest: str | None = None
    llm_timeout: float = 120.0
    nli_band: float | None = None
    nli_rule: str | None = None

    def __post_init__(self) -> None:
        if self.device not in DEVICES:
            raise UsageError(f"device must be one of {', '.join(DEVICES)}, not {self.device!r}")
        if self.threads < 0:
            raise UsageError(f"threads must be >= 0, not {self.threads}")
        if self.n_ctx < 256:
            raise UsageError(f"n_ctx must be at least 256, not {self.n_ctx}")
        if self.n_gpu_layers < -1:
            raise UsageError(f"n_gpu_layers must be -1 (all) or >= 0, not {self.n_gpu_layers}")
        if self.llm_timeout <= 0:
            raise UsageError(f"llm_timeout must be > 0 seconds, not {self.llm_timeout}")
        if self.nli_band is not None and not 0.0 <= self.nli_band <= 1.01:
            raise UsageError(f"nli_band must be between 0 and 1.01, not {self.nli_band}")
        if self.nli_rule is not None and self.nli_rule not in NLI_RULES:
            raise UsageError(
                f"nli_rule must be one of {', '.join(NLI_RULES)}, not {self.nli_rule!r}"
            )
        if self.llm_url is not None and not _is_http_url(self.llm_url):
            raise UsageError(f"llm_url must be an http:// or https:// URL, not {self.llm_url!r}")

    def to_json(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


Config = Settings  # the engine's name for the model part of the settings


def default_config_path() -> Path:
    """`CONFLICTDESK_CONFIG`, else `~/.config/conflictdesk/config.toml` ($XDG_CONFIG_HOME)."""
    env = os.environ.get("CONFLICTDESK_CONFIG")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "conflictdesk" / "config.toml"


def load_config(
    path: Path | None = None, env: Mapping[str, str] | None = None, **overrides: Any
) -> Settings:
    """Merge file < environment < `overrides` (None values in overrides are skipped)."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    values.update(_from_file(path or default_config_path()))
    values.update(_from_env(env))
    values.update({k: v for k, v in overrides.items() if v is not None})
    _check_keys(values, "override")
    resolved = {k: _coerce(k, v) for k, v in values.items()}
    return replace(_defaults(resolved), **resolved)


load_settings = load_config


def _defaults(values: Mapping[str, Any]) -> Settings:
    """Default locations, computed only for what no source set."""
    from platformdirs import user_cache_dir, user_data_dir

    models = values.get("models_dir")
    return Settings(
        models_dir=models if models is not None else default_models_dir(),
        db_path=Path(user_data_dir("conflictdesk")) / "conflictdesk.db",
        cache_dir=Path(user_cache_dir("conflictdesk")),
    )


def default_models_dir() -> Path:
    from conflictdesk.locations import shipped_models

    return shipped_models()


def _from_file(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: invalid TOML: {exc}") from exc
    # Either top-level keys or a [conflictdesk] table.
    data = data.get("conflictdesk", data)
    _check_keys(data, str(path))
    return dict(data)


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    names = {f.name for f in fields(Settings)}
    values: dict[str, Any] = {}
    for key, raw in env.items():
        if key in ENV_ALIASES:
            values.setdefault(ENV_ALIASES[key], raw)
        elif key.startswith(ENV_PREFIX) and key[len(ENV_PREFIX) :].lower() in names:
            values[key[len(ENV_PREFIX) :].lower()] = raw
    return values


def _check_keys(values: Mapping[str, Any], where: str) -> None:
    names = {f.name for f in fields(Settings)}
    unknown = sorted(set(values) - names)
    if unknown:
        raise UsageError(
            f"{where}: unknown setting(s) {', '.join(unknown)}; known: {sorted(names)}"
        )


def _coerce(name: str, value: Any) -> Any:
    """Turn a TOML/env/flag value into the field's type, with a clear error."""
    if name in PATH_FIELDS:
        if value in ("", None):
            return default_models_dir() if name == "models_dir" else None
        return Path(str(value)).expanduser()
    if name in ("n_gpu_layers", "threads", "n_ctx"):
        if isinstance(value, bool):
            raise UsageError(f"{name} must be an integer, not {value!r}")
        try:
            return int(value)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"{name} must be an integer, not {value!r}") from exc
    if name in TEXT_FIELDS:
        return str(value).strip() or None
    if name == "llm_timeout":
        try:
            return float(value)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"{name} must be a number of seconds, not {value!r}") from exc
    if name == "nli_rule":
        return None if value in ("", None) else str(value).strip().lower()
    if name == "nli_band":
        try:
            return None if value in ("", None) else float(value)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"{name} must be a probability (0 turns the MPNet tier off)") from exc
    return str(value).lower()


def _is_http_url(url: str) -> bool:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _plain(value: Any) -> Any:
    return str(value) if isinstance(value, Path) else value
