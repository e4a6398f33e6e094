"""When to save the black box by itself: a robot raises a critical fault or engages its
e-stop. Qt-free; fed the station's vitals snapshot."""

from __future__ import annotations

from collections.abc import Mapping

from app.station.vitals import RobotVitals


class IncidentWatch:
    """Each incident is told once. What is already so when the watch first looks (a fault
    raised before the station connected) is not an incident: the minute before it is not
    in the black box."""

    def __init__(self) -> None:
        self._primed = False
        self._faults: set[tuple[str, int]] = set()  # (robot, fault seq) seen
        self._estop: dict[str, bool] = {}

    def check(self, vitals: Mapping[str, RobotVitals]) -> list[str]:
        """What happened since the last check, one line each."""
        found: list[str] = []
        for robot_id, robot in vitals.items():
            for fault in robot.faults:
                if fault.severity != "critical" or not fault.active:
                    continue
                if (robot_id, fault.seq) not in self._faults:
                    self._faults.add((robot_id, fault.seq))
                    found.append(f"{robot_id}: critical fault {fault.code}")
            estop = robot.status is not None and robot.status.estop
            if estop and robot_id in self._estop and not self._estop[robot_id]:
                found.append(f"{robot_id}: e-stop engaged")
            self._estop[robot_id] = estop
        if not self._primed:
            self._primed = True
            return []
        return found
