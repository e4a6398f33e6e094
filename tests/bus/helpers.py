"""Small waiting helper for tests on a real, asynchronous bus."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from app.bus.session import BusSession

T = TypeVar("T")


def wait_for(predicate: Callable[[], T], timeout: float = 5.0, every: float = 0.01,
             why: Callable[[], object] | None = None) -> T:
    """Polls until predicate() is truthy; returns its value or fails with a clear message
    (with ``why()``'s answer, e.g. the state that kept it from being met)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s"
                                 + ("" if why is None else f": {why()}"))
        time.sleep(every)


def wait_until_heard(session: BusSession, key: str, timeout: float = 5.0,
                     wait: Callable[[Callable[[], object], float], object] = wait_for) -> None:
    """Until ``session`` knows of a subscriber on ``key``: subscriptions reach the other
    sessions asynchronously, and a sample put before that is not delivered. In a window's
    test, ``wait=waiting_in(qtbot)``: the station subscribes to a key a panel wants on the
    window's tick, which a plain wait would hold up."""
    probe = session.zenoh.declare_publisher(key)
    try:
        wait(lambda: probe.matching_status.matching, timeout)
    finally:
        probe.undeclare()


def waiting_in(qtbot: Any) -> Callable[[Callable[[], object], float], object]:
    """``wait_for``'s way of waiting, with the Qt event loop running meanwhile."""
    return lambda predicate, timeout: qtbot.waitUntil(predicate, timeout=int(timeout * 1000))
