"""RobotInfo and vitals values as the station makes them, for feeding the robots panel by
hand (its tests, its benchmark): single robots, and a depot's mixed fleet."""

from __future__ import annotations

import itertools
from dataclasses import replace

from app.bus.catalog import Catalog
from app.station.frame import FrameBatch
from app.station.robots import RobotInfo, StationStatus
from app.station.vitals import Fault, RobotVitals

# The simulated fleet's kinds: (name, model, families), as their catalogs say.
KINDS = {
    "rover": ("Field rover", "rover-x2", ["fleet", "isaac", "foxglove"]),
    "humanoid": ("Humanoid", "bow-h1", ["bow"]),
    "car": ("Street car", "autoware-car", ["autoware"]),
}
DEPOT_MIX = ("rover", "humanoid", "rover", "car")
_seq = itertools.count(1)


def robot(robot_id: str, now: float, *, online: bool = True, battery: float | None = 80.0,
          mode: str = "auto", estop: bool = False, kind: str = "") -> RobotInfo:
    name, model, families = KINDS[kind or robot_id.split("-")[0]]
    return RobotInfo(robot_id, online=online, changed=now - 30.0,
                     catalog=Catalog(robot_id, name, model, list(families)),
                     battery_pct=battery, mode=mode, estop=estop,
                     last_data=now - 0.1 if online else now - 30.0)


def fault(code: str, severity: str = "critical") -> Fault:
    seq = next(_seq)
    return Fault(code, severity, f"{code} went wrong", "test", 1_700_000_000_000 + seq,
                 True, 0.0, seq)


def vitals(robot_id: str, *faults: Fault) -> RobotVitals:
    return RobotVitals(robot_id, faults=faults)


def batch(now: float, robots: list[RobotInfo], faults: dict[str, RobotVitals] | None = None,
          active: str | None = None, tables_changed: bool = True) -> FrameBatch:
    return FrameBatch(now, StationStatus(), active_robot=active, robots=robots,
                      tables_changed=tables_changed, vitals=faults or {})


def depot(count: int, now: float) -> tuple[list[RobotInfo], dict[str, RobotVitals]]:
    """``count`` robots of the depot mix (rover-1, humanoid-1, rover-2, car-1...), sorted by
    id as the station lists them: about one in ten offline, one in twenty e-stopped, some
    with a critical, major or minor fault, batteries spread from 5 % to 100 % (cars report
    none)."""
    robots, book = [], {}
    numbers: dict[str, int] = {}
    codes = ("MOTOR_OVERTEMP", "RTK_LOST", "TILT_LIMIT", "LIDAR_STALE")
    for i in range(count):
        kind = DEPOT_MIX[i % len(DEPOT_MIX)]
        number = numbers[kind] = numbers.get(kind, 0) + 1
        robot_id = f"{kind}-{number}"
        info = robot(robot_id, now, online=i % 10 != 7, estop=i % 20 == 3,
                     battery=None if kind == "car" else 5.0 + (i * 37) % 96,
                     mode=("auto", "manual", "idle")[i % 3])
        robots.append(info)
        if i % 6 == 1:
            severity = ("critical", "major", "minor")[i // 6 % 3]
            book[robot_id] = vitals(robot_id, fault(codes[i // 6 % len(codes)], severity))
    return sorted(robots, key=lambda r: r.robot_id), book


def drained(robots: list[RobotInfo], by: float, now: float) -> list[RobotInfo]:
    """The same robots a moment later: every battery down ``by`` %, new data just in."""
    return [replace(r, battery_pct=None if r.battery_pct is None else r.battery_pct - by,
                    last_data=now if r.online else r.last_data) for r in robots]
