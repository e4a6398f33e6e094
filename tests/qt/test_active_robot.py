"""The first minutes: from a fresh config dir the station makes a robot active by itself
(the one chosen last time, else the first online), keeps it through a reconnect and while
it is offline, and a click still changes it. On the real simulated fleet over zenoh."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from app.qt.main_window import MainWindow
from app.sim.fleet import SimFleet
from app.station.active_robot import first_choice
from app.station.robots import RobotInfo

NOW = 10.0  # time.monotonic() of the rule tests: robots came online at 0 unless said

pytestmark = pytest.mark.slow
FLEET = ("car-1", "humanoid-1", "rover-1")


def all_online(window: MainWindow) -> bool:
    return {r.robot_id for r in window.station.robots() if r.online} >= set(FLEET)


def test_a_fresh_station_shows_the_first_robot_online_at_once(
        make_main_window: Callable[..., MainWindow], fleet: SimFleet, qtbot: Any) -> None:
    window = make_main_window(show=True)
    assert window.active_robot is None
    qtbot.waitUntil(lambda: all_online(window), timeout=10_000)
    online_at = time.monotonic()
    qtbot.waitUntil(lambda: window.active_robot is not None, timeout=10_000)
    assert time.monotonic() - online_at < 2.0
    assert window.active_robot in FLEET
    qtbot.waitUntil(lambda: window.teleop().status().link.selected == window.active_robot)


def test_the_robot_chosen_last_comes_back_and_stays_through_a_reconnect(
        make_main_window: Callable[..., MainWindow], fleet: SimFleet, qtbot: Any) -> None:
    first = make_main_window(show=True)
    qtbot.waitUntil(lambda: all_online(first), timeout=10_000)
    first.set_active_robot("rover-1")  # the operator's click
    first.close()
    again = make_main_window(show=True)
    qtbot.waitUntil(lambda: again.active_robot is not None, timeout=10_000)
    assert again.active_robot == "rover-1"
    again.reconnect(again.connection.choice)
    assert again.active_robot == "rover-1"
    qtbot.waitUntil(lambda: again.teleop().status().link.live, timeout=10_000)
    assert again.teleop().status().link.selected == "rover-1"


def test_an_active_robot_that_goes_offline_stays_chosen(
        make_main_window: Callable[..., MainWindow], fleet: SimFleet, qtbot: Any) -> None:
    window = make_main_window(show=True)
    qtbot.waitUntil(lambda: all_online(window), timeout=10_000)
    window.set_active_robot("humanoid-1")
    humanoid = next(r for r in fleet.robots if r.robot_id == "humanoid-1")
    humanoid.stop()  # its zenoh session closes: its liveliness token goes
    qtbot.waitUntil(lambda: not any(r.robot_id == "humanoid-1" and r.online
                                    for r in window.station.robots()), timeout=10_000)
    qtbot.waitUntil(lambda: not any(r.robot_id == "humanoid-1" and r.online
                                    for r in window._robots), timeout=10_000)
    assert window.active_robot == "humanoid-1"


def robots(*online: str, offline: tuple[str, ...] = ()) -> list[RobotInfo]:
    return [RobotInfo(r, online=True) for r in online] + \
        [RobotInfo(r, online=False) for r in offline]


@pytest.mark.parametrize(("active", "remembered", "seen", "chosen"), [
    (None, None, robots(), None),  # nobody online: nothing chosen
    (None, None, robots("rover-2", "car-9"), "car-9"),  # two at once: the same one each time
    (None, "rover-2", robots("car-9", "rover-2"), "rover-2"),  # the one chosen last time
    (None, "rover-7", robots("car-9", offline=("rover-7",)), "car-9"),  # not back in time
    (None, "rover-7", [RobotInfo("car-9", online=True, changed=NOW - 1.0)], None),  # waited
    (None, None, [RobotInfo("car-9", online=True, changed=2.0),
                  RobotInfo("rover-2", online=True, changed=1.0)], "rover-2"),  # came first
    (None, None, [RobotInfo("rover-2", online=True, changed=1.0),
                  RobotInfo("car-9", online=True, changed=1.0001)], "car-9"),  # at once
    ("rover-7", None, robots("car-9", offline=("rover-7",)), None),  # never replaced
])
def test_the_rule_for_a_robot_nobody_chose(active: str | None, remembered: str | None,
                                           seen: list[RobotInfo], chosen: str | None) -> None:
    assert first_choice(active, remembered, seen, NOW) == chosen
