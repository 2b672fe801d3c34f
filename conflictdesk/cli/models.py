"""`conflictdesk models list | verify | add`: the model manifest from the command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conflictdesk.app import ROLES
from conflictdesk.cli.common import add_json_argument, add_model_arguments, open_desk, write_json
from conflictdesk.errors import UsageError
from conflictdesk.terminal import safe_line

EXAMPLES = """examples:
  conflictdesk models list
  conflictdesk models list --json
  conflictdesk models verify
  conflictdesk models add ~/models/qwen2.5-1.5b-instruct-q4_k_m.gguf --role llm
  conflictdesk models add ~/models/my.gguf --role llm --name my-llm --licence apache-2.0
  conflictdesk models add --url http://127.0.0.1:8080/v1 --model qwen2.5-7b   # a server as llm
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
        if name in ("list", "verify"):
            add_model_arguments(sub)  # the report is for the configuration in force
        sub.set_defaults(func=handler)
        if name == "add":
            _add_arguments(sub)
        if name == "discover":
            sub.add_argument("--register", type=int, default=None, metavar="N",
                             help="register the N-th GGUF listed (1-based) as the llm")  # fmt: skip


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, nargs="?", metavar="PATH",
                        help="model file (e.g. a .gguf); or --url")  # fmt: skip
    parser.add_argument("--url", default=None, metavar="URL",
                        help="an OpenAI-compatible server (role llm), e.g. http://127.0.0.1:8080/v1")  # fmt: skip
    parser.add_argument("--model", default=None, help="with --url: the server's model name")
    parser.add_argument("--digest", default=None, help="with --url: pins the judgment-cache key")
    parser.add_argument("--role", default=None, choices=ROLES, help="what the model serves")
    parser.add_argument("--name", default=None, help="manifest name (default: the file's stem)")
    parser.add_argument("--licence", default="unknown", help="licence, for the record")
    parser.add_argument("--source", default="added by the user", help="where it came from")


def run_list(args: argparse.Namespace) -> int:
    with open_desk(args) as desk:
        report = desk.models_report()
    if args.json:
        write_json({"manifest": report.manifest, "models": [m.to_json() for m in report.models],
                    "capabilities": report.capabilities,
                    "stages": [s.to_json() for s in report.stages]})  # fmt: skip
        return 0
    print(f"manifest: {report.manifest}")
    role_width = max((len(row.role) for row in report.models), default=8)
    name_width = max((len(row.name) for row in report.models), default=34)
    for row in report.models:
        state = "ok " if row.present else "MISSING"
        print(safe_line(f"  {row.role:<{role_width}} {row.name:<{name_width}} {state:<7} {row.path}"))
    if not report.models:
        print("  (no models)")
    print("stages (the method each runs with this configuration):")
    for stage in report.stages:
        print(safe_line(f"  {stage.stage:<10} {stage.method}"))
    for note in report.notes:
        print(f"note: {safe_line(note)}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    """Hash every file afresh (no verification cache): the check a user asks for explicitly."""
    with open_desk(args) as desk:
        report = desk.models_report(verify=True)
    ok = ("verified", "server")  # a server has no files to hash
    results = [{"name": m.name, "role": m.role, "ok": m.status in ok,
                "error": None if m.status in ok else m.detail}
               for m in report.models]  # fmt: skip
    failed = [r for r in results if not r["ok"]]
    if args.json:
        write_json({"manifest": report.manifest, "ok": not failed, "models": results})
    else:
        role_width = max((len(r["role"]) for r in results), default=8)
        for result in results:
            mark = "ok    " if result["ok"] else "FAILED"
            print(safe_line(f"{mark} {result['role']:<{role_width}} {result['name']}"))
        for result in failed:
            sys.stderr.write(f"conflictdesk: {safe_line(result['error'])}\n")
        print(f"{len(results) - len(failed)}/{len(results)} models verified")
    return 1 if failed else 0


def run_add(args: argparse.Namespace) -> int:
    url = getattr(args, "url", None)
    if (args.path is None) == (url is None):
        raise UsageError("models add needs a PATH or --url (not both)")
    if url is not None and args.role not in (None, "llm"):
        raise UsageError("a server (--url) serves the llm role only")
    if url is None and args.role is None:
        raise UsageError("models add PATH needs --role")
    with open_desk(args) as desk:
        if url is not None:
            args.role = "llm"
            row, replaced = desk.add_server(url, name=args.name, model=args.model,
                                            digest=args.digest, licence=args.licence,
                                            source=args.source)  # fmt: skip
        else:
            row, replaced = desk.add_model(
                args.path, args.role, name=args.name, licence=args.licence, source=args.source
            )
    if args.json:
        write_json({"added": row.to_json(), "replaced": replaced, "sha256": row.sha256})
    else:
        verb = "replaced" if replaced else "added"
        digest = f"sha256 {row.sha256[row.path]}" if row.sha256 else row.detail
        print(safe_line(f"{verb} {row.name} ({args.role}): {row.path} {digest}"))
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
