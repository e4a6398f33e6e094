"""The health panels' robot picker: its list follows the robots as they come, a pinned
robot stays chosen, and a thousand robots are not sorted again on every tick."""

from __future__ import annotations

import time

from app.station.frame import FrameBatch
from app.station.robots import RobotInfo, StationStatus
from app.station.vitals import RobotVitals
from panels.robot_picker import FOLLOW, RobotPicker


def listed(picker: RobotPicker) -> list[str]:
    return [picker.itemText(i) for i in range(picker.count())]


def batch(robots: list[RobotInfo], vitals: dict[str, RobotVitals],
          active: str | None = None) -> FrameBatch:
    return FrameBatch(0.0, StationStatus(), active, robots, vitals=vitals)


def test_the_list_follows_the_robots_and_a_pinned_robot_stays(qtbot) -> None:
    picker = RobotPicker()
    qtbot.addWidget(picker)
    robots = [RobotInfo("rover-2"), RobotInfo("rover-1")]
    assert picker.vitals(batch(robots, {}, "rover-2")) == ("rover-2", None)
    assert listed(picker) == [FOLLOW, "rover-1", "rover-2"]

    vitals = {"car-1": RobotVitals("car-1")}  # vitals before its robot is listed
    assert picker.vitals(batch(robots, vitals, "rover-2"))[0] == "rover-2"
    assert listed(picker) == [FOLLOW, "car-1", "rover-1", "rover-2"]

    picker.setCurrentIndex(picker.findData("rover-1"))  # the operator pins rover-1
    more = [*robots, RobotInfo("boat-1")]  # the window's next list of robots
    assert picker.vitals(batch(more, vitals, "rover-2"))[0] == "rover-1"
    assert listed(picker) == [FOLLOW, "boat-1", "car-1", "rover-1", "rover-2"]
    assert picker.currentText() == "rover-1"
    assert picker.save() == {"robot": "rover-1"}

    gone = [RobotInfo("boat-1")]  # rover-1 gone from the station: still pinned, still listed
    assert picker.vitals(batch(gone, {}, "boat-1"))[0] == "rover-1"
    assert listed(picker) == [FOLLOW, "boat-1", "rover-1"]


def test_a_thousand_robots_cost_nothing_on_the_ticks_between_their_lists(qtbot) -> None:
    picker = RobotPicker()
    qtbot.addWidget(picker)
    robots = [RobotInfo(f"rover-{i:04d}") for i in range(1000)]
    vitals = {r.robot_id: RobotVitals(r.robot_id) for r in robots}
    picker.refresh(batch(robots, vitals))
    assert picker.count() == 1001

    def seconds_per_tick(make_vitals: bool) -> float:
        start = time.process_time()
        for _ in range(100):
            picker.refresh(batch(robots, dict(vitals) if make_vitals else vitals))
        return (time.process_time() - start) / 100

    # a new vitals snapshot on every tick (a vital came), the same robots
    assert seconds_per_tick(make_vitals=True) < 0.5e-3
    sorted_again = time.process_time()
    picker.refresh(batch(list(robots), vitals))  # the window's next list: looked at again
    assert picker.count() == 1001
    assert time.process_time() - sorted_again < 0.25  # sorted, not rebuilt
