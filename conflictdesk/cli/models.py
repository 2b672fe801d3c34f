"""`conflictdesk models list | verify | add`: the model manifest from the command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from conflictdesk.backends.manifest import ROLES, Manifest, ModelEntry, entry_for
from conflictdesk.cli.common import add_json_argument, config_from_args, write_json
from conflictdesk.errors import ConflictDeskError, UsageError

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


def _manifest(args: argparse.Namespace) -> tuple[Manifest, Path]:
    config = config_from_args(args)
    base = Path(config.models_dir)
    return Manifest.load(base / "manifest.json"), base


def _row(entry: ModelEntry, base: Path) -> dict[str, Any]:
    path = entry.resolve(base)
    return {
        "name": entry.name, "role": entry.role, "path": str(path), "present": path.exists(),
        "files": len(entry.files), "licence": entry.licence, "source": entry.source,
        "rebuild": entry.rebuild,
    }  # fmt: skip


def run_list(args: argparse.Namespace) -> int:
    from conflictdesk.backends.registry import capabilities

    manifest, base = _manifest(args)
    rows = [_row(entry, base) for entry in manifest.entries]
    caps = capabilities(config_from_args(args))
    if args.json:
        write_json({"manifest": str(manifest.path), "models": rows, "capabilities": caps.as_dict()})
        return 0
    print(f"manifest: {manifest.path}")
    for row in rows:
        state = "ok " if row["present"] else "MISSING"
        print(f"  {row['role']:<8} {row['name']:<34} {state:<7} {row['path']}")
    if not rows:
        print("  (no models)")
    print("stages: " + ", ".join(f"{k}={v}" for k, v in caps.as_dict()["stages"].items()))
    for note in caps.notes:
        print(f"note: {note}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    """Hash every file afresh (no verification cache): the check a user asks for explicitly."""
    from conflictdesk.backends.registry import verify_entry

    manifest, base = _manifest(args)
    results = []
    for entry in manifest.entries:
        try:
            verify_entry(entry, base, cache=None)
            results.append({"name": entry.name, "role": entry.role, "ok": True, "error": None})
        except ConflictDeskError as exc:
            results.append({"name": entry.name, "role": entry.role, "ok": False, "error": str(exc)})
    failed = [r for r in results if not r["ok"]]
    if args.json:
        write_json({"manifest": str(manifest.path), "ok": not failed, "models": results})
    else:
        for result in results:
            print(f"{'ok    ' if result['ok'] else 'FAILED'} {result['role']:<8} {result['name']}")
        for result in failed:
            sys.stderr.write(f"conflictdesk: {result['error']}\n")
        print(f"{len(results) - len(failed)}/{len(results)} models verified")
    return 1 if failed else 0


def run_add(args: argparse.Namespace) -> int:
    from conflictdesk.backends.registry import check_gguf, refuse_pickle

    path = args.path.expanduser().resolve()
    if not path.is_file():
        raise UsageError(f"{path} is not a file")
    refuse_pickle(path)
    if args.role == "llm":
        check_gguf(path)
    manifest, base = _manifest(args)
    name = args.name or path.stem
    entry = entry_for(
        name, args.role, path, licence=args.licence, source=args.source, base=base,
        rebuild=f"conflictdesk models add {path} --role {args.role} --name {name}",
    )  # fmt: skip
    replaced = any(e.name == name for e in manifest.entries)
    manifest.upsert(entry)
    manifest.save()
    if args.json:
        write_json({"added": _row(entry, base), "replaced": replaced, "sha256": entry.files})
    else:
        verb = "replaced" if replaced else "added"
        print(f"{verb} {name} ({args.role}): {path} sha256 {next(iter(entry.files.values()))}")
    return 0


def run_discover(args: argparse.Namespace) -> int:
    """List the GGUFs found; with --register N, add the N-th as the llm (sha256 recorded)."""
    from conflictdesk.backends.gguf_info import discover
    from conflictdesk.terminal import safe_line as safe

    found, problems = discover()
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
