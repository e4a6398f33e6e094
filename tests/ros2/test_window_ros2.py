"""A fresh station's window on a ROS 2 robot that knows nothing of Fieldstation (issue 30's
"each panel shows its data"): the robot is another process speaking rmw_zenoh with rosbags'
CDR (tests/ros2_robot.py), the window opens its default layout from a new config dir, as
``fieldstation --no-sim --connect`` does. What is asserted is what the user sees: the robot
listed and chosen with no click, its battery's charge and its diagnostic as text, its
camera's pixels, its cloud drawn in the 3D view, its scan, odometry, markers and
detections each a 3D layer with data, no decode error."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from app import resources
from app.qt.main_window import MainWindow
from panels.camera import CameraPanel
from panels.scene3d import Scene3DPanel
from panels.status import StatusPanel
from tests.qt.screen import (
    colour_share,
    grabbed,
    layer_status,
    panel_of,
    robot_online,
    robots_row,
    shows,
    texts_on_screen,
)
from tests.ros2_robot import BATTERY_PCT, Ros2RobotProcess

pytestmark = [pytest.mark.slow, pytest.mark.gl]
ROBOT = "rover_1"
WAIT_MS = 20_000  # generous: two cores, other tests running beside
CHARGE = f"{BATTERY_PCT:.0f} %"
DIAGNOSTIC = "base: motor"  # the DiagnosticStatus name: the fault's code
PINK, GREEN = (250, 20, 180), (20, 200, 90)  # the robot's JPEG halves, as RGB
LAYERS = ("points", "scan", "odom", "markers", "detections")  # its topics drawn in 3D
SATURATED = 120  # a pixel whose channels differ this much is coloured: no grey of the grid
CLOUD_PIXELS = 200  # the robot's wall of 2,000 points, 4 m ahead, at the least


@pytest.fixture
def robot(free_endpoint: str) -> Iterator[Ros2RobotProcess]:
    with Ros2RobotProcess(free_endpoint, ROBOT) as robot:
        yield robot


def camera_shows_the_robots_pixels(window: MainWindow) -> bool:
    pixels = grabbed(panel_of(window, CameraPanel).view)
    return colour_share(pixels, PINK) > 0.02 and colour_share(pixels, GREEN) > 0.02


def coloured_pixels_in_3d(window: MainWindow) -> int:
    """Pixels of the 3D view in colour (the cloud's height colours, the pallet, the axes), not
    the greys of the background and grid."""
    image = panel_of(window, Scene3DPanel).view.render_image()[..., :3].astype(int)
    return int(((image.max(axis=-1) - image.min(axis=-1)) >= SATURATED).sum())


def layer_item(window: MainWindow, suffix: str) -> QTreeWidgetItem:
    tree = panel_of(window, Scene3DPanel).findChild(QTreeWidget)
    items = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    return next(i for i in items if i.text(0).endswith(suffix))


def test_a_fresh_window_shows_the_ros2_robot_in_every_panel_with_no_click(
        make_main_window: Callable[..., MainWindow], robot: Ros2RobotProcess,
        qtbot: Any) -> None:
    window = make_main_window(show=True)
    window.resize(1600, 900)
    assert window.load_named_layout(resources.DEFAULT_LAYOUT)
    qtbot.waitUntil(lambda: robot_online(window, ROBOT), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: window.active_robot == ROBOT, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "ros2" in robots_row(window, ROBOT), timeout=WAIT_MS)
    assert robots_row(window, ROBOT)[0] == "online"

    qtbot.waitUntil(lambda: shows(window, CHARGE) and shows(window, DIAGNOSTIC),
                    timeout=WAIT_MS)
    assert panel_of(window, StatusPanel).text("Battery").startswith(CHARGE)
    qtbot.waitUntil(lambda: camera_shows_the_robots_pixels(window), timeout=WAIT_MS)
    for layer in LAYERS:
        qtbot.waitUntil(lambda s=f"{ROBOT}/{layer}": layer_status(window, s).startswith("ok"),
                        timeout=WAIT_MS)
    qtbot.waitUntil(lambda: coloured_pixels_in_3d(window) > 2 * CLOUD_PIXELS,
                    timeout=WAIT_MS)
    with_cloud = coloured_pixels_in_3d(window)
    layer_item(window, f"{ROBOT}/points").setCheckState(0, Qt.CheckState.Unchecked)
    qtbot.waitUntil(lambda: coloured_pixels_in_3d(window) < with_cloud - CLOUD_PIXELS,
                    timeout=WAIT_MS)  # what went was the cloud's
    assert shows(window, "0 decode errors"), texts_on_screen(window)
