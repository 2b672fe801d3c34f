"""`conflictdesk models list | verify | add`: the model manifest from the command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conflictdesk.app import ROLES
from conflictdesk.cli.common import add_json_argument, open_desk, write_json
from conflictdesk.errors import UsageError
from conflictdesk.terminal import safe_line

EXAMPLES = """examples:
  conflictdesk models list
  conflictdesk models list --json
  conflictdesk models verify
  conflictdesk models add ~/models/qwen2.5-1.5b-instruct-q4_k_m.gguf --role llm
  conflictdesk models add ~/models/my.gguf --role llm --name my-llm --licence apache-2.0
  conflictdesk models discover                # GGUFs in LM Studio, Ollama, the HF cache, ...
  conflictdesk models discover --register 2   # register the second one found as the llm
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "models", help="list, verify and add models", description=__doc__, epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    for name, help_text, handler in (
        ("list", "models in the manifest and what the registry can serve", run_list),
        ("verify", "check every model file's sha256 (non-zero exit on a problem)", run_verify),
        ("add", "register a model file by absolute path and sha256 (copies nothing)", run_add),
        (
            "discover",
            "list GGUFs in LM Studio, Ollama, the HF cache and $CONFLICTDESK_MODEL_PATH",
            run_discover,
        ),
    ):
        sub = actions.add_parser(name, help=help_text, description=help_text, epilog=EXAMPLES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
        sub.add_argument("--models-dir", type=Path, default=None, metavar="DIR",
                         help="folder holding manifest.json (default: $CONFLICTDESK_MODELS or models/)")  # fmt: skip
        add_json_argument(sub)
        sub.set_defaults(func=handler)
        if name == "add":
            _add_arguments(sub)
        if name == "discover":
            sub.add_argument("--register", type=int, default=None, metavar="N",
                             help="register the N-th GGUF listed (1-based) as the llm")  # fmt: skip


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, metavar="PATH", help="model file (e.g. a .gguf)")
    parser.add_argument("--role", required=True, choices=ROLES, help="what the model serves")
    parser.add_argument("--name", default=None, help="manifest name (default: the file's stem)")
    parser.add_argument("--licence", default="unknown", help="licence, for the record")
    parser.add_argument("--source", default="added by the user", help="where it came from")


def run_list(args: argparse.Namespace) -> int:
    with open_desk(args) as desk:
        report = desk.models_report()
    if args.json:
        write_json({"manifest": report.manifest, "models": [m.to_json() for m in report.models],
                    "capabilities": report.capabilities})  # fmt: skip
        return 0
    print(f"manifest: {report.manifest}")
    for row in report.models:
        state = "ok " if row.present else "MISSING"
        print(safe_line(f"  {row.role:<8} {row.name:<34} {state:<7} {row.path}"))
    if not report.models:
        print("  (no models)")
    print("stages: " + ", ".join(f"{k}={v}" for k, v in report.capabilities["stages"].items()))
    for note in report.notes:
        print(f"note: {safe_line(note)}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    """Hash every file afresh (no verification cache): the check a user asks for explicitly."""
    with open_desk(args) as desk:
        report = desk.models_report(verify=True)
    results = [{"name": m.name, "role": m.role, "ok": m.status == "verified",
                "error": None if m.status == "verified" else m.detail}
               for m in report.models]  # fmt: skip
    failed = [r for r in results if not r["ok"]]
    if args.json:
        write_json({"manifest": report.manifest, "ok": not failed, "models": results})
    else:
        for result in results:
            mark = "ok    " if result["ok"] else "FAILED"
            print(safe_line(f"{mark} {result['role']:<8} {result['name']}"))
        for result in failed:
            sys.stderr.write(f"conflictdesk: {safe_line(result['error'])}\n")
        print(f"{len(results) - len(failed)}/{len(results)} models verified")
    return 1 if failed else 0


def run_add(args: argparse.Namespace) -> int:
    with open_desk(args) as desk:
        row, replaced = desk.add_model(
            args.path, args.role, name=args.name, licence=args.licence, source=args.source
        )
    if args.json:
        write_json({"added": row.to_json(), "replaced": replaced, "sha256": row.sha256})
    else:
        verb = "replaced" if replaced else "added"
        print(safe_line(f"{verb} {row.name} ({args.role}): {row.path} sha256 {row.sha256[row.path]}"))
    return 0


def run_discover(args: argparse.Namespace) -> int:
    """List the GGUFs found; with --register N, add the N-th as the llm (sha256 recorded)."""
    from conflictdesk.app import discover_models
    from conflictdesk.terminal import safe_line as safe

    found, problems = discover_models()
    if args.register is not None:
        if not 1 <= args.register <= len(found):
            raise UsageError(f"--register {args.register}: {len(found)} GGUF(s) were found")
        chosen = found[args.register - 1]
        add = argparse.Namespace(**{**vars(args), "path": Path(chosen.path), "role": "llm",
                                    "name": None, "licence": "unknown",
                                    "source": f"discovered in {chosen.found_in}"})  # fmt: skip
        return run_add(add)
    if args.json:
        write_json({"models": [info.to_json() for info in found], "unreadable": problems})
        return 0
    for index, info in enumerate(found, 1):
        size = f"{info.size_bytes / 2**20:,.0f} MB"
        print(f"{index:>3}  {safe(info.architecture or '?'):<10} {safe(info.quantisation or '?'):<8}"
              f" {size:>9}  {safe(info.found_in):<24} {safe(info.path)}")  # fmt: skip
    if not found:
        print("no GGUF found (set CONFLICTDESK_MODEL_PATH to the folders that hold yours)")
    for problem in problems:
        sys.stderr.write(f"conflictdesk: skipped {safe(problem)}\n")
    return 0
