"""A regular (non-editable) install into a fresh virtual environment finds the shipped models
and the example collection through the import system and runs `conflictdesk demo`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("setup.py", "pyproject.toml", "README.md", "conflictdesk", "store", "tui", "models",
           "examples")  # fmt: skip

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=600,
                          **kwargs)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A fresh venv holding a wheel built from a copy of the source tree; the dependencies
    come from this environment's site-packages (a path entry, so no editable finder runs)."""
    work = tmp_path_factory.mktemp("install")
    source = work / "src"
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__")
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, source / name)
    env_dir = work / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)])
    python = env_dir / "bin" / "python"
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
                .stdout.strip())  # fmt: skip
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
          str(source)])  # fmt: skip
    shutil.rmtree(source)  # nothing may be found in the source tree
    return env_dir


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFLICTDESK_")}
    env.update(CONFLICTDESK_CONFIG=str(tmp_path / "none.toml"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_DATA_HOME=str(tmp_path / "data"))  # fmt: skip
    return env


def test_the_installed_package_carries_its_models_and_examples(venv, tmp_path):
    code = "from conflictdesk.app import shipped_examples, shipped_models as m; print(m())"
    found = _run([str(venv / "bin" / "python"), "-c", code], cwd=tmp_path, env=_env(tmp_path))
    models = Path(found.stdout.strip())
    assert models.is_relative_to(venv) and (models / "manifest.json").is_file()


def test_demo_runs_from_a_regular_install(venv, tmp_path):
    done = _run([str(venv / "bin" / "conflictdesk"), "demo", "--json"], cwd=tmp_path,
                env=_env(tmp_path))  # fmt: skip
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(records) == 6 and all(r["conflict_type"] and r["answer"] for r in records)
    assert (tmp_path / "data" / "conflictdesk" / "conflictdesk.db").is_file()  # the default db
