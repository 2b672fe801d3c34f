"""The engine (and the store) never import Textual.

Every module is imported, one after another, in a fresh interpreter; `textual` must never
appear in sys.modules. Presence only grows, so the first module after which it appears is the
one that pulled it in (directly or through its imports)."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import conflictdesk

UI_MODULES = ("conflictdesk.tui", "conflictdesk.cli.tui")
PROBE = """
import importlib, json, sys
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
        error = None
    except ImportError as exc:  # an optional dependency (llama_cpp, torch) is not installed
        error = f"{type(exc).__name__}: {exc}"
    print(json.dumps({"module": name, "textual": "textual" in sys.modules, "error": error}))
"""


def engine_modules() -> list[str]:
    """Every module of `conflictdesk` and of `conflictdesk.store` (mapped from store/, so not
    under conflictdesk's own folder), minus the UI and `__main__` (it runs the CLI)."""
    import conflictdesk.store

    names = ["conflictdesk.store"]
    for package in (conflictdesk, conflictdesk.store):
        prefix = package.__name__ + "."
        names += [info.name for info in pkgutil.walk_packages(package.__path__, prefix)]
    return sorted({name for name in names
                   if not name.startswith(UI_MODULES) and not name.endswith(".__main__")})


def probe(modules: list[str]) -> list[dict]:
    out = subprocess.run([sys.executable, "-c", PROBE, *modules], capture_output=True, check=False,
                         text=True, timeout=300, cwd=Path(conflictdesk.__file__).parents[1])
    assert out.returncode == 0, out.stderr[-2000:]
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def test_every_engine_and_store_module_imports_without_textual():
    modules = engine_modules()
    assert {"conflictdesk.analysis.pipeline", "conflictdesk.store.database",
            "conflictdesk.cli.ask"} <= set(modules)
    results = probe(modules)
    assert [r["module"] for r in results] == modules
    first = next((r["module"] for r in results if r["textual"]), None)
    assert first is None, f"{first} loads textual"
    failed = [r for r in results if r["error"]]
    assert len(failed) <= 3, failed  # only modules of optional extras may fail to import


def test_the_probe_sees_textual_once_a_ui_module_is_imported():
    results = probe(["conflictdesk.types", "conflictdesk.tui.app"])
    assert [r["textual"] for r in results] == [False, True]
