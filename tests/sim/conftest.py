"""Shared fixtures for the simulated-robot tests: a free loopback endpoint and an app session."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from app.bus.config import BusConfig
from app.bus.session import BusSession


@pytest.fixture
def free_endpoint() -> str:
    """A tcp endpoint on loopback whose port was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"tcp/127.0.0.1:{port}"


@pytest.fixture
def app_bus(free_endpoint: str) -> Iterator[BusSession]:
    """An app-side peer session connected to ``free_endpoint`` (start the fleet there first
    or let zenoh keep retrying the connection until it listens)."""
    bus = BusSession(BusConfig(mode="peer", connect=[free_endpoint]))
    try:
        yield bus
    finally:
        bus.close()
