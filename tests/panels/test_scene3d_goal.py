"""The 3D panel's goal tool on the simulated rover over real zenoh, drawn by Mesa under Xvfb:
a goal picked 3 m ahead of the rover, confirmed, heard on the wire in the rover's local
frame, and driven to."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from app.codec.decode import decode, encoding_for

pytestmark = pytest.mark.gl
TIMEOUT_MS = 20_000
ROVER = "fleet/rover-1"


def mouse(widget, kind: QMouseEvent.Type, xy, held: bool) -> None:
    left = Qt.MouseButton.LeftButton
    none = Qt.MouseButton.NoButton
    button = none if kind == QMouseEvent.Type.MouseMove else left
    point = QPointF(float(xy[0]), float(xy[1]))
    event = QMouseEvent(kind, point, widget.mapToGlobal(point), button,
                        left if held else none, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, event)


def drag(view, start, end) -> None:
    canvas = view.canvas.native
    offset = np.array([canvas.pos().x(), canvas.pos().y()], float)
    a, b = np.asarray(start) - offset, np.asarray(end) - offset
    mouse(canvas, QMouseEvent.Type.MouseButtonPress, a, True)
    for t in (0.5, 1.0):
        mouse(canvas, QMouseEvent.Type.MouseMove, a + t * (b - a), True)
    mouse(canvas, QMouseEvent.Type.MouseButtonRelease, b, False)


def press_escape(window, view, qtbot) -> None:
    """Escape in the view of the active window, as the operator presses it."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    view.canvas.native.setFocus()
    qtbot.keyClick(view.canvas.native, Qt.Key.Key_Escape)


def layer_ok(panel, key: str) -> bool:
    item = panel._wanted.get(key)
    return item is not None and item.version >= 0 and not item.error and \
        not item.frame_problem


def test_a_goal_picked_ahead_of_the_rover_is_sent_in_its_frame_and_driven_to(
        make_main_window, fleet, qtbot) -> None:
    rover = next(r for r in fleet.robots if r.robot_id == "rover-1")
    heard: list[bytes] = []
    fleet.hub.declare_subscriber(f"{ROVER}/command/go_to",
                                 lambda sample: heard.append(bytes(sample.payload)))
    window = make_main_window(show=True)
    panel = window.open_panel("scene3d", {"camera": "orbit"})
    window.set_active_robot("rover-1")
    for key in (f"{ROVER}/uplink/motion", f"{ROVER}/tf"):
        qtbot.waitUntil(lambda k=key: layer_ok(panel, k), timeout=TIMEOUT_MS)
    fixed = panel.fixed_frame()
    local = panel.goal_tool.local_frame("rover-1")
    assert local == "rover-1/world"
    base = panel.model.tree.lookup(fixed, "rover-1/base_link").matrix
    panel.view.look_at(base[:3, 3], 15.0)
    target, beyond = base @ [3.0, 0.0, 0.0, 1.0], base @ [4.0, 0.0, 0.0, 1.0]
    start, end = panel.view.project(np.array([target[:3], beyond[:3]]))

    panel.goal_tool.button.click()  # the goal tool on: the mouse picks, the camera stays
    camera = panel.view.camera_state()
    drag(panel.view, start, end)
    assert panel.view.camera_state() == camera
    assert panel.goal_tool.bar.isVisible()
    assert "Send goal to rover-1" in panel.goal_tool.label.text()
    assert "goal-tool|marker" in panel.view.group_ids()  # the preview arrow
    marker = panel.view.group("goal-tool|marker")
    assert marker.label_texts() == ["goal (not sent)"]
    assert not heard  # nothing leaves before the operator confirms

    expected = panel.model.tree.lookup(local, "rover-1/base_link").matrix @ [3.0, 0, 0, 1]
    heading = math.atan2(base[1, 0], base[0, 0])
    start = (rover.base.pose.x, rover.base.pose.y)
    qtbot.mouseClick(panel.goal_tool.send_button, Qt.MouseButton.LeftButton)
    assert marker.label_texts() == ["rover-1: sent"]  # at once, not after the next frame
    qtbot.waitUntil(lambda: bool(heard), timeout=TIMEOUT_MS)
    command = decode(encoding_for("fleet.Command"), heard[0]).root
    assert command.which() == "goTo" and command.robotId == "rover-1"
    pose = command.goTo.pose3
    assert (pose.x, pose.y) == pytest.approx((expected[0], expected[1]), abs=0.15)
    yaw = 2 * math.atan2(pose.qz, pose.qw)
    assert math.remainder(yaw - heading, 2 * math.pi) == pytest.approx(0.0, abs=0.1)
    assert not panel.goal_tool.bar.isVisible()

    qtbot.waitUntil(lambda: rover.run is not None
                    and rover.run.mission_id == f"goto-{command.seq}", timeout=TIMEOUT_MS)
    # it drives towards it (a quick rover may be there before a loaded test looks)
    qtbot.waitUntil(lambda: math.dist((rover.base.pose.x, rover.base.pose.y), start) > 1.0,
                    timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: panel.goal_tool.status.startswith(("accepted", "driving",
                                                                "reached")),
                    timeout=TIMEOUT_MS)

    press_escape(window, panel.view, qtbot)  # the marker goes
    assert "goal-tool|marker" not in panel.view.group_ids()
    assert panel.goal_tool.goal is None


def test_escape_cancels_a_goal_before_it_is_sent(make_main_window, fleet, qtbot) -> None:
    heard: list[bytes] = []
    fleet.hub.declare_subscriber(f"{ROVER}/command/go_to",
                                 lambda sample: heard.append(bytes(sample.payload)))
    window = make_main_window(show=True)
    panel = window.open_panel("scene3d", {"camera": "top"})
    window.set_active_robot("rover-1")
    qtbot.waitUntil(lambda: layer_ok(panel, f"{ROVER}/tf"), timeout=TIMEOUT_MS)
    panel.goal_tool.button.click()
    centre = panel.view.project(np.zeros((1, 3)))[0]
    drag(panel.view, centre, centre + np.array([30.0, 0.0]))
    assert panel.goal_tool.bar.isVisible()
    press_escape(window, panel.view, qtbot)
    assert not panel.goal_tool.bar.isVisible()
    assert "goal-tool|marker" not in panel.view.group_ids()
    qtbot.wait(300)
    assert not heard
