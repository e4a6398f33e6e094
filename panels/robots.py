"""Robots panel: every robot seen, online or not, with its vitals; selecting one makes
it the station's active robot."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import QLabel, QStackedLayout

from app.qt.panel_api import PanelHost
from app.render_text import human_age
from app.station.frame import FrameBatch
from app.station.robots import RobotInfo
from panels.base import PanelBase
from widgets.battery_gauge import CRITICAL_PCT, WARNING_PCT, level_state
from widgets.level_bar import LevelBarDelegate
from widgets.status_light import ALARM, OFFLINE, ONLINE
from widgets.table import (
    KEY_ROLE,
    SORT_ROLE,
    Cell,
    Row,
    RowsModel,
    make_table_view,
    restore_sort,
    sort_state,
)

COLUMNS = ("Status", "Robot", "Model", "Families", "Battery", "Mode", "Last data")
WIDTHS = (15, 24, 12, 19, 11, 12, 8)  # characters
STATUS, ROBOT, MODEL, FAMILIES, BATTERY, MODE, AGE = range(len(COLUMNS))
ESTOP_BACKGROUND = "#b62324"


class RobotsPanel(PanelBase):
    panel_id = "robots"
    title = "Robots"

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self.model = RowsModel(COLUMNS, self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setSourceModel(self.model)
        self.view = make_table_view(self.proxy, WIDTHS, stretch=ROBOT)
        # the battery gauge's states and thresholds, as the battery panel shows them
        self.view.setItemDelegateForColumn(BATTERY, LevelBarDelegate(
            self.view, lambda p: level_state(p, WARNING_PCT, CRITICAL_PCT)[1]))
        restore_sort(self.view, {}, ROBOT)
        self.view.selectionModel().selectionChanged.connect(self._on_selection)
        self.hint = QLabel()
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.hint.setEnabled(False)
        self._pages = QStackedLayout(self)
        self._pages.addWidget(self.hint)
        self._pages.addWidget(self.view)
        self._robots: list[RobotInfo] = []
        self._now = 0.0
        self._active: str | None = None
        self._filled = False
        self._syncing = False

    def on_frame(self, batch: FrameBatch) -> None:
        if batch.tables_changed or not self._filled or batch.active_robot != self._active:
            self._robots, self._now, self._active = batch.robots, batch.now, batch.active_robot
            self._refresh()

    def _refresh(self) -> None:
        self._filled = True
        self.model.set_rows([_row(r, self._now, r.robot_id == self._active)
                             for r in self._robots])
        self.hint.setText("No robots yet — waiting for robots to announce themselves on "
                          f"{self.host.station.root}/*")
        self._pages.setCurrentWidget(self.view if self._robots else self.hint)
        self._select_active()

    # -- selection = the active robot ------------------------------------------------------
    def _on_selection(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        if self._syncing or not selected.indexes():
            return
        robot_id = selected.indexes()[0].data(KEY_ROLE)
        if robot_id != self._active:
            self.host.set_active_robot(robot_id)
            self._active = robot_id
            self._refresh()

    def _select_active(self) -> None:
        """Keeps the selection on the active robot when it changes elsewhere."""
        selection = self.view.selectionModel()
        current = [i.data(KEY_ROLE) for i in selection.selectedRows()]
        if current == ([self._active] if self._active else []):
            return
        self._syncing = True
        try:
            row = self.model.row_of(self._active) if self._active else None
            if row is None:
                selection.clearSelection()
            else:
                index = self.proxy.mapFromSource(self.model.index(row, 0))
                selection.select(index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                 | QItemSelectionModel.SelectionFlag.Rows)
        finally:
            self._syncing = False

    # -- state ----------------------------------------------------------------------------
    def save_state(self) -> dict[str, Any]:
        return sort_state(self.view)

    def restore_state(self, state: dict[str, Any]) -> None:
        restore_sort(self.view, state, ROBOT)


def _row(robot: RobotInfo, now: float, active: bool) -> Row:
    if robot.online:
        status = Cell("online", sort=1.0, light=ONLINE, tooltip="Online (liveliness token)")
    else:
        ago = human_age(now - robot.changed) if robot.changed else "—"
        status = Cell(f"offline {ago} ago" if robot.changed else "offline", sort=0.0,
                      light=OFFLINE, tooltip=f"Offline: its liveliness token went away {ago} ago")
    name = robot.name if robot.name == robot.robot_id else f"{robot.name} ({robot.robot_id})"
    waiting = "…" if robot.online and robot.catalog is None else "—"
    return Row(
        key=robot.robot_id,
        cells=(
            status,
            Cell(name, tooltip=f"Robot id: {robot.robot_id}"
                 + ("\nActive robot: commands go to it" if active else "")),
            Cell(robot.model or waiting),
            Cell(", ".join(robot.families) or waiting),
            _battery_cell(robot.battery_pct),
            _mode_cell(robot),
            Cell(human_age(None if robot.last_data is None else now - robot.last_data),
                 sort=float("inf") if robot.last_data is None else now - robot.last_data,
                 numeric=True),
        ),
        muted=not robot.online,
        highlight=active,
    )


def _battery_cell(percent: float | None) -> Cell:
    if percent is None:
        return Cell("—", sort=-1.0)
    if not math.isfinite(percent):
        return Cell("invalid", sort=-1.0, colour=ALARM,
                    tooltip=f"The robot reported a battery level of {percent}")
    state, _ = level_state(percent, WARNING_PCT, CRITICAL_PCT)
    text = f"{percent:.0f} %" if state == "OK" else f"{percent:.0f} % {state}"
    return Cell(text, sort=percent, value=percent,
                tooltip=f"Battery {percent:.0f} %: {state} (warning at {WARNING_PCT:g} %, "
                        f"critical at {CRITICAL_PCT:g} %)")


def _mode_cell(robot: RobotInfo) -> Cell:
    if robot.estop:
        text = "E-STOP" + (f" · {robot.mode}" if robot.mode else "")
        return Cell(text, sort="0" + text, colour="#ffffff", background=ESTOP_BACKGROUND,
                    bold=True, light=ALARM, tooltip="Emergency stop engaged")
    return Cell(robot.mode or "—", sort="1" + robot.mode)

