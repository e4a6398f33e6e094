"""Fleet map panel: every robot top-down at its newest position and heading, coloured by its
state; clicking one makes it the station's active robot.

It wants nothing of the bus: the station hears every robot's pose on its small keys anyway
(app.station.positions). It rebuilds the map only when positions, vitals, robots or the
active robot changed, and repaints only when what is drawn changed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from app.qt.panel_api import PanelHost
from app.station.frame import FrameBatch
from app.station.positions import PositionBook, RobotPosition
from app.station.robot_state import ESTOP, FAULT, OFFLINE, OK, WARNING, robot_state
from app.station.robots import RobotInfo
from app.station.vitals import RobotVitals
from panels.base import PanelBase
from widgets.battery_gauge import CRITICAL_PCT, WARNING_PCT
from widgets.fleet_map_view import FleetMapView, MapRobot
from widgets.status_light import ALARM, ONLINE, light_icon
from widgets.status_light import OFFLINE as OFFLINE_GREY
from widgets.status_light import WARNING as AMBER

ESTOP_MAGENTA = "#e040fb"  # apart from a fault's red at a glance
COLOURS = {OK: ONLINE, WARNING: AMBER, FAULT: ALARM, ESTOP: ESTOP_MAGENTA,
           OFFLINE: OFFLINE_GREY}
LEGEND = ((OK, "ok"), (WARNING, "warning"), (FAULT, "fault"), (ESTOP, "e-stop"),
          (OFFLINE, "offline"))
PROBLEMS_SHOWN = 4


class FleetMapPanel(PanelBase):
    panel_id = "fleet_map"
    title = "Fleet map"

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self.view = FleetMapView()
        self.view.robot_clicked.connect(self._on_click)
        self.fit_button = QPushButton("Zoom to fit")
        self.fit_button.setToolTip("Show every robot on the map, and follow them")
        self.fit_button.clicked.connect(self.view.fit)
        self.summary = QLabel("No robots yet")
        self.problems = QLabel()
        self.problems.setWordWrap(True)
        self.problems.setEnabled(False)
        top = QHBoxLayout()
        top.addWidget(self.fit_button)
        top.addSpacing(12)
        for state, word in LEGEND:
            dot = QLabel()
            dot.setPixmap(light_icon(COLOURS[state]).pixmap(12, 12))
            top.addWidget(dot)
            top.addWidget(QLabel(word))
            top.addSpacing(6)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.problems)
        self._seen: tuple[object, ...] = ()
        self._drawn: tuple[MapRobot, ...] | None = None

    def on_frame(self, batch: FrameBatch) -> None:
        book = self.host.station.positions
        positions = book.snapshot()
        seen = (positions, batch.robots, batch.vitals, batch.active_robot)
        if len(seen) == len(self._seen) and all(a is b for a, b in zip(seen, self._seen,
                                                                        strict=True)):
            return  # the same frozen snapshots as last tick: nothing to look at
        self._seen = seen
        self.view.set_active(batch.active_robot)
        robots = {r.robot_id: r for r in batch.robots}
        drawn, missing, problems = _map_of(robots, positions, batch.vitals)
        if drawn != self._drawn:
            self._drawn = drawn
            self.view.set_title(_datum_text(book))
            self.view.set_robots(drawn)
        self._show_summary(len(drawn), missing, problems)

    def _show_summary(self, placed: int, missing: int, problems: list[str]) -> None:
        robots = placed + missing
        self.summary.setText(f"{placed} robot{'' if placed == 1 else 's'} placed, "
                             f"{missing} without a position" if robots else "No robots yet")
        shown = problems[:PROBLEMS_SHOWN]
        more = len(problems) - len(shown)
        self.problems.setText("; ".join(shown) + (f"; and {more} more" if more > 0 else ""))
        self.problems.setToolTip("\n".join(problems))
        self.problems.setVisible(bool(problems))

    def _on_click(self, robot_id: str) -> None:
        self.host.set_active_robot(robot_id)
        self.view.set_active(robot_id)

    # -- state ------------------------------------------------------------------------------
    def save_state(self) -> dict[str, Any]:
        return {"following": self.view.following, "scale": self.view.scale,
                "centre": list(self.view.centre)}

    def restore_state(self, state: dict[str, Any]) -> None:
        try:
            if state.get("following", True) is False:
                scale = float(state["scale"])
                x, y = (float(v) for v in state["centre"])
                if scale > 0 and all(map(_finite, (scale, x, y))):
                    self.view.following = False
                    self.view.scale, self.view.centre = scale, (x, y)
        except (KeyError, TypeError, ValueError):
            pass  # an old or edited layout: the map fits its robots


def _map_of(robots: Mapping[str, RobotInfo], positions: Mapping[str, RobotPosition],
            vitals: Mapping[str, RobotVitals]) -> tuple[tuple[MapRobot, ...], int, list[str]]:
    """(what to draw, how many robots have no position, the reasons to show)."""
    drawn: list[MapRobot] = []
    problems: list[str] = []
    missing = 0
    for robot_id in sorted(set(robots) | set(positions)):
        position = positions.get(robot_id)
        placement = position.placement if position is not None else None
        if placement is None:
            missing += 1
            why = position.problem if position is not None and position.problem else \
                "no position yet"
            problems.append(f"{robot_id}: {why}")
            continue
        if position is not None and position.problem:
            problems.append(f"{robot_id}: {position.problem} (showing its last good one)")
        robot_vitals = vitals.get(robot_id)
        status = robot_vitals.status if robot_vitals is not None else None
        state = robot_state(robots.get(robot_id) or RobotInfo(robot_id),
                            robot_vitals.faults if robot_vitals is not None else (),
                            WARNING_PCT, CRITICAL_PCT,
                            status.estop_reason if status is not None else "")
        where = (f"{placement.lat_lon[0]:.6f}, {placement.lat_lon[1]:.6f}"
                 if placement.lat_lon else f"x {placement.x:.1f} y {placement.y:.1f} m "
                 f"in {placement.frame}")
        heading = "" if placement.yaw is not None else ", heading unknown"
        info = robots.get(robot_id)
        holder = ("you" if info.controlled_here else info.controlled_by) if info else ""
        drawn.append(MapRobot(
            robot_id, placement.x, placement.y, placement.yaw, COLOURS[state.state],
            placement.frame, state.state == OFFLINE,
            f"{robot_id}: {state.why}\n{where}{heading}\nfrom {placement.source}"
            + (f"\ncontrolled by {holder}" if holder else ""),
            label=f"{robot_id} · {holder}" if holder else ""))
    return tuple(drawn), missing, problems


def _datum_text(book: PositionBook) -> str:
    datum = book.datum
    if datum is None:
        return "Earth: no geodetic fix yet"
    lat, lon = datum
    origin = "fixed" if book.datum_from == "fixed" else f"first fix, {book.datum_from}"
    return (f"Datum {abs(lat):.5f}° {'N' if lat >= 0 else 'S'}, "
            f"{abs(lon):.5f}° {'E' if lon >= 0 else 'W'} ({origin}) · east/north metres")


def _finite(value: float) -> bool:
    return math.isfinite(value)

