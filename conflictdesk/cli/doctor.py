"""`conflictdesk doctor`: what this machine can run, and what to fix.

Checks the CPU's instruction sets, the llama.cpp build and its back-ends, CUDA for each runtime
(ONNX Runtime, CTranslate2, llama.cpp), every model file against the manifest, the database and
the configuration in force. Exit 0 when everything needed works, 1 (with the fix) when not;
optional parts that are missing are reported as notes, not failures."""

from __future__ import annotations

import argparse
import platform
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conflictdesk.app import cpu_features
from conflictdesk.cli.common import (
    add_db_argument,
    add_json_argument,
    add_model_arguments,
    config_from_args,
    write_json,
)
from conflictdesk.errors import ConflictDeskError

EXAMPLES = """examples:
  conflictdesk doctor
  conflictdesk doctor --json
  conflictdesk doctor --db ~/review/cases.db --llm ~/models/qwen.gguf
"""


@dataclass(frozen=True)
class Check:
    """One line of the report: `ok` False means the user must act (`fix` says how)."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "doctor", help="check this machine, the models, the database and the configuration",
        description=__doc__, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    add_db_argument(parser)
    add_model_arguments(parser)
    parser.add_argument("--models-dir", type=Path, default=None, metavar="DIR",
                        help="folder holding manifest.json (default: $CONFLICTDESK_MODELS or models/)")  # fmt: skip
    add_json_argument(parser)
    parser.set_defaults(func=run)


def check_cpu() -> Check:
    features = cpu_features()
    detail = f"{platform.machine()} {platform.system()}; " + (
        ", ".join(features) or "flags unknown"
    )
    return Check("cpu", True, detail, required=False)


def check_llama() -> Check:
    try:
        import llama_cpp
    except ImportError:
        return Check("llama.cpp", False, "llama-cpp-python is not installed (LLM stages run "
                     "their non-LLM methods)", "scripts/setup.sh", required=False)  # fmt: skip
    info = llama_cpp.llama_print_system_info()
    info = info.decode("utf-8", "replace") if isinstance(info, bytes) else str(info)
    gpu = bool(getattr(llama_cpp, "llama_supports_gpu_offload", lambda: False)())
    return Check("llama.cpp", True, f"llama-cpp-python {llama_cpp.__version__}; GPU offload: "
                 f"{'yes' if gpu else 'no'}; {' '.join(info.split())[:200]}", required=False)  # fmt: skip


def check_accelerators() -> list[Check]:
    import ctranslate2
    import onnxruntime

    providers = onnxruntime.get_available_providers()
    cuda_ct2 = ctranslate2.get_cuda_device_count()
    return [
        Check("onnxruntime", True, f"{onnxruntime.__version__}; providers: {', '.join(providers)}",
              required=False),
        Check("ctranslate2", True, f"{ctranslate2.__version__}; CUDA devices: {cuda_ct2}"
              + ("" if cuda_ct2 else " (its CUDA path also needs cuBLAS 12 on the machine)"),
              required=False),
    ]  # fmt: skip


def check_llm_server(config: Any) -> Check:
    """The configured OpenAI-compatible server answers /v1/models with the model to use."""
    from conflictdesk.app import probe_llm_server

    ok, detail = probe_llm_server(config)
    return Check("llm server", ok, detail, "start the server, or fix --llm-url / --llm-model")


def check_models(config: Any) -> list[Check]:
    """Every manifest entry's sha256, through the one models report."""
    from conflictdesk.app import models_report

    report = models_report(config, verify=True)
    if not report.models:
        return [Check("models", False, f"no manifest at {report.manifest}",
                      "set CONFLICTDESK_MODELS to the folder holding manifest.json")]  # fmt: skip
    return [
        Check(f"model {row.role}", True, f"{row.model_id or row.name} verified")
        if row.status == "verified"
        else Check(f"model {row.role}", False, row.detail, row.rebuild)
        for row in report.models
    ]


def check_database(path: Path) -> Check:
    if not path.exists():
        return Check("database", True, f"{path} (not created yet; the first ingest creates it)")
    try:
        uri = f"file:{path}?mode=ro"
        with sqlite3.connect(uri, uri=True) as conn:
            tables = {
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        return Check("database", False, f"{path}: {exc}", "point --db at a conflictdesk database")
    if "documents" not in tables:
        return Check("database", False, f"{path} is not a conflictdesk database",
                     "point --db (or CONFLICTDESK_DB) at another file")  # fmt: skip
    return Check("database", True, f"{path}; {len(tables)} tables; application_id {app_id}")


def run(args: argparse.Namespace) -> int:
    checks = [check_cpu(), check_llama(), *check_accelerators()]
    try:
        config = config_from_args(args)
    except ConflictDeskError as exc:
        checks.append(
            Check("config", False, str(exc), "fix the config file or CONFLICTDESK_* vars")
        )
    else:
        llm = f"server {config.llm_url}" if config.llm_url else str(config.llm_path or "none")
        checks.append(Check("config", True, f"models {config.models_dir}; llm {llm}; "
                            f"device {config.device}; threads {config.threads or 'auto'}"))  # fmt: skip
        checks += check_models(config)
        if config.llm_url:
            checks.append(check_llm_server(config))
        checks.append(check_database(Path(config.db_path)))
    failed = [c for c in checks if c.required and not c.ok]
    if args.json:
        write_json({"ok": not failed, "checks": [c.__dict__ for c in checks]})
    else:
        report(checks)
    return 1 if failed else 0


def report(checks: list[Check]) -> None:
    from conflictdesk.terminal import safe_line

    for check in checks:
        mark = "ok  " if check.ok else ("FAIL" if check.required else "note")
        print(f"{mark} {check.name:<14} {safe_line(check.detail)}")
        if not check.ok and check.fix:
            print(f"     fix: {safe_line(check.fix)}")
    failed = sum(c.required and not c.ok for c in checks)
    print("everything needed works" if not failed else f"{failed} problem(s) to fix")
    sys.stdout.flush()
