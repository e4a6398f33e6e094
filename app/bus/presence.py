"""Robot presence from liveliness tokens: ``fleet/<robotId>`` alive = robot online."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import zenoh

from app.bus.keys import DEFAULT_ROOT, robot_key, robot_of
from app.bus.session import BusError, BusSession


@dataclass
class RobotPresence:
    robot_id: str
    online: bool
    changed: float  # time.monotonic() of the last change


class PresenceTracker:
    def __init__(
        self,
        bus: BusSession,
        root: str = DEFAULT_ROOT,
        on_change: Callable[[RobotPresence], None] | None = None,
    ) -> None:
        self.root = root
        self._robots: dict[str, RobotPresence] = {}
        self._lock = threading.Lock()
        self._on_change = on_change
        self._own = _presence_session(bus)
        self._bus = self._own or bus
        self._handle = self._bus.declare_liveliness_subscriber(f"{root}/*", self._receive)

    def _receive(self, sample: Any) -> None:
        robot_id = robot_of(str(sample.key_expr), self.root)
        if robot_id is None:
            return
        presence = RobotPresence(robot_id, sample.kind == zenoh.SampleKind.PUT, time.monotonic())
        with self._lock:
            self._robots[robot_id] = presence
        if self._on_change is not None:
            self._on_change(presence)

    def robots(self) -> dict[str, RobotPresence]:
        with self._lock:
            return dict(self._robots)

    def online(self) -> list[str]:
        return sorted(r.robot_id for r in self.robots().values() if r.online)

    def close(self) -> None:
        self._bus.release(self._handle)
        if self._own is not None:
            self._own.close()


def _presence_session(bus: BusSession) -> BusSession | None:
    """A session of its own for the tokens, where the config allows one (it connects
    somewhere, no config file may name where it listens): a session that knows of tokens
    matches every data sample it receives against each of them (zenoh 1.x), 0.6 of a core
    at a thousand robots."""
    config = bus.config
    if not config.connect or config.config_file:
        return None
    try:
        own = BusSession(dataclasses.replace(config, listen=[]))
    except BusError:
        return None
    bus.keep(_ClosedWith(own))  # closing the session closes this one too
    return own


class _ClosedWith:
    """A session held by another as a handle: undeclaring it closes it."""

    def __init__(self, session: BusSession) -> None:
        self._session = session

    def undeclare(self) -> None:
        self._session.close()


def announce(bus: BusSession, robot_id: str, root: str = DEFAULT_ROOT) -> Any:
    """Declares the robot's liveliness token; it lives until undeclared or the session ends."""
    return bus.declare_token(robot_key(robot_id, root))
