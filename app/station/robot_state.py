"""A robot's state in one word, from what the station knows of it (presence, e-stop, active
faults, battery): the robots panel filters and groups by it, the fleet map colours by it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from app.station.robots import RobotInfo
from app.station.vitals import SEVERITIES, Fault

ESTOP, FAULT, WARNING, OFFLINE, OK = "estop", "fault", "warning", "offline", "ok"
STATES = (ESTOP, FAULT, WARNING, OFFLINE, OK)  # most urgent first: the groups' order
STATE_LABELS = {ESTOP: "E-stop", FAULT: "Fault", WARNING: "Warning", OFFLINE: "Offline",
                OK: "OK"}

MINOR = SEVERITIES.index("minor")


@dataclass(frozen=True)
class RobotState:
    state: str  # one of STATES
    why: str  # in words, for the tooltip


def robot_state(robot: RobotInfo, faults: Sequence[Fault], warning_pct: float,
                critical_pct: float, estop_reason: str = "") -> RobotState:
    """Offline wins (what it said last is stale), then an engaged e-stop, then a critical or
    major active fault or a critical battery, then a minor fault or a low or nonsense
    battery reading."""
    if not robot.online:
        return RobotState(OFFLINE, "Offline")
    if robot.estop:
        return RobotState(ESTOP, "Emergency stop engaged"
                          + (f": {estop_reason}" if estop_reason else ""))
    battery = robot.battery_pct
    alerting = [f for f in faults if f.active and f.alerts]
    if alerting:
        return RobotState(FAULT, f"{len(alerting)} critical or major fault"
                                 f"{'' if len(alerting) == 1 else 's'} active")
    if battery is not None and math.isfinite(battery) and battery <= critical_pct:
        return RobotState(FAULT, f"Battery critical ({battery:.0f} %)")
    if any(f.active and f.rank == MINOR for f in faults):
        return RobotState(WARNING, "Minor fault active")
    if battery is not None and not math.isfinite(battery):
        return RobotState(WARNING, "Battery level reported is not a number")
    if battery is not None and battery <= warning_pct:
        return RobotState(WARNING, f"Battery low ({battery:.0f} %)")
    return RobotState(OK, "Online, nothing wrong reported")
