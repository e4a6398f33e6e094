"""A ROS 2 robot's std_srvs services, called from the Capabilities panel as an rmw_zenoh client
calls them: the robot (another process, tests/ros2_robot.py) serves ``reset`` (Trigger) and
``enable_motors`` (SetBool) on rmw_zenoh queryables; the panel shows a button for each (two
for SetBool), asks before each call, and shows the robot's answer; the robot hears each
request once, with its data. A call the robot refuses, and a call of a service it does not
serve, are said as the robot's warnings."""

from __future__ import annotations

import itertools
import struct
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox
from rosbags.typesys import Stores, get_typestore

from app.bus.config import BusConfig
from app.bus.session import BusSession
from app.qt.main_window import MainWindow
from app.station.station import Station
from panels.capabilities import CapabilitiesPanel
from tests.bus.helpers import wait_for
from tests.ros2_robot import Ros2RobotProcess

pytestmark = pytest.mark.slow
ROBOT = "rover_1"
WAIT_MS = 20_000
BUTTONS = ("service:enable_motors: true", "service:enable_motors: false", "service:reset")


@pytest.fixture
def robot(free_endpoint: str) -> Iterator[Ros2RobotProcess]:
    with Ros2RobotProcess(free_endpoint, ROBOT) as robot:
        yield robot


def result(panel: CapabilitiesPanel, key: str) -> str:
    return panel.results[key].text()


def test_the_robots_services_are_buttons_that_call_them_and_show_the_answer(
        make_main_window: Callable[..., MainWindow], robot: Ros2RobotProcess, qtbot: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    window = make_main_window(show=True)
    panel = window.open_panel("capabilities")
    assert isinstance(panel, CapabilitiesPanel)
    qtbot.waitUntil(lambda: window.active_robot == ROBOT, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: all(b in panel.controls for b in BUTTONS), timeout=WAIT_MS)
    assert [k for k in panel.controls if k.startswith("service:")] == list(BUTTONS)
    assert "/rover_1/reset" in panel.controls["service:reset"].toolTip()

    answers = iter([QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes,
                    QMessageBox.StandardButton.Yes])
    asked: list[str] = []

    def question(_parent: Any, _title: str, text: str) -> QMessageBox.StandardButton:
        asked.append(text)
        return next(answers)

    monkeypatch.setattr(QMessageBox, "question", question)
    panel.controls["service:reset"].click()  # declined: nothing is called
    assert result(panel, "service:reset") == "" and asked[0].startswith("reset?")
    panel.controls["service:reset"].click()
    qtbot.waitUntil(lambda: "reset: succeeded — odometry reset" in
                    result(panel, "service:reset"), timeout=WAIT_MS)
    panel.controls["service:enable_motors: true"].click()
    qtbot.waitUntil(lambda: "enable_motors: true: succeeded — motors on" in
                    result(panel, "service:enable_motors: true"), timeout=WAIT_MS)
    wait_for(lambda: len(robot.calls) == 2, 5)
    assert robot.calls == [("reset", "-"), ("enable_motors", "True")]
    # calling took control of the robot, as any command to a robot nobody controls does
    assert window.station.authority.control(ROBOT).mine


def said(station: Station) -> list[tuple[str, str]]:
    vitals = station.vitals.get(ROBOT)
    return [(m.level, m.text) for m in vitals.messages] if vitals is not None else []


def test_a_refused_call_and_a_service_the_robot_lacks_are_said_as_warnings(
        robot: Ros2RobotProcess, free_endpoint: str,
        open_session: Callable[..., BusSession]) -> None:
    station = Station(BusConfig(mode="peer", connect=[free_endpoint]))
    driver = open_session(mode="peer", connect=[free_endpoint]).zenoh
    moving = threading.Event()
    try:
        wait_for(lambda: (r := station.robot(ROBOT)) is not None and r.catalog is not None
                 and f"fleet/{ROBOT}/command/service" in [c.key for c in r.catalog.commands],
                 15)
        threading.Thread(target=drive, args=(driver, moving), daemon=True).start()
        wait_for(lambda: len(robot.twists) > 2, 10)  # the base moves

        def call(name: str) -> None:
            def fill(service: Any) -> None:
                service.name, service.trigger = name, None
            station.commands.send(ROBOT, "service", name, fill, "operator")

        call("enable_motors: true")
        wait_for(lambda: ("warn", "enable_motors: true: failed — the base is moving")
                 in said(station), 15, why=lambda: said(station))
        call("horn")
        wait_for(lambda: ("warn", f"horn: no such service on {ROBOT}") in said(station), 15,
                 why=lambda: said(station))
        assert robot.calls == [("enable_motors", "True")]  # the horn asked nothing of it
    finally:
        moving.set()
        station.close()


def drive(session: Any, stop: threading.Event) -> None:
    """Twists on the robot's cmd_vel as any ROS 2 node would say them, at 10 Hz."""
    store = get_typestore(Stores.ROS2_JAZZY)
    twist_type = "geometry_msgs/msg/Twist"
    vector = store.types["geometry_msgs/msg/Vector3"]
    twist = store.types[twist_type](linear=vector(x=0.3, y=0.0, z=0.0),
                                    angular=vector(x=0.0, y=0.0, z=0.0))
    key = f"0/{ROBOT}/cmd_vel/geometry_msgs::msg::dds_::Twist_/{store.hash_rihs01(twist_type)}"
    payload = bytes(store.serialize_cdr(twist, twist_type))
    for seq in itertools.count(1):
        session.put(key, payload, attachment=struct.pack("<qqB16s", seq, time.time_ns(), 16,
                                                         bytes(16)))
        if stop.wait(0.1):
            return
