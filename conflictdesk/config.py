"""Runtime configuration: a TOML file, then `CONFLICTDESK_*` environment variables, then flags.

Later sources win: `~/.config/conflictdesk/config.toml` < environment < explicit overrides
(the CLI passes its flags as overrides). Unknown keys and bad values are errors, not ignored."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from conflictdesk.backends.manifest import models_dir as default_models_dir
from conflictdesk.errors import UsageError

DEVICES = ("auto", "cpu", "cuda")
ENV_PREFIX = "CONFLICTDESK_"
# `CONFLICTDESK_MODELS` predates this module (manifest.models_dir); both names are honoured.
ENV_ALIASES = {"CONFLICTDESK_MODELS": "models_dir"}


@dataclass(frozen=True)
class Config:
    """Where models live and how they run.

    `threads` 0 means "let the runtime choose"; `n_gpu_layers` -1 (the default) offloads every
    layer of the GGUF when llama.cpp was built with CUDA (a CPU build ignores it);
    `device="cpu"` keeps everything on the CPU."""

    models_dir: Path
    llm_path: Path | None = None
    n_gpu_layers: int = -1
    threads: int = 0
    device: str = "auto"
    n_ctx: int = 4096

    def __post_init__(self) -> None:
        if self.device not in DEVICES:
            raise UsageError(f"device must be one of {', '.join(DEVICES)}, not {self.device!r}")
        if self.threads < 0:
            raise UsageError(f"threads must be >= 0, not {self.threads}")
        if self.n_ctx < 256:
            raise UsageError(f"n_ctx must be at least 256, not {self.n_ctx}")
        if self.n_gpu_layers < -1:
            raise UsageError(f"n_gpu_layers must be -1 (all) or >= 0, not {self.n_gpu_layers}")

    def as_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


def default_config_path() -> Path:
    """`CONFLICTDESK_CONFIG`, else `~/.config/conflictdesk/config.toml` ($XDG_CONFIG_HOME)."""
    env = os.environ.get("CONFLICTDESK_CONFIG")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "conflictdesk" / "config.toml"


def load_config(
    path: Path | None = None, env: Mapping[str, str] | None = None, **overrides: Any
) -> Config:
    """Merge file < environment < `overrides` (None values in overrides are skipped)."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    values.update(_from_file(path or default_config_path()))
    values.update(_from_env(env))
    values.update({k: v for k, v in overrides.items() if v is not None})
    _check_keys(values, "override")
    base = Config(models_dir=default_models_dir())
    return replace(base, **{k: _coerce(k, v) for k, v in values.items()})


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
    names = {f.name for f in fields(Config)}
    values: dict[str, Any] = {}
    for key, raw in env.items():
        if key in ENV_ALIASES:
            values.setdefault(ENV_ALIASES[key], raw)
        elif key.startswith(ENV_PREFIX) and key[len(ENV_PREFIX) :].lower() in names:
            values[key[len(ENV_PREFIX) :].lower()] = raw
    return values


def _check_keys(values: Mapping[str, Any], where: str) -> None:
    names = {f.name for f in fields(Config)}
    unknown = sorted(set(values) - names)
    if unknown:
        raise UsageError(
            f"{where}: unknown setting(s) {', '.join(unknown)}; known: {sorted(names)}"
        )


def _coerce(name: str, value: Any) -> Any:
    """Turn a TOML/env/flag value into the field's type, with a clear error."""
    if name in ("models_dir", "llm_path"):
        if value in ("", None):
            return None if name == "llm_path" else default_models_dir()
        return Path(str(value)).expanduser()
    if name in ("n_gpu_layers", "threads", "n_ctx"):
        if isinstance(value, bool):
            raise UsageError(f"{name} must be an integer, not {value!r}")
        try:
            return int(value)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"{name} must be an integer, not {value!r}") from exc
    return str(value).lower()


def _plain(value: Any) -> Any:
    return str(value) if isinstance(value, Path) else value
