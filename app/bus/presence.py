"""Robot presence from liveliness tokens: ``fleet/<robotId>`` alive = robot online."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import zenoh

from app.bus.keys import DEFAULT_ROOT, robot_key, robot_of
from app.bus.session import BusSession


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
        self._bus = bus
        self._handle = bus.declare_liveliness_subscriber(f"{root}/*", self._receive)

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


def announce(bus: BusSession, robot_id: str, root: str = DEFAULT_ROOT) -> Any:
    """Declares the robot's liveliness token; it lives until undeclared or the session ends."""
    return bus.declare_token(robot_key(robot_id, root))
