"""Which robot a health panel shows: the station's active robot (the default), or one
pinned by the operator; saved with the panel."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QWidget

from app.station.frame import FrameBatch
from app.station.vitals import RobotVitals

FOLLOW = "Active robot"


class RobotPicker(QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.addItem(FOLLOW, "")
        self.pinned = ""
        # What the list was made of: a thousand robots' ids are sorted again only when the
        # window's robots (a new list twice a second), the robots with vitals or the pinned
        # one changed, not on each of the frame's ticks.
        self._made_of: tuple[object, int, str] | None = None
        self._ids: list[str] = []

    def refresh(self, batch: FrameBatch) -> None:
        self.pinned = self.currentData() or ""  # chosen since the last tick: kept over a rebuild
        made_of = (batch.robots, len(batch.vitals), self.pinned)
        if self._made_of is not None and made_of[0] is self._made_of[0] \
                and made_of[1:] == self._made_of[1:]:
            return
        self._made_of = made_of
        ids = sorted(set(batch.vitals) | {r.robot_id for r in batch.robots}
                     | ({self.pinned} if self.pinned else set()))
        if ids != self._ids:
            self._ids = ids
            self.blockSignals(True)
            while self.count() > 1:
                self.removeItem(1)
            for robot_id in ids:
                self.addItem(robot_id, robot_id)
            self.setCurrentIndex(max(0, self.findData(self.pinned)))
            self.blockSignals(False)

    def robot_id(self, batch: FrameBatch) -> str | None:
        """The pinned robot, else the active one, else the only robot with vitals."""
        chosen = self.currentData() or ""
        self.pinned = chosen
        if chosen:
            return str(chosen)
        if batch.active_robot:
            return batch.active_robot
        return next(iter(sorted(batch.vitals)), None) if len(batch.vitals) == 1 else None

    def vitals(self, batch: FrameBatch) -> tuple[str | None, RobotVitals | None]:
        self.refresh(batch)
        robot_id = self.robot_id(batch)
        return robot_id, batch.vitals.get(robot_id) if robot_id else None

    def save(self) -> dict[str, Any]:
        return {"robot": self.currentData() or ""} if self.currentData() else {}

    def restore(self, state: dict[str, Any]) -> None:
        robot = state.get("robot")
        if isinstance(robot, str) and robot:
            self.pinned = robot
            if self.findData(robot) < 0:
                self.addItem(robot, robot)
            self.setCurrentIndex(self.findData(robot))


def no_robot_text(robot_id: str | None, what: str) -> str:
    if robot_id is None:
        return "No robot chosen — select one in the Robots panel"
    return f"{robot_id} has reported no {what} yet"
