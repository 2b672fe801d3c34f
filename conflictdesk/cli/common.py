"""Shared CLI plumbing: settings and the Desk from flags, JSON Lines input and output,
progress. Commands reach the engine and the store only through `open_desk(args)`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conflictdesk.app import Desk, Settings

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE = 0, 1, 2


def real_backends(settings: Settings, roles: tuple[str, ...]) -> Any:
    """The verified back-ends for `roles`; tests replace `make_backends` with fakes."""
    from conflictdesk.app import verified_backends

    return verified_backends(settings, roles)


make_backends = real_backends


def open_desk(args: argparse.Namespace) -> Desk:
    """The Desk for these flags: settings (file < env < flags) and the database."""
    from conflictdesk.app import Desk

    settings = config_from_args(args)
    return Desk(settings, load_backends=lambda roles: make_backends(settings, roles))


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help="SQLite database (default: db_path in the config, $CONFLICTDESK_DB, or the user "
        "data directory)",
    )


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable JSON output")


def write_json(obj: Any, stream: IO[str] | None = None) -> None:
    """One JSON object per line (JSON Lines), flushed so pipes see results as they come."""
    stream = stream or sys.stdout
    stream.write(json.dumps(obj, ensure_ascii=False) + "\n")
    stream.flush()


def warn(message: str) -> None:
    sys.stderr.write(f"conflictdesk: {message}\n")
    sys.stderr.flush()


@dataclass(frozen=True)
class JsonLine:
    """One input line: its number, its `id` (or the line number) and the parsed object,
    or the reason it could not be parsed."""

    lineno: int
    id: Any
    value: dict[str, Any] | None
    error: str | None = None


def read_jsonl(source: str) -> Iterator[JsonLine]:
    """Read JSON Lines from a path or `-` (stdin); blank lines are skipped."""
    stream = sys.stdin if source == "-" else open(source, encoding="utf-8")  # noqa: SIM115
    try:
        for lineno, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                yield JsonLine(lineno, lineno, None, f"invalid JSON: {exc.msg}")
                continue
            if not isinstance(value, dict):
                yield JsonLine(lineno, lineno, None, "a line must be a JSON object")
                continue
            yield JsonLine(lineno, value.get("id", lineno), value)
    finally:
        if stream is not sys.stdin:
            stream.close()


class Progress:
    """A one-line progress bar on a terminal's stderr; silent when stderr is not a TTY."""

    def __init__(self, total: int, label: str, stream: IO[str] | None = None) -> None:
        self.total, self.label, self.done = max(total, 0), label, 0
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()

    def advance(self, step: int = 1, note: str = "") -> None:
        self.done += step
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / self.total) if self.total else width
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total} {note[:40]:<40}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """`--llm`, `--n-gpu-layers`, `--threads`, `--device`: flags over config file and env."""
    group = parser.add_argument_group("models")
    group.add_argument("--llm", type=Path, default=None, metavar="PATH",
                       help="GGUF model for the LLM stages (default: config/env/manifest)")  # fmt: skip
    group.add_argument("--n-gpu-layers", type=int, default=None, metavar="N",
                       help="GGUF layers to offload to the GPU (-1 = all, 0 = none)")  # fmt: skip
    group.add_argument("--threads", type=int, default=None, metavar="N",
                       help="CPU threads per model (0 = runtime default)")  # fmt: skip
    group.add_argument("--device", choices=("auto", "cpu", "cuda"), default=None,
                       help="where models run (default auto: CUDA when available)")  # fmt: skip


def config_from_args(args: argparse.Namespace) -> Settings:
    """The `Settings`: config file < CONFLICTDESK_* env < these flags."""
    from conflictdesk.app import load_settings

    return load_settings(
        db_path=getattr(args, "db", None),
        llm_path=getattr(args, "llm", None),
        n_gpu_layers=getattr(args, "n_gpu_layers", None),
        threads=getattr(args, "threads", None),
        device=getattr(args, "device", None),
        models_dir=getattr(args, "models_dir", None),
    )
