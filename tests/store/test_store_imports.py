"""The store keeps sqlite-utils from importing pandas (installed with the `scale` extra), and
pandas stays importable afterwards for Ray Data."""

import subprocess
import sys

import pytest

CHECK = """
import sys
import conflictdesk.store
assert "sqlite_utils" in sys.modules
assert "pandas" not in sys.modules, "sqlite-utils imported pandas"
import pandas
print(pandas.__name__)
"""


def test_the_store_does_not_load_pandas_and_leaves_it_importable():
    pytest.importorskip("pandas")
    done = subprocess.run(
        [sys.executable, "-c", CHECK], check=False, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "pandas"
