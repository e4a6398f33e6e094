"""Robots panel: every robot seen, online or not, with its vitals; searched, filtered by
state and grouped by family, state or fault; selecting one makes it the station's active
robot."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QItemSelection, QItemSelectionModel
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
)

from app.qt.panel_api import PanelHost
from app.render_text import human_age
from app.station.frame import FrameBatch
from app.station.robot_state import (
    ESTOP,
    FAULT,
    MINOR,
    OFFLINE,
    WARNING,
    RobotState,
    robot_state,
)
from app.station.robots import RobotInfo
from app.station.vitals import Fault, RobotVitals
from panels.base import PanelBase
from panels.robot_state import GROUPINGS, STATE_FILTERS, heading, worst_fault
from widgets.battery_gauge import CRITICAL_PCT, WARNING_PCT, level_state
from widgets.grouped_rows import Group, GroupedRowsModel, GroupedRowsProxy, make_tree_view
from widgets.level_bar import LevelBarDelegate
from widgets.list_page import ListPage
from widgets.status_light import ALARM, ONLINE
from widgets.status_light import OFFLINE as OFFLINE_LIGHT
from widgets.status_light import WARNING as WARNING_LIGHT
from widgets.table import KEY_ROLE, Cell, Row, restore_sort, sort_state

COLUMNS = ("Status", "Robot", "Model", "Families", "Battery", "Mode", "Last data", "Faults")
WIDTHS = (15, 24, 12, 19, 11, 12, 8, 16)  # characters
STATUS, ROBOT, MODEL, FAMILIES, BATTERY, MODE, AGE, FAULTS = range(len(COLUMNS))
ESTOP_BACKGROUND = "#b62324"
STATE_LIGHTS = {ESTOP: ALARM, FAULT: ALARM, WARNING: WARNING_LIGHT}
ALL_ROBOTS = next(iter(STATE_FILTERS))
NO_GROUPS = "none"


@dataclass(frozen=True)
class _Facts:
    """What the search, the state filter and the groups read of one robot."""

    haystack: str  # id, name, model and families, lower case
    state: str
    robot: RobotInfo
    faults: Sequence[Fault]


class RobotsPanel(PanelBase):
    panel_id = "robots"
    title = "Robots"

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self.model = GroupedRowsModel(COLUMNS, self)
        self.proxy = GroupedRowsProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = make_tree_view(self.proxy, WIDTHS, stretch=ROBOT)
        # the battery gauge's states and thresholds, as the battery panel shows them
        self.view.setItemDelegateForColumn(BATTERY, LevelBarDelegate(
            self.view, lambda p: level_state(p, WARNING_PCT, CRITICAL_PCT)[1]))
        restore_sort(self.view, {}, ROBOT)
        self.view.selectionModel().selectionChanged.connect(self._on_selection)

        self.state_filter = QComboBox()
        self.state_filter.addItems(list(STATE_FILTERS))
        self.state_filter.setToolTip("Show only robots in this state")
        self.state_filter.currentTextChanged.connect(lambda _: self._on_filter())
        self.group_by = QComboBox()
        self.group_by.addItems(list(GROUPINGS))
        self.group_by.currentTextChanged.connect(lambda _: self._regroup())
        self._page = ListPage(self, self.view, "Search id, name, model or family",
                              [self.state_filter, QLabel("Group by"), self.group_by])
        self.search, self.count, self.hint = self._page.search, self._page.count, self._page.hint
        self.search.textChanged.connect(lambda _: self._on_filter())

        self._robots: list[RobotInfo] = []
        self._vitals: Mapping[str, RobotVitals] = {}
        self._now = 0.0
        self._active: str | None = None
        self._rows: list[Row] = []
        self._facts: dict[str, _Facts] = {}
        self._words: list[str] = []
        self._states = STATE_FILTERS[ALL_ROBOTS]
        self._filled = False
        self._syncing = False
        self._show_counts()

    @property
    def grouping(self) -> str:
        return GROUPINGS[self.group_by.currentText()]

    # -- ticks ------------------------------------------------------------------------------
    def on_frame(self, batch: FrameBatch) -> None:
        # Robots and their vitals are read at the tables' rate: other ticks cost nothing.
        if batch.tables_changed or not self._filled or batch.active_robot != self._active:
            self._robots, self._vitals = batch.robots, batch.vitals
            self._now, self._active = batch.now, batch.active_robot
            self._refresh()

    def _refresh(self) -> None:
        self._filled = True
        self._rows, facts = [], {}
        for robot in self._robots:
            vitals = self._vitals.get(robot.robot_id)
            faults = vitals.faults if vitals is not None else ()
            status = vitals.status if vitals is not None else None
            state = robot_state(robot, faults, WARNING_PCT, CRITICAL_PCT,
                                status.estop_reason if status is not None else "")
            facts[robot.robot_id] = _facts(robot, state.state, faults)
            self._rows.append(_row(robot, self._now, robot.robot_id == self._active,
                                   state, faults))
        self._facts = facts  # before the rows change: the proxy filters changed rows with it
        with self._quiet():
            self.model.set_rows(self._rows, self._groups())
        self.hint.setText("No robots yet — waiting for robots to announce themselves on "
                          f"{self.host.station.root}/*")
        self._page.show_list(bool(self._robots))
        self._show_counts()
        self._select_active()

    # -- search, state filter, groups ----------------------------------------------------------
    def _on_filter(self) -> None:
        self._words = self.search.text().lower().split()
        self._states = STATE_FILTERS.get(self.state_filter.currentText(),
                                         STATE_FILTERS[ALL_ROBOTS])
        filtering = bool(self._words) or self._states != STATE_FILTERS[ALL_ROBOTS]
        with self._quiet():
            self.proxy.set_filter(self.shows if filtering else None)
            self.model.set_rows(self._rows, self._groups())  # only the groups' counts change
        self._show_counts()
        self._select_active()

    def shows(self, robot_id: str) -> bool:
        """Whether the search and the state filter let this robot through."""
        facts = self._facts.get(robot_id)
        return facts is None or (facts.state in self._states
                                 and all(w in facts.haystack for w in self._words))

    def _regroup(self) -> None:
        with self._quiet():
            self.model.reset_rows(self._rows, self._groups())
        self.view.setRootIsDecorated(self.model.grouped)
        self._show_counts()
        self._select_active()
        current = self.view.selectionModel().currentIndex()
        if current.isValid():
            self.view.scrollTo(current)

    def _groups(self) -> dict[str, Group] | None:
        grouping = self.grouping
        if grouping == NO_GROUPS:
            return None
        headings = {robot_id: heading(grouping, facts.robot, facts.state, facts.faults)
                    for robot_id, facts in self._facts.items()}
        totals: dict[str, list[int]] = {}  # group key -> [shown, total]
        for robot_id, h in headings.items():
            counts = totals.setdefault(h.key, [0, 0])
            counts[0] += self.shows(robot_id)
            counts[1] += 1
        groups: dict[str, Group] = {}
        made: dict[str, Group] = {}
        for robot_id, h in headings.items():
            group = made.get(h.key)
            if group is None:
                shown, total = totals[h.key]
                count = f"{shown}" if shown == total else f"{shown} of {total}"
                group = made[h.key] = Group(h.key, f"{h.name} ({count})", h.order)
            groups[robot_id] = group
        return groups

    def _show_counts(self) -> None:
        total = len(self._facts)
        shown = sum(map(self.shows, self._facts)) if self.proxy.accepts else total
        self.count.setText(f"{total} robot{'' if total == 1 else 's'}" if shown == total
                           else f"{shown} of {total} robots")

    # -- selection = the active robot ------------------------------------------------------
    def _on_selection(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        if self._syncing:
            return
        if not selected.indexes():  # a click on a group row or beside the rows
            self._select_active()
            return
        robot_id = selected.indexes()[0].data(KEY_ROLE)
        if robot_id is not None and robot_id != self._active:
            self.host.set_active_robot(robot_id)
            self._active = robot_id
            self._refresh()

    @contextmanager
    def _quiet(self) -> Iterator[None]:
        """While rows change: the view moves its selection off a row that goes (filtered
        out), which is no choice of the operator's; the active robot is selected again
        after."""
        self._syncing = True
        try:
            yield
        finally:
            self._syncing = False

    def _select_active(self) -> None:
        """Keeps the selection on the active robot: when it changes elsewhere, and through
        sorting, filtering (selected again when the filter shows it again) and regrouping."""
        selection = self.view.selectionModel()
        current = [i.data(KEY_ROLE) for i in selection.selectedRows()]
        if current == ([self._active] if self._active else []):
            return
        with self._quiet():
            source = self.model.index_of(self._active) if self._active else None
            index = self.proxy.mapFromSource(source) if source is not None else None
            if index is None or not index.isValid():
                selection.clearSelection()
            else:
                selection.setCurrentIndex(
                    index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                    | QItemSelectionModel.SelectionFlag.Rows)

    # -- state ----------------------------------------------------------------------------
    def save_state(self) -> dict[str, Any]:
        return {"search": self.search.text(), "state": self.state_filter.currentText(),
                "group_by": self.grouping, **sort_state(self.view)}

    def restore_state(self, state: dict[str, Any]) -> None:
        """Restores what it can of a saved state; anything missing or damaged falls back to
        the default (no search, every robot, no groups, sorted by name)."""
        state = state if isinstance(state, dict) else {}
        search = state.get("search", "")
        self.search.setText(search if isinstance(search, str) else "")
        chosen = state.get("state")
        self.state_filter.setCurrentText(chosen if chosen in STATE_FILTERS else ALL_ROBOTS)
        by_name = {name: label for label, name in GROUPINGS.items()}
        group_by = state.get("group_by")
        self.group_by.setCurrentText(by_name.get(group_by, "None")
                                     if isinstance(group_by, str) else "None")
        restore_sort(self.view, state, ROBOT)


def _facts(robot: RobotInfo, state: str, faults: Sequence[Fault]) -> _Facts:
    words = (robot.robot_id, robot.name, robot.model, *robot.families)
    return _Facts(" ".join(words).lower(), state, robot, faults)


def _row(robot: RobotInfo, now: float, active: bool, state: RobotState,
         faults: Sequence[Fault]) -> Row:
    if robot.online:
        status = Cell("online", sort=1.0, light=STATE_LIGHTS.get(state.state, ONLINE),
                      tooltip=f"Online (liveliness token)\n{state.why}")
    else:
        ago = human_age(now - robot.changed) if robot.changed else "—"
        status = Cell(f"offline {ago} ago" if robot.changed else "offline", sort=0.0,
                      light=OFFLINE_LIGHT,
                      tooltip=f"Offline: its liveliness token went away {ago} ago")
    name = robot.name if robot.name == robot.robot_id else f"{robot.name} ({robot.robot_id})"
    waiting = "…" if robot.online and robot.catalog is None else "—"
    return Row(
        key=robot.robot_id,
        cells=(
            status,
            Cell(name, tooltip=f"Robot id: {robot.robot_id}"
                 + ("\nActive robot: commands go to it" if active else "")),
            *_catalog_cells(robot, waiting),
            _battery_cell(robot.battery_pct),
            _mode_cell(robot),
            Cell(human_age(None if robot.last_data is None else now - robot.last_data),
                 sort=float("inf") if robot.last_data is None else now - robot.last_data,
                 numeric=True),
            _faults_cell(faults),
        ),
        muted=state.state == OFFLINE,
        highlight=active,
    )


def _catalog_cells(robot: RobotInfo, waiting: str) -> tuple[Cell, Cell]:
    """Model and families; a robot that serves no catalog, or one that lists nothing, says
    so (its topics are then learnt by listening)."""
    catalog = robot.catalog
    if catalog is not None and catalog.discovered:
        why = (f"{robot.robot_id} serves no catalog (fleet/{robot.robot_id}/catalog): its "
               "topics were learnt by listening")
        return (Cell("no catalog", colour=WARNING_LIGHT, tooltip=why),
                Cell(", ".join(robot.families) or waiting, tooltip=why))
    if catalog is not None and not catalog.topics:
        why = f"{robot.robot_id}'s catalog lists no topics: they are learnt by listening"
        return (Cell(robot.model or waiting, tooltip=why),
                Cell("catalog lists no topics", colour=WARNING_LIGHT, tooltip=why))
    return Cell(robot.model or waiting), Cell(", ".join(robot.families) or waiting)


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


def _faults_cell(faults: Sequence[Fault]) -> Cell:
    """The most severe active fault, and how many more; sorts most severe first."""
    worst = worst_fault(faults)
    if worst is None:
        return Cell("—", sort=1e9)
    active = [f for f in faults if f.active]
    more = f" +{len(active) - 1}" if len(active) > 1 else ""
    lines = "\n".join(f"{str(f.severity).upper()} {f.code}: {f.message}" for f in active)
    return Cell(f"{worst.code}{more}", sort=worst.rank * 1000.0 - len(active),
                colour=ALARM if worst.alerts else WARNING_LIGHT if worst.rank == MINOR else "",
                bold=worst.rank == 0, tooltip=lines)
