"""Imports point one way: tui → store → engine. The engine's modules never import the store,
the TUI or Textual, and the store never imports the TUI (checked statically, on the source)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The CLI is the composition root and may wire the store and TUI to the engine.
ENGINE_EXEMPT = ("cli",)


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def violations(folder: Path, forbidden: tuple[str, ...], exempt: tuple[str, ...] = ()) -> list:
    found = []
    for path in sorted(folder.rglob("*.py")):
        if path.relative_to(folder).parts[0] in exempt:
            continue
        for name in imported_modules(path):
            if name == "textual" or name.startswith(forbidden):
                found.append((str(path.relative_to(folder)), name))
    return found


def test_engine_never_imports_store_tui_or_textual():
    forbidden = ("conflictdesk.store", "conflictdesk.tui", "textual.")
    assert violations(ROOT / "conflictdesk", forbidden, ENGINE_EXEMPT) == []


def test_store_never_imports_the_tui():
    assert violations(ROOT / "store", ("conflictdesk.tui", "textual.")) == []


def test_the_check_catches_a_forbidden_import(tmp_path):
    (tmp_path / "bad.py").write_text("from conflictdesk.store import Store\nimport textual\n")
    found = violations(tmp_path, ("conflictdesk.store",))
    assert {name for _, name in found} == {"conflictdesk.store", "textual"}
