"""`scripts/` holds thin entry points (STYLE.md §9): in every script no function is longer than
60 lines, nothing edits `sys.path`, and no script imports another script or `tests`; no test
imports or loads a script; no module anywhere edits `sys.path` or names the shared data
folder by an absolute path (locations come from `conflictdesk.config.Settings`).

Scripts whose owners are still making them compliant are listed in PENDING and xfail (not
strict, so a fixed one shows as XPASS until its entry is removed); every other script must
pass. ABSOLUTE_PATH_PENDING likewise lists the scripts that still name /work/shared."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
MAX_FUNCTION_LINES = 60
# script -> owner (notes/common.md); remove the entry when the owner's branch lands.
PENDING: dict[str, str] = {}
# Scripts that still write an absolute path to the shared data (a default, or a provenance
# note in the manifest): the data folder is the `data_dir` setting.
ABSOLUTE_PATH_PENDING: dict[str, str] = {}
# Loading a file as a module by its path, the way a test could reach a script.
LOADERS = ("spec_from_file_location", "SourceFileLoader", "run_path", "exec(")
SKIPPED_FOLDERS = {".venv", ".git", "build", "dist", "node_modules"}


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if not SKIPPED_FOLDERS & set(p.parts))


def long_functions(tree: ast.AST) -> list[str]:
    nodes = (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return [f"{n.name} has {n.end_lineno - n.lineno + 1} lines" for n in nodes
            if n.end_lineno - n.lineno + 1 > MAX_FUNCTION_LINES]  # fmt: skip


def sys_path_edits(tree: ast.AST) -> list[str]:
    """Any use of `sys.path` (insert, append, assignment) or `from sys import path`."""
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr == "path"
                and isinstance(node.value, ast.Name) and node.value.id == "sys"):  # fmt: skip
            found.append(f"sys.path at line {node.lineno}")
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module == "sys"
            and any(alias.name == "path" for alias in node.names)
        ):
            found.append(f"from sys import path at line {node.lineno}")
    return found


def top_level_imports(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def script_problems(path: Path, script_names: set[str]) -> list[str]:
    """What breaks the scripts rules in one script."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    problems = long_functions(tree) + sys_path_edits(tree)
    imported = top_level_imports(tree)
    problems += [f"imports {name}" for name in sorted(imported & {"tests", "scripts"})]
    siblings = imported & (script_names - {path.stem})
    problems += [f"imports the script {name}" for name in sorted(siblings)]
    return problems


def problems_in_test(path: Path, script_names: set[str]) -> list[str]:
    """A test that imports a script, or loads a file of scripts/ by its path."""
    source = path.read_text(encoding="utf-8")
    imported = top_level_imports(ast.parse(source))
    problems = [f"imports {name}" for name in sorted(imported & ({"scripts"} | script_names))]
    if "scripts" in source and any(loader in source for loader in LOADERS):
        problems.append("loads a file by path next to a mention of scripts/")
    return problems


def _script_names() -> set[str]:
    return {p.stem for p in SCRIPTS.glob("*.py")}


def _script_params() -> list:
    marks = {name: pytest.mark.xfail(reason=f"pending: {owner} is making it thin", strict=False)
             for name, owner in PENDING.items()}  # fmt: skip
    return [pytest.param(p.name, marks=marks.get(p.name, ()), id=p.name)
            for p in sorted(SCRIPTS.glob("*.py"))]  # fmt: skip


@pytest.mark.parametrize("name", _script_params())
def test_script_is_a_thin_entry_point(name):
    assert script_problems(SCRIPTS / name, _script_names()) == []


def test_pending_lists_only_existing_scripts():
    assert set(PENDING) | set(ABSOLUTE_PATH_PENDING) <= {p.name for p in SCRIPTS.glob("*.py")}


def test_no_test_imports_or_loads_a_script():
    found = {str(p.relative_to(ROOT)): problems_in_test(p, _script_names())
             for p in python_files(ROOT / "tests") if p.name != Path(__file__).name}  # fmt: skip
    assert {path: problems for path, problems in found.items() if problems} == {}


@pytest.mark.parametrize("folder", ["conflictdesk", "store", "tui", "tests"])
def test_no_module_edits_sys_path(folder):
    found = {str(p.relative_to(ROOT)): sys_path_edits(ast.parse(p.read_text(encoding="utf-8")))
             for p in python_files(ROOT / folder) if p.name != Path(__file__).name}  # fmt: skip
    assert {path: edits for path, edits in found.items() if edits} == {}


@pytest.mark.parametrize("folder", ["conflictdesk", "store", "tui", "scripts"])
def test_no_absolute_path_to_the_shared_data(folder):
    pending = {f"scripts/{name}" for name in ABSOLUTE_PATH_PENDING}
    found = [str(p.relative_to(ROOT)) for p in python_files(ROOT / folder)
             if "/work/shared" in p.read_text(encoding="utf-8")]  # fmt: skip
    assert sorted(set(found) - pending) == []


# -- the checks themselves catch what they should -------------------------------------------


BAD_SCRIPT = """
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
import tests.fakes
import other_script


def long():
{body}
"""


def test_the_script_check_finds_each_kind_of_problem(tmp_path):
    body = "\n".join(f"    x{n} = {n}" for n in range(MAX_FUNCTION_LINES))
    path = tmp_path / "bad.py"
    path.write_text(BAD_SCRIPT.format(body=body), encoding="utf-8")
    problems = script_problems(path, {"bad", "other_script"})
    assert problems == [f"long has {MAX_FUNCTION_LINES + 1} lines", "sys.path at line 4",
                        "imports tests", "imports the script other_script"]  # fmt: skip


def test_a_sixty_line_function_passes(tmp_path):
    body = "\n".join(f"    x{n} = {n}" for n in range(MAX_FUNCTION_LINES - 1))
    path = tmp_path / "ok.py"
    path.write_text(f"def fine():\n{body}\n", encoding="utf-8")
    assert script_problems(path, {"ok"}) == []


def test_the_test_check_finds_a_script_loaded_by_path(tmp_path):
    path = tmp_path / "test_bad.py"
    path.write_text(
        "import importlib.util\nimport eval_thing\n"
        "spec = importlib.util.spec_from_file_location('x', 'scripts/eval_thing.py')\n",
        encoding="utf-8",
    )
    assert problems_in_test(path, {"eval_thing"}) == [
        "imports eval_thing",
        "loads a file by path next to a mention of scripts/",
    ]
