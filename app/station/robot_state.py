"""One word for how a robot is, as the fleet map colours it: the robots panel's e-stop and
presence, the faults panel's severities and the battery panel's warning level, folded into
the most urgent of offline > e-stop > fault > warning > ok."""

from __future__ import annotations

from dataclasses import dataclass

from app.station.robots import RobotInfo
from app.station.vitals import RobotVitals

OK, WARNING, FAULT, ESTOP, OFFLINE = "ok", "warning", "fault", "estop", "offline"
STATES = (OK, WARNING, FAULT, ESTOP, OFFLINE)


@dataclass(frozen=True)
class RobotState:
    state: str  # one of STATES
    reason: str  # what made it so, for a tooltip ("" when ok)


def robot_state(info: RobotInfo | None, vitals: RobotVitals | None,
                low_battery_pct: float) -> RobotState:
    """Offline first (it is drawn grey at its last known place, whatever it said last),
    then e-stop, an active critical or major fault, a warning (battery at or below
    ``low_battery_pct``, a minor fault), else ok."""
    if info is not None and not info.online:
        return RobotState(OFFLINE, "offline")
    status = vitals.status if vitals is not None else None
    if (info is not None and info.estop) or (status is not None and status.estop):
        reason = status.estop_reason if status is not None and status.estop else ""
        return RobotState(ESTOP, "e-stop" + (f": {reason}" if reason else ""))
    faults = vitals.faults if vitals is not None else ()
    worst = faults[0] if faults else None  # most severe first
    if worst is not None and worst.alerts:
        return RobotState(FAULT, f"{worst.severity} fault {worst.code}")
    battery = vitals.battery.percentage if vitals is not None and vitals.battery else None
    if battery is None and info is not None:
        battery = info.battery_pct
    if battery is not None and battery <= low_battery_pct:
        return RobotState(WARNING, f"battery {battery:.0f} %")
    if worst is not None and str(worst.severity) == "minor":
        return RobotState(WARNING, f"minor fault {worst.code}")
    return RobotState(OK, "")
