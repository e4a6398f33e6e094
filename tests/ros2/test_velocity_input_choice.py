"""A ROS 2 robot with several velocity inputs and no ``cmd_vel`` (a twist_mux's): teleop
drives none until the operator chooses one in the teleop panel, then only that one, through
the same arming machine; the choice outlives the window, and a choice the robot lacks
drives nothing. The robot is another process (tests/ros2_robot.py) reporting the input of
each Twist it heard."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.qt.main_window import MainWindow
from app.station.velocity_inputs import saved_velocity_inputs
from app.teleop.arming import Arming
from panels.teleop import TeleopPanel
from tests.inputs.virtual_gamepad import VirtualGamepad
from tests.ros2_robot import Ros2RobotProcess
from tests.teleop.heard import LATCHED

pytestmark = pytest.mark.slow
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
ROBOT = "rover_1"
INPUTS = ("cmd_vel_nav", "cmd_vel_teleop")


@pytest.fixture
def robot(free_endpoint: str) -> Iterator[Ros2RobotProcess]:
    with Ros2RobotProcess(free_endpoint, ROBOT, inputs=INPUTS) as robot:
        yield robot


def teleop_offered(window: MainWindow) -> bool:
    info = window.station.robot(ROBOT)
    return info is not None and info.catalog is not None and any(
        c.key.endswith("/command/teleop") for c in info.catalog.commands)


def panel_for_rover(window: MainWindow, qtbot: Any) -> TeleopPanel:
    qtbot.waitUntil(lambda: window.active_robot == ROBOT, timeout=15_000)
    window.activateWindow()  # the teleop session drives only from the active window
    qtbot.waitUntil(lambda: QApplication.applicationState()
                    == Qt.ApplicationState.ApplicationActive, timeout=10_000)
    panel = window.open_panel("teleop")
    assert isinstance(panel, TeleopPanel)
    panel.set_source("gamepad")
    qtbot.waitUntil(lambda: panel.ros_input.isVisible()
                    and panel.ros_input.box.count() == 1 + len(INPUTS), timeout=15_000)
    return panel


def choose(panel: TeleopPanel, name: str) -> None:
    box = panel.ros_input.box
    box.setCurrentIndex(box.findData(name))
    box.activated.emit(box.currentIndex())  # as a click on the item does


def test_teleop_drives_only_the_input_chosen_and_the_choice_is_kept(
        make_main_window: Callable[..., MainWindow], robot: Ros2RobotProcess,
        qtbot: Any) -> None:
    window = make_main_window(show=True)
    panel = panel_for_rover(window, qtbot)
    box = panel.ros_input.box
    assert box.itemText(0) == "Automatic: none, choose one"  # two inputs, no cmd_vel
    assert [box.itemText(i) for i in range(1, box.count())] == list(INPUTS)
    assert not teleop_offered(window)
    # what the operator is told, rather than an arming that would send nothing anywhere
    qtbot.waitUntil(lambda: window.teleop().status().teleop.reason
                    == f"{ROBOT} lists no command teleop can drive", timeout=10_000)

    choose(panel, "cmd_vel_teleop")
    qtbot.waitUntil(lambda: teleop_offered(window), timeout=10_000)
    assert saved_velocity_inputs(window.config_dir) == {ROBOT: "cmd_vel_teleop"}
    pad = VirtualGamepad("Operator pad")
    try:
        qtbot.waitUntil(lambda: window.teleop().status().teleop.device == "Operator pad",
                        timeout=10_000)
        pad.set_axis("lefty", -1.0)
        pad.press("leftshoulder")

        def driven() -> bool:
            if window.teleop().status().teleop.reason == LATCHED:  # a late tick: regrip
                pad.release("leftshoulder")
                qtbot.waitUntil(lambda: window.teleop().status().teleop.reason != LATCHED)
                pad.press("leftshoulder")
            return bool(robot.twists) and robot.twists[-1][0] > 0.2

        qtbot.waitUntil(driven, timeout=15_000)
        qtbot.waitUntil(lambda: not box.isEnabled())  # never changed under the operator's hands
        pad.release("leftshoulder")
        qtbot.waitUntil(lambda: window.teleop().status().teleop.state is not Arming.ARMED)
        qtbot.waitUntil(lambda: robot.twists[-1] == (0.0, 0.0), timeout=5_000)
        assert set(robot.inputs_heard) == {"cmd_vel_teleop"}
        qtbot.waitUntil(box.isEnabled)
    finally:
        pad.unplug()

    # A window started again from the same config dir drives the same input.
    window.close()
    again = make_main_window(show=True)
    again_panel = panel_for_rover(again, qtbot)
    assert again_panel.ros_input.box.currentData() == "cmd_vel_teleop"
    qtbot.waitUntil(lambda: teleop_offered(again), timeout=10_000)

    # Chosen but not on the robot: teleop is offered nowhere, never on cmd_vel_nav instead.
    again.station.choose_ros_velocity_input(ROBOT, "joy_vel")
    qtbot.waitUntil(lambda: not teleop_offered(again), timeout=10_000)
    qtbot.waitUntil(lambda: again_panel.ros_input.box.currentText() == "joy_vel (not on the "
                    "robot)", timeout=5_000)
