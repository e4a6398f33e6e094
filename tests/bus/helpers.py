"""Small waiting helper for tests on a real, asynchronous bus."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from app.bus.session import BusSession

T = TypeVar("T")


def wait_for(predicate: Callable[[], T], timeout: float = 5.0, every: float = 0.01) -> T:
    """Polls until predicate() is truthy; returns its value or fails with a clear message."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(every)


def wait_until_heard(session: BusSession, key: str, timeout: float = 5.0) -> None:
    """Until ``session`` knows of a subscriber on ``key``: subscriptions reach the other
    sessions asynchronously, and a sample put before that is not delivered."""
    probe = session.zenoh.declare_publisher(key)
    try:
        wait_for(lambda: probe.matching_status.matching, timeout)
    finally:
        probe.undeclare()
