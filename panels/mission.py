"""Mission panel: the robot's mission as it reports it (name, status, step i of n,
progress, target, message) and start / pause / resume / abort as fleet MissionCommand;
abort asks first. A mission to start is a list of waypoints, one step each."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
)

from app.qt.panel_api import PanelHost
from app.render_text import human_age
from app.station.commands import CommandError, Sent, outcome
from app.station.frame import FrameBatch
from app.station.vitals import Mission, RobotVitals
from panels.base import PanelBase
from panels.robot_picker import RobotPicker, no_robot_text
from widgets.status_light import ALARM, OFFLINE, ONLINE, WARNING

ACTIVE = ("starting", "running", "paused", "blocked")
STATUS_COLOURS = {"running": ONLINE, "starting": ONLINE, "complete": ONLINE,
                  "paused": WARNING, "blocked": WARNING, "aborted": ALARM, "error": ALARM}
RESULT_COLOURS = {"done": ONLINE, "answered": WARNING, "timeout": ALARM, "waiting": OFFLINE}
MAX_WAYPOINTS = 1000
MOVING_ACTIONS = ("start", "resume")  # refused while the robot may not move; pause, abort never


class WaypointError(ValueError):
    """Waypoints that cannot be sent; the message names the line."""


def parse_waypoints(text: str) -> list[tuple[float, float]]:
    """One "lat, lon" (decimal degrees) per non-empty line."""
    points = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.replace(";", ",").split(",")
        try:
            lat, lon = (float(p) for p in parts)
        except ValueError:
            raise WaypointError(f"line {number}: write 'lat, lon' in degrees") from None
        if not (math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90
                and -180 <= lon <= 180):
            raise WaypointError(f"line {number}: {lat}, {lon} is not on Earth")
        points.append((lat, lon))
    if not points:
        raise WaypointError("give at least one waypoint")
    if len(points) > MAX_WAYPOINTS:
        raise WaypointError(f"at most {MAX_WAYPOINTS} waypoints")
    return points


class MissionPanel(PanelBase):
    panel_id = "mission"
    title = "Mission"

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self.picker = RobotPicker()
        self.hint = QLabel()
        self.name = QLabel("—")
        self.status = QLabel("—")
        font = self.status.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.status.setFont(font)
        self.step = QLabel("—")
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.target = QLabel("—")
        self.message = QLabel("—")
        self.message.setWordWrap(True)
        self.mission_name = QLineEdit("Survey")
        self.waypoints = QPlainTextEdit()
        self.waypoints.setPlaceholderText("One waypoint per line: lat, lon (degrees)")
        self.waypoints.setMaximumHeight(90)
        self.buttons = {name: QPushButton(name.capitalize())
                        for name in ("start", "pause", "resume", "abort")}
        for action, button in self.buttons.items():
            button.clicked.connect(lambda _=False, a=action: self.command(a))
        for button in self.buttons.values():
            button.setEnabled(False)  # until a robot is chosen and reports
        self.result = QLabel()
        top = QHBoxLayout()
        top.addWidget(self.picker)
        top.addWidget(self.hint, 1)
        shown = QFormLayout()
        for label, widget in (("Mission", self.name), ("Status", self.status),
                              ("Step", self.step), ("Progress", self.progress),
                              ("Target", self.target), ("Message", self.message)):
            shown.addRow(label, widget)
        actions = QHBoxLayout()
        for button in self.buttons.values():
            actions.addWidget(button)
        actions.addWidget(self.result, 1)
        plan = QFormLayout()
        plan.addRow("New mission", self.mission_name)
        plan.addRow("Waypoints", self.waypoints)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(shown)
        layout.addLayout(actions)
        layout.addLayout(plan)
        layout.addStretch(1)
        self._robot: str | None = None
        self._vitals: RobotVitals | None = None
        self._sent: Sent | None = None

    def on_frame(self, batch: FrameBatch) -> None:
        self._robot, self._vitals = self.picker.vitals(batch)
        mission = self._vitals.mission if self._vitals else None
        self.hint.setText("" if mission else no_robot_text(self._robot, "mission"))
        self._show(mission, batch.now)
        if self._sent is not None and self._sent.robot_id == self._robot:
            result = outcome(self._sent, self._vitals, batch.now)
            self.result.setText(("✓ " if result.state == "done" else "") + result.text)
            self.result.setStyleSheet(f"color:{RESULT_COLOURS[result.state]};")

    def _show(self, m: Mission | None, now: float) -> None:
        status = str(m.status) if m else ""
        active = m is not None and m.status in ACTIVE
        self.buttons["pause"].setEnabled(active and status in ("starting", "running"))
        self.buttons["resume"].setEnabled(active and status == "paused")
        self.buttons["abort"].setEnabled(active)
        self.buttons["start"].setEnabled(self._vitals is not None)
        if m is None:
            for label in (self.name, self.status, self.step, self.target, self.message):
                label.setText("—")
            self.progress.setValue(0)
            self.progress.setFormat("—")
            return
        self.name.setText(f"{m.name or 'unnamed'} ({m.mission_id})")
        self.status.setText((status.upper() if isinstance(m.status, str)
                             else f"status {status}") + f"  · {human_age(now - m.at)} ago")
        self.status.setStyleSheet(f"color:{STATUS_COLOURS.get(status, OFFLINE)};")
        self.step.setText(f"{m.step_index + 1} of {m.step_count}" if m.step_count else "—")
        if m.progress is None:
            self.progress.setValue(0)
            self.progress.setFormat("unknown")
        else:
            self.progress.setValue(round(m.progress * 1000))
            self.progress.setFormat(f"{m.progress * 100:.0f} %")
        self.target.setText(f"{m.target[0]:.6f}, {m.target[1]:.6f}" if m.target else "—")
        self.message.setText(m.message or "—")

    # -- commands ------------------------------------------------------------------------------
    def command(self, action: str) -> None:
        mission = self._vitals.mission if self._vitals else None
        try:
            if action == "start":
                points = parse_waypoints(self.waypoints.toPlainText())
                name = self.mission_name.text().strip() or "Mission"
                mission_id = f"fs-{time.time_ns() // 1_000_000}"
                fill = _start(mission_id, name, points)
                what = f"Start {name}"
            else:
                if mission is None:
                    raise CommandError("no mission to " + action)
                if action == "abort" and not self.confirm_abort(mission):
                    return
                fill = _order(mission.mission_id, action)
                what = f"{action.capitalize()} {mission.name}"
            if self._robot is None:
                raise CommandError("no robot chosen")
            refused = self.host.motion_refused(self._robot) \
                if action in MOVING_ACTIONS else ""
            if refused:
                raise CommandError(refused)
            self._sent = self.host.station.commands.send(self._robot, "mission", what, fill)
            self.result.setText("sent…")
            self.result.setStyleSheet(f"color:{OFFLINE};")
        except (CommandError, WaypointError) as exc:
            self._sent = None
            self.result.setText(f"not sent: {exc}")
            self.result.setStyleSheet(f"color:{ALARM};")

    def confirm_abort(self, mission: Mission) -> bool:
        answer = QMessageBox.question(self, "Abort mission",
                                      f"Abort {mission.name or mission.mission_id}? "
                                      "The robot stops and the mission cannot be resumed.")
        return answer == QMessageBox.StandardButton.Yes

    def save_state(self) -> dict[str, Any]:
        return {"name": self.mission_name.text(), "waypoints": self.waypoints.toPlainText(),
                **self.picker.save()}

    def restore_state(self, state: dict[str, Any]) -> None:
        if isinstance(state.get("name"), str):
            self.mission_name.setText(state["name"])
        if isinstance(state.get("waypoints"), str):
            self.waypoints.setPlainText(state["waypoints"])
        self.picker.restore(state)


def _start(mission_id: str, name: str,
           points: list[tuple[float, float]]) -> Callable[[Any], None]:
    def fill(order: Any) -> None:
        order.missionId, order.name, order.action = mission_id, name, "start"
        steps = order.init("steps", len(points))
        for step, (lat, lon) in zip(steps, points, strict=True):
            pose = step.init("feature").init("route").init("data").init("waypoint")
            pose.latDeg, pose.lonDeg = lat, lon
    return fill


def _order(mission_id: str, action: str) -> Callable[[Any], None]:
    def fill(order: Any) -> None:
        order.missionId, order.action = mission_id, action
    return fill
