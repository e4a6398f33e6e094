"""Fixtures every test folder may use: free loopback endpoints and zenoh sessions on them."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator

import pytest

from app.bus.config import BusConfig
from app.bus.session import BusSession


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def free_endpoint() -> str:
    """A tcp endpoint on loopback whose port was free a moment ago."""
    return f"tcp/127.0.0.1:{free_port()}"


@pytest.fixture
def open_session() -> Iterator[Callable[..., BusSession]]:
    """Opens sessions (keyword arguments of BusConfig) and closes them all at teardown."""
    sessions: list[BusSession] = []

    def open_(**config: object) -> BusSession:
        session = BusSession(BusConfig(**config))  # type: ignore[arg-type]
        sessions.append(session)
        return session

    try:
        yield open_
    finally:
        for session in reversed(sessions):
            session.close()


@pytest.fixture
def robot_and_app(
    free_endpoint: str, open_session: Callable[..., BusSession]
) -> tuple[BusSession, BusSession]:
    """A robot-side session listening on a free port and an app session connected to it."""
    robot = open_session(listen=[free_endpoint])
    app = open_session(connect=[free_endpoint], must_connect=True)
    return robot, app


@pytest.fixture
def app_bus(free_endpoint: str) -> Iterator[BusSession]:
    """An app-side peer session connected to ``free_endpoint``; zenoh keeps retrying the
    connection until something listens there (start the fleet before or after)."""
    bus = BusSession(BusConfig(mode="peer", connect=[free_endpoint]))
    try:
        yield bus
    finally:
        bus.close()
