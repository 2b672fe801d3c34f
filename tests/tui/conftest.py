"""Apps for the TUI tests: built on FakeDesk, text cursors frozen (no blink)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable

import pytest
from textual.worker import WorkerCancelled

from conflictdesk.tui.app import ConflictDeskApp
from tests.tui.fake_desk import FakeDesk


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run `async def` tests on a fresh event loop (no asyncio plugin needed)."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    names = pyfuncitem._fixtureinfo.argnames
    asyncio.run(pyfuncitem.obj(**{name: pyfuncitem.funcargs[name] for name in names}))
    return True


@pytest.fixture
def desk() -> FakeDesk:
    return FakeDesk()


@pytest.fixture
def make_app(desk: FakeDesk) -> Callable[..., ConflictDeskApp]:
    def build(engine=None, **kwargs) -> ConflictDeskApp:
        return ConflictDeskApp(engine=engine or desk, cursor_blink=False, **kwargs)

    return build


async def wait_until(pilot, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    """Let the app run until `predicate()` holds; fail after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached before the timeout")
        await pilot.pause(0.02)


async def settle(pilot) -> None:
    """Wait for every worker to finish and for the messages they posted to be handled.

    A screen that polls (the Bench screen, every second) may replace an exclusive worker
    while this waits; a cancelled worker is not a failure, so wait for the ones after it."""
    for _ in range(10):
        try:
            await pilot.app.workers.wait_for_complete()
            break
        except WorkerCancelled:
            continue
    await pilot.pause()
    await pilot.pause()
