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

from conflictdesk.errors import UsageError
from conflictdesk.terminal import safe_line

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


# Characters that some readers take for line breaks: escaped, so one record stays one line.
_LINE_BREAKS = {ord(c): f"\\u{ord(c):04x}" for c in "\x85\u2028\u2029"}


def write_json(obj: Any, stream: IO[str] | None = None) -> None:
    """One JSON object per line (JSON Lines), flushed so pipes see results as they come."""
    stream = stream or sys.stdout
    stream.write(json.dumps(obj, ensure_ascii=False).translate(_LINE_BREAKS) + "\n")
    stream.flush()


def warn(message: str) -> None:
    sys.stderr.write(f"conflictdesk: {safe_line(message)}\n")
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
    """Read JSON Lines from a path or `-` (stdin); blank lines are skipped.

    Lines are read as bytes and decoded one at a time, so a line that is not UTF-8 (or not
    JSON, or nested past the parser's limit) becomes an error for that line alone."""
    stream = _byte_lines(source)
    try:
        for lineno, raw in enumerate(stream, start=1):
            if raw.strip():
                yield parse_json_line(lineno, raw)
    finally:
        if hasattr(stream, "close"):
            stream.close()


def _byte_lines(source: str) -> Any:
    if source != "-":
        try:
            return open(source, "rb")
        except OSError as exc:
            raise UsageError(f"cannot read {source}: {exc.strerror}") from exc
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        return iter(buffer.readline, b"")
    # A text stream without bytes underneath (tests): undecodable bytes come back as the
    # surrogates Python decoded them to, and fail the strict decode below as they should.
    return (_text_line_bytes(line) for line in sys.stdin)


def _text_line_bytes(line: str) -> bytes:
    try:
        return line.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that no byte decoded to: invalid UTF-8 bytes
        return line.encode("utf-8", "surrogatepass")


def parse_json_line(lineno: int, raw: bytes) -> JsonLine:
    """One JSON Lines record: a JSON object, or the reason this line cannot be one."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return JsonLine(lineno, lineno, None, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} "
                        f"at column {exc.start + 1})")  # fmt: skip
    try:
        value = json.loads(line)
        # Lone surrogates (\\ud800) are valid JSON escapes but not text we can store or print.
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except json.JSONDecodeError as exc:
        return JsonLine(lineno, lineno, None, f"invalid JSON: {exc.msg}")
    except UnicodeEncodeError:
        return JsonLine(lineno, lineno, None, "invalid JSON: a \\u escape is a lone surrogate")
    except RecursionError:
        return JsonLine(lineno, lineno, None, "invalid JSON: nested too deeply")
    except ValueError as exc:  # e.g. an integer over Python's digit limit
        return JsonLine(lineno, lineno, None, f"invalid JSON: {exc}")
    if not isinstance(value, dict):
        return JsonLine(lineno, lineno, None, "a line must be a JSON object")
    return JsonLine(lineno, value.get("id", lineno), value)


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
    group.add_argument("--llm-url", default=None, metavar="URL",
                       help="OpenAI-compatible server for the LLM stages, e.g. "
                       "http://127.0.0.1:8080/v1 (key: $CONFLICTDESK_LLM_KEY)")  # fmt: skip
    group.add_argument("--llm-model", default=None, metavar="NAME",
                       help="the server's model (default: the only one it serves)")  # fmt: skip
    group.add_argument("--llm-digest", default=None, metavar="DIGEST",
                       help="pins the server model's judgment-cache key (default: from /v1/models)")  # fmt: skip
    group.add_argument("--n-gpu-layers", type=int, default=None, metavar="N",
                       help="GGUF layers to offload to the GPU (-1 = all, 0 = none)")  # fmt: skip
    group.add_argument("--threads", type=int, default=None, metavar="N",
                       help="CPU threads per model (0 = runtime default)")  # fmt: skip
    group.add_argument("--device", choices=("auto", "cpu", "cuda"), default=None,
                       help="where models run (default auto: CUDA when available)")  # fmt: skip


def config_from_args(args: argparse.Namespace) -> Settings:
    """The `Settings`: config file < CONFLICTDESK_* env < these flags."""
    from conflictdesk.app import load_settings

    path, url = getattr(args, "llm", None), getattr(args, "llm_url", None)
    if path is not None and url is not None:
        raise UsageError("--llm (a GGUF file) and --llm-url (a server) exclude each other")
    return load_settings(
        db_path=getattr(args, "db", None),
        # a GGUF flag overrides a server from the config or environment, and the reverse
        llm_path=path if path is not None else ("" if url else None),
        llm_url=url if url is not None else ("" if path is not None else None),
        llm_model=getattr(args, "llm_model", None),
        llm_digest=getattr(args, "llm_digest", None),
        n_gpu_layers=getattr(args, "n_gpu_layers", None),
        threads=getattr(args, "threads", None),
        device=getattr(args, "device", None),
        models_dir=getattr(args, "models_dir", None),
    )


def add_ray_arguments(parser: argparse.ArgumentParser) -> None:
    """`--ray [ADDRESS]` and its pool flags (the `scale` extra; docs/SCALE.md)."""
    group = parser.add_argument_group("scale-out on Ray (docs/SCALE.md)")
    group.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                       help="run the model work on a Ray cluster at ADDRESS (e.g. auto, "
                       "10.0.0.5:6379); without ADDRESS, on a local cluster started for "
                       "this batch. Results and the database as in a plain run")  # fmt: skip
    group.add_argument("--ray-workers", type=int, default=2, metavar="N",
                       help="actors, each loading the models once (default 2)")  # fmt: skip
    group.add_argument("--ray-cpus-per-worker", type=int, default=1, metavar="N",
                       help="CPUs each actor reserves and its models' threads (default 1)")  # fmt: skip
    group.add_argument("--ray-batch-size", type=int, default=4, metavar="N",
                       help="items per actor call (default 4)")  # fmt: skip


def ray_options_from_args(args: argparse.Namespace) -> Any:
    """The RayOptions of `--ray`, or None for a plain run."""
    if getattr(args, "ray", None) is None:
        return None
    from conflictdesk.app import RayOptions

    return RayOptions(address=args.ray, workers=args.ray_workers,
                      cpus_per_worker=args.ray_cpus_per_worker, batch_size=args.ray_batch_size)  # fmt: skip
