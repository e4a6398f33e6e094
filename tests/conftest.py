"""Fixtures every test folder may use: free loopback endpoints and zenoh sessions on them;
and, for each pytest-xdist worker, an X display of its own."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Callable, Iterator

import pytest

from app.bus.config import BusConfig
from app.bus.session import BusSession

WORKER_SCREEN = "1920x1080x24"  # as scripts/test.sh's xvfb-run gives the whole run
_own_display: list[subprocess.Popen[bytes]] = []


def pytest_configure(config: pytest.Config) -> None:
    """An xdist worker under Xvfb starts a private Xvfb server: workers sharing one display
    take the keyboard focus and the active window from each other (a shortcut reaches only
    the active window), a race no test can wait out."""
    if not os.environ.get("PYTEST_XDIST_WORKER") or not os.environ.get("DISPLAY") \
            or not shutil.which("Xvfb"):
        return
    read_fd, write_fd = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", WORKER_SCREEN, "-nolisten",
         "tcp"], pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    with os.fdopen(read_fd) as numbers:
        display = numbers.readline().strip()
    if not display:
        server.kill()
        raise RuntimeError("the worker's Xvfb did not start")
    _own_display.append(server)
    os.environ["DISPLAY"] = f":{display}"
    os.environ.pop("XAUTHORITY", None)  # xvfb-run's cookie is for its own display


def pytest_unconfigure(config: pytest.Config) -> None:
    for server in _own_display:
        server.terminate()
        server.wait(timeout=10)
    _own_display.clear()


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
