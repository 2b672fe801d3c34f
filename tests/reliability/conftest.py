"""Shared fixtures of the reliability suite: the CLI run in-process on fake back-ends."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from conflictdesk.cli import common, main
from tests.fakes import fake_backends


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def fake_models(monkeypatch):
    """Every command's back-ends are the deterministic fakes (no model files are read)."""
    backends = fake_backends()
    monkeypatch.setattr(common, "make_backends", lambda settings, roles: backends)
    return backends


@pytest.fixture
def cli(capsys, monkeypatch) -> Callable[..., Result]:
    """`cli(*argv, stdin=b"...")`: run the command in-process; stdin is given as bytes."""

    def run(*argv: str, stdin: bytes | None = None) -> Result:
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), "utf-8"))
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = int(exc.code)
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run
