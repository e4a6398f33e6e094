"""The 3D panel's goal tool: press on the ground for the position, drag for the heading,
confirm, and watch what the robot makes of it on the marker.

The math and the commands are in app.scene.ground and app.scene.goals; this is the mouse,
the confirmation bar and the marker.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton

from app.bus.keys import uplink_key
from app.convert.models import WGS84, Poses
from app.scene.frames import namespaced
from app.scene.goals import Goal, GoalError, goal_pose
from app.scene.ground import ground_point, heading_between
from app.scene.layers import BASE_FRAME, ROOT_PREFERENCE
from app.station.commands import next_seq
from app.station.goal_commands import GoalTracker, goal_order, goal_route

if TYPE_CHECKING:
    from panels.scene3d import Scene3DPanel

GOAL_GROUP = "goal-tool|marker"
ARROW_M = 1.0
HEAD_M = 0.3
RING_M = 0.35
LIFT_M = 0.03  # above the grid, so the marker is never hidden in it
COLOURS = {"preview": (0.95, 0.79, 0.28, 1.0), "sent": (0.35, 0.75, 0.95, 1.0),
           "reached": (0.25, 0.8, 0.35, 1.0), "failed": (0.97, 0.32, 0.29, 1.0)}


class GoalTool:
    """Owns the tool button, the confirmation bar and the marker of one 3D panel."""

    def __init__(self, panel: Scene3DPanel) -> None:
        self.panel = panel
        view = panel.view
        self.button = QToolButton()
        self.button.setText("Goal")
        self.button.setCheckable(True)
        self.button.setToolTip("Goal tool: press on the ground for the goal's position, "
                               "drag for its heading, then confirm (Escape cancels)")
        self.button.toggled.connect(view.set_tool_active)
        self.bar = QFrame()
        self.bar.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = QLabel()
        self.send_button = QPushButton("Send")
        self.cancel_button = QPushButton("Cancel")
        self.send_button.clicked.connect(self.send)
        self.cancel_button.clicked.connect(self.cancel)
        row = QHBoxLayout(self.bar)
        row.setContentsMargins(6, 2, 6, 2)
        row.addWidget(self.label, 1)
        row.addWidget(self.send_button)
        row.addWidget(self.cancel_button)
        self.bar.hide()
        # the panel's one Escape: it also clears the panel's selection
        self.escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), panel)
        self.escape.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.escape.activated.connect(self.cancel)
        view.tool_pressed.connect(self._pressed)
        view.tool_moved.connect(self._moved)
        view.tool_released.connect(self._released)
        self.goal: Goal | None = None  # the goal shown (a preview, or sent)
        self.robot_id: str | None = None  # whom it is for
        self.tracker: GoalTracker | None = None  # None: a preview, not sent
        self.status = ""  # the marker's text
        self._anchor: tuple[float, float] | None = None  # the press on the ground
        self._drawn: tuple | None = None

    # -- picking -------------------------------------------------------------------------
    def _ground(self, x: float, y: float) -> tuple[float, float] | None:
        origin, direction = self.panel.view.ray(x, y)
        return ground_point(origin, direction)

    def _pressed(self, x: float, y: float) -> None:
        point = self._ground(x, y)
        robot = self.panel.active_robot
        if point is None or robot is None:
            self.panel.host.show_message("Goal: press on the ground of the view"
                                         if robot else "Goal: no active robot")
            return
        fixed = self.panel.fixed_frame()
        self._anchor = point
        self.goal = Goal(fixed, point[0], point[1], self._default_yaw(robot, fixed, point))
        self.robot_id, self.tracker, self.status = robot, None, "preview"
        self.bar.hide()
        self.panel.redraw_goal()

    def _moved(self, x: float, y: float) -> None:
        point = self._ground(x, y)
        if self.goal is None or self._anchor is None or point is None:
            return
        yaw = heading_between(self._anchor, point)
        if yaw is not None:
            goal = self.goal
            self.goal = Goal(goal.frame, goal.x, goal.y, yaw)
            self.panel.redraw_goal()

    def _released(self, x: float, y: float) -> None:
        self._moved(x, y)
        self._anchor = None
        goal = self.goal
        if goal is None or self.tracker is not None:
            return
        self.label.setText(f"Send goal to {self.robot_id}: x {goal.x:.2f}, y {goal.y:.2f} m, "
                           f"heading {math.degrees(goal.yaw):.0f}° ({goal.frame})")
        self.bar.show()
        self.send_button.setFocus()

    def _default_yaw(self, robot: str, fixed: str, point: tuple[float, float]) -> float:
        """Facing away from the robot (the way it would drive there), else along +x."""
        try:
            m = self.panel.model.tree.lookup(fixed, namespaced(robot, BASE_FRAME)).matrix
        except LookupError:
            return 0.0
        return heading_between((m[0, 3], m[1, 3]), point, 1e-3) or 0.0

    # -- confirmation --------------------------------------------------------------------
    def send(self) -> None:
        goal, robot = self.goal, self.robot_id
        if goal is None or robot is None or self.tracker is not None:
            return
        refused = self.panel.host.motion_refused(robot)
        if refused:
            self.panel.host.show_message(f"Goal not sent: {refused}")
            return
        station = self.panel.host.station
        info = next((r for r in station.robots() if r.robot_id == robot), None)
        route = goal_route(robot, info.catalog if info else None, station.root)
        if route is None:
            self.panel.host.show_message(f"{robot} lists no goal command")
            return
        try:
            pose = goal_pose(goal, self.panel.model.tree, self.local_frame(robot),
                             self.panel.model.datum, geodetic=route.geodetic)
        except GoalError as exc:
            self.panel.host.show_message(f"Goal not sent: {exc}")
            return
        refused = station.authority.permit(robot)
        if refused:
            self.panel.host.show_message(f"Goal not sent: {robot} is {refused}")
            return
        order = goal_order(robot, pose, route, next_seq("goal"))
        if not station.outbox.send([order.outgoing]):
            self.panel.host.show_message("Goal not sent: not connected")
            return
        self.tracker = GoalTracker(order.seq, time.monotonic())
        self.status = "sent"
        self.bar.hide()
        self.panel.host.show_message(f"Goal sent to {robot}: {order.text}")
        self.panel.redraw_goal()

    def cancel(self) -> None:
        """Drops the preview (or the marker of a sent goal: the robot keeps its goal)."""
        self.goal = self.robot_id = self.tracker = self._anchor = None
        self.bar.hide()
        self.panel.view.remove_group(GOAL_GROUP)
        self._drawn = None

    def local_frame(self, robot: str) -> str:
        """The robot's local frame: the frame of its fleet local pose, else its map, world
        or odom frame, else the fixed frame when it is one of the robot's."""
        motion = self.panel.model.layers.get(uplink_key(robot, "motion",
                                                        self.panel.host.station.root))
        for model in motion.models if motion else []:
            if isinstance(model, Poses) and model.frame_id != WGS84:
                return motion.frame_of(model.frame_id) if motion else ""
        frames = self.panel.model.tree.frames()
        for name in ROOT_PREFERENCE:
            if f"{robot}/{name}" in frames:
                return f"{robot}/{name}"
        fixed = self.panel.fixed_frame()
        if fixed.startswith(f"{robot}/"):
            return fixed
        raise GoalError(f"no local frame of {robot} is known")

    # -- the marker ----------------------------------------------------------------------
    def draw(self, fixed: str) -> bool:
        """Places the marker in the fixed frame with its status; False when none is shown."""
        goal = self.goal
        if goal is None:
            return False
        try:
            matrix = self.panel.model.tree.lookup(fixed, goal.frame).matrix \
                if goal.frame != fixed else np.eye(4)
        except LookupError:
            self.panel.view.remove_group(GOAL_GROUP)
            self._drawn = None
            return False
        if self.tracker is not None:
            vitals = self.panel.host.station.vitals.get(self.robot_id or "")
            self.status = self.tracker.update(vitals, time.monotonic())
        state = self.tracker.state if self.tracker else "preview"
        colour = COLOURS["preview" if state == "preview" else "reached" if state == "reached"
                         else "sent" if state in ("sent", "accepted", "driving") else "failed"]
        group = self.panel.view.group(GOAL_GROUP)
        group.set_matrix(matrix)
        drawn = (goal, self.status, colour)
        if drawn != self._drawn:
            self._drawn = drawn
            version = hash(drawn)
            segments = arrow_segments(goal)
            group.set_segments(segments, np.tile(np.array(colour, np.float32),
                                                 (len(segments), 1)), version)
            label = f"{self.robot_id}: {self.status}" if self.tracker else "goal (not sent)"
            group.set_texts([((goal.x, goal.y, LIFT_M + 0.2), label, colour)], version)
        group.set_visible(True)
        return True


def arrow_segments(goal: Goal) -> np.ndarray:
    """(2K, 3) segment endpoints: a ring at the goal and an arrow along its heading."""
    c, s = math.cos(goal.yaw), math.sin(goal.yaw)
    tip = (goal.x + ARROW_M * c, goal.y + ARROW_M * s)
    lines = [((goal.x, goal.y), tip)]
    for side in (1.0, -1.0):
        back = (tip[0] - HEAD_M * (c - side * s * 0.6), tip[1] - HEAD_M * (s + side * c * 0.6))
        lines.append((tip, back))
    angles = np.linspace(0.0, 2 * math.pi, 25)
    ring = np.c_[goal.x + RING_M * np.cos(angles), goal.y + RING_M * np.sin(angles)]
    lines += [(tuple(ring[i]), tuple(ring[i + 1])) for i in range(len(ring) - 1)]
    out = np.array([p for line in lines for p in line], dtype=np.float32)
    return np.c_[out, np.full(len(out), LIFT_M, np.float32)]
