"""The code base stays clean under the project's ruff configuration (pyproject.toml)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_check_passes():
    # The environment's own (pinned) ruff first, not whichever one PATH finds.
    local = Path(sys.executable).with_name("ruff")
    ruff = str(local) if local.exists() else shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (the dev extra)")
    result = subprocess.run(
        [ruff, "check", "--no-cache", "."], check=False, cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
