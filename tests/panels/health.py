"""Shared by the health panel tests: a fast simulated rover over real zenoh, a window on
it with the rover active, and a host for panels fed plain vitals."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.sim.fleet import SimFleet
from app.sim.rover import SimRover
from app.station.frame import FrameBatch
from app.station.robots import RobotInfo, StationStatus
from app.station.vitals import RobotVitals

ROVER = "rover-1"
TIMEOUT_MS = 10_000


@pytest.fixture
def rover_fleet(free_endpoint: str) -> Iterator[SimFleet]:
    """The rover alone, sped up: its battery drains fast (no charging when idle) and its
    faults cycle every 2 s (critical in the fourth slot)."""
    fleet = SimFleet(["rover"], listen=[free_endpoint], points=2_000, lidar_hz=1.0)
    rover = rover_of(fleet)
    rover.battery.speedup = 3000.0
    rover.controls.settings["chargeWhenIdle"] = False
    rover.battery.charge_when_idle = False
    rover.faults.period_s = 2.0
    with fleet:
        yield fleet


def rover_of(fleet: SimFleet) -> SimRover:
    rover = fleet.robots[0]
    assert isinstance(rover, SimRover)
    return rover


def open_on_rover(make_main_window: Any, panel_id: str, state: dict | None = None) -> Any:
    window = make_main_window(show=True)
    panel = window.open_panel(panel_id, state)
    window.set_active_robot(ROVER)
    return window, panel


class LiveStation:
    """What a hand-fed panel asks of its station: live (no log playing), its root key and
    its clock."""

    root = "fleet"
    playback = False
    player = None

    @staticmethod
    def now() -> float:
        return time.time()


class PlainHost:
    """A host for a panel fed by hand: records alerts and messages."""

    station = LiveStation()

    def __init__(self, config_dir: Path) -> None:
        self.config_dir = config_dir
        self.alerts: list[str] = []
        self.messages: list[str] = []

    def open_panel(self, *args: object, **kwargs: object) -> None: ...

    def set_active_robot(self, robot_id: str | None) -> None: ...

    def show_message(self, text: str) -> None:
        self.messages.append(text)

    def alert(self, panel: Any, text: str) -> None:
        self.alerts.append(text)

    def alert_seen(self, panel: Any) -> None:
        self.alerts.clear()

    def alerting(self, panel: Any) -> bool:
        return bool(self.alerts)


def batch_of(*vitals: RobotVitals, now: float = 100.0, active: str | None = ROVER) -> FrameBatch:
    return FrameBatch(now, StationStatus(), active,
                      robots=[RobotInfo(v.robot_id, online=True) for v in vitals],
                      vitals={v.robot_id: v for v in vitals})


class RobotVoice:
    """Publishes fleet uplinks as rover-1 over real zenoh (for states the sim only reaches
    by chance: two faults at once, a fault that stays)."""

    def __init__(self, bus: Any) -> None:
        self.bus = bus
        self._publishers: dict[str, Any] = {}

    def say(self, member: str, **fields: Any) -> None:
        from app.bus.keys import uplink_key
        from app.bus.publisher import Publisher, Traffic
        from app.codec.registry import registry

        key = uplink_key(ROVER, member)
        if key not in self._publishers:
            self._publishers[key] = Publisher(self.bus, key, "fleet.Uplink", Traffic.TELEMETRY)
        message = registry().struct("fleet.Uplink").new_message(robotId=ROVER, unixTimeMs=1)
        part = message.init(member)
        for name, value in fields.items():
            setattr(part, name, value)
        self._publishers[key].put(message)


def fault(code: str, severity: str, active: bool = True, raised_ms: int = 1_700_000_000_000,
          source: str = "test", message: str = "") -> dict[str, Any]:
    return {"code": code, "severity": severity, "active": active, "raisedUnixTimeMs": raised_ms,
            "source": source, "message": message or f"{code} message"}
