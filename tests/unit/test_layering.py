"""Imports point one way: cli, tui → app → store → engine. The engine's modules never import the
store, the TUI or Textual; the store never imports the TUI; the front ends (cli, tui) reach the
engine and the store only through the application layer `conflictdesk.app` and the types it
hands out (checked statically, on the source)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The application layer wires the store to the engine; the CLI starts the TUI; the benchmarks
# time the application layer and the store from outside, as a front end does.
ENGINE_EXEMPT = ("cli", "app", "benchmarks")
# What a front end may import from the package: the app layer, the front ends themselves, and
# the modules of types (data, errors, stage names) that cross the app layer.
FRONT_END_ALLOWED = (
    "conflictdesk.app",
    "conflictdesk.cli",
    "conflictdesk.tui",
    "conflictdesk.types",
    "conflictdesk.errors",
    "conflictdesk.stages",
    "conflictdesk.terminal",  # terminal safety: how front ends show outside text
    "conflictdesk.analysis.types",
    "conflictdesk.generation.types",
)


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


def test_store_makes_no_model_calls():
    """Persistence only: no back-ends, no stage that calls a model, no application layer."""
    model_users = ("conflictdesk.backends", "conflictdesk.analysis", "conflictdesk.generation",
                   "conflictdesk.scoring", "conflictdesk.app", "conflictdesk.retrieval.hybrid")  # fmt: skip
    assert violations(ROOT / "store", model_users) == []
    for path in sorted((ROOT / "store").rglob("*.py")):
        assert ".embed(" not in path.read_text(encoding="utf-8"), path


def test_the_check_catches_a_forbidden_import(tmp_path):
    (tmp_path / "bad.py").write_text("from conflictdesk.store import Store\nimport textual\n")
    found = violations(tmp_path, ("conflictdesk.store",))
    assert {name for _, name in found} == {"conflictdesk.store", "textual"}


def front_end_violations(folder: Path) -> list[tuple[str, str]]:
    """Imports of the package's modules other than the app layer and its types."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for name in imported_modules(path):
            inside = name == "conflictdesk" or name.startswith("conflictdesk.")
            allowed = name == "conflictdesk" or any(
                name == ok or name.startswith(ok + ".") for ok in FRONT_END_ALLOWED
            )
            if inside and not allowed:
                found.append((str(path.relative_to(folder)), name))
    return found


def test_cli_and_tui_import_only_the_app_layer_and_types():
    assert front_end_violations(ROOT / "conflictdesk" / "cli") == []
    assert front_end_violations(ROOT / "tui") == []


def test_the_front_end_check_catches_an_engine_import(tmp_path):
    (tmp_path / "cmd.py").write_text(
        "from conflictdesk.app import Desk\nfrom conflictdesk.store import Store\n"
        "from conflictdesk.analysis.pipeline import analyze\nfrom conflictdesk.types import Passage\n"
    )
    found = {name for _, name in front_end_violations(tmp_path)}
    assert found == {"conflictdesk.store", "conflictdesk.analysis.pipeline"}
