from __future__ import annotations

import pytest

from tests.fakes import fake_backends


@pytest.fixture
def backends():
    return fake_backends()


@pytest.fixture
def backends_llm():
    return fake_backends(with_llm=True)
