"""Robots panel: every robot seen, online or not, with its vitals; searched, filtered by
state and grouped by family, state or fault; selecting one makes it the station's active
robot."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from PySide6.QtCore import QItemSelection, QItemSelectionModel
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
)

from app.qt.panel_api import PanelHost
from app.station.frame import FrameBatch
from app.station.robots import RobotInfo
from app.station.vitals import RobotVitals
from panels.base import PanelBase
from panels.robot_rows import BATTERY, COLUMNS, ROBOT, WIDTHS, RobotRows
from panels.robot_state import GROUPINGS, STATE_FILTERS, Heading, heading
from widgets.battery_gauge import CRITICAL_PCT, WARNING_PCT, level_state
from widgets.grouped_rows import Group, GroupedRowsModel, GroupedRowsProxy, make_tree_view
from widgets.level_bar import LevelBarDelegate
from widgets.list_page import ListPage
from widgets.table import KEY_ROLE, FlooredStretch, restore_sort, sort_state

ALL_ROBOTS = next(iter(STATE_FILTERS))
ROWS_BUDGET_S = 0.003  # of a tick, for making rows: the model's update of them comes on top
# While a pass over the robots' rows is spread over frames, the table is drawn once at its
# end, not after each part (a drawing of the table cost as much as a part); but at least
# this often, so a pass that never ends (tables coming faster than it) still shows.
HOLD_DRAWING_S = 0.25
NO_GROUPS = "none"


class RobotsPanel(PanelBase):
    panel_id = "robots"
    title = "Robots"

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self.model = GroupedRowsModel(COLUMNS, self)
        self.proxy = GroupedRowsProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = make_tree_view(self.proxy, WIDTHS, stretch=ROBOT)
        self._robot_column = FlooredStretch(self.view, ROBOT, WIDTHS[ROBOT])
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
        self._rows = RobotRows()  # each robot's row, made again only where it changed
        self._shown: dict[str, bool] = {}  # by robot id: the search and filter let it through
        self._headings: dict[str, Heading] = {}  # by robot id, for the grouping chosen
        self._words: list[str] = []
        self._states = STATE_FILTERS[ALL_ROBOTS]
        self._filled = False
        self._syncing = False
        self._held_since: float | None = None  # since when the table has not been drawn
        self._show_counts()

    @property
    def grouping(self) -> str:
        return GROUPINGS[self.group_by.currentText()]

    # -- ticks ------------------------------------------------------------------------------
    def on_frame(self, batch: FrameBatch) -> None:
        # Robots and their vitals are read at the tables' rate: other ticks cost nothing,
        # but for the rows a tick's time budget left owed (a thousand robots' rows are made
        # over a few ticks, never one long stall).
        if batch.tables_changed or not self._filled or batch.active_robot != self._active:
            self._robots, self._vitals = batch.robots, batch.vitals
            self._now, self._active = batch.now, batch.active_robot
            self._refresh()
        elif self._rows.behind:
            self._refresh()

    def _refresh(self) -> None:
        self._filled = True
        changed = self._rows.update(self._robots, self._vitals, self._now, self._active,
                                    time.perf_counter() + ROWS_BUDGET_S)
        self._hold_drawing(self._rows.behind)  # before the model changes: they mark it dirty
        for robot_id in changed:
            self._headings.pop(robot_id, None)
        if self._shown.keys() == self._rows.facts.keys():
            self._shown.update((robot_id, self.shows(robot_id)) for robot_id in changed)
        else:
            self._shown = {robot_id: self.shows(robot_id) for robot_id in self._rows.facts}
        with self._quiet():  # the facts first: the proxy filters changed rows with them
            self.model.set_rows(self._rows.rows, self._groups())
        self.hint.setText("No robots yet — waiting for robots to announce themselves on "
                          f"{self.host.station.root}/*")
        self._page.show_list(bool(self._robots))
        self._show_counts()
        self._select_active()

    def _hold_drawing(self, behind: bool) -> None:
        """Draws the table once a pass is done, or once it has waited HOLD_DRAWING_S."""
        now = time.monotonic()
        if behind and self._held_since is None:
            self._held_since = now
            self.view.setUpdatesEnabled(False)
        elif self._held_since is not None and (
                not behind or now - self._held_since >= HOLD_DRAWING_S):
            self._held_since = None
            self.view.setUpdatesEnabled(True)  # draws it, with the part about to be shown

    # -- search, state filter, groups ----------------------------------------------------------
    def _on_filter(self) -> None:
        self._words = self.search.text().lower().split()
        self._states = STATE_FILTERS.get(self.state_filter.currentText(),
                                         STATE_FILTERS[ALL_ROBOTS])
        filtering = bool(self._words) or self._states != STATE_FILTERS[ALL_ROBOTS]
        self._shown = {robot_id: self.shows(robot_id) for robot_id in self._rows.facts}
        with self._quiet():
            self.proxy.set_filter(self.shows if filtering else None)
            self.model.set_rows(self._rows.rows, self._groups())  # only the groups' counts change
        self._show_counts()
        self._select_active()

    def shows(self, robot_id: str) -> bool:
        """Whether the search and the state filter let this robot through."""
        facts = self._rows.facts.get(robot_id)
        return facts is None or (facts.state in self._states
                                 and all(w in facts.haystack for w in self._words))

    def _regroup(self) -> None:
        self._headings = {}
        with self._quiet():
            self.model.reset_rows(self._rows.rows, self._groups())
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
        headings = self._headings
        for robot_id, facts in self._rows.facts.items():
            if robot_id not in headings:
                headings[robot_id] = heading(grouping, facts.robot, facts.state, facts.faults)
        totals: dict[str, list[int]] = {}  # group key -> [shown, total]
        for robot_id in self._rows.facts:
            counts = totals.setdefault(headings[robot_id].key, [0, 0])
            counts[0] += self._shown[robot_id]
            counts[1] += 1
        groups: dict[str, Group] = {}
        made: dict[str, Group] = {}
        for robot_id in self._rows.facts:
            h = headings[robot_id]
            group = made.get(h.key)
            if group is None:
                shown, total = totals[h.key]
                count = f"{shown}" if shown == total else f"{shown} of {total}"
                group = made[h.key] = Group(h.key, f"{h.name} ({count})", h.order)
            groups[robot_id] = group
        return groups

    def _show_counts(self) -> None:
        total = len(self._shown)
        shown = sum(self._shown.values()) if self.proxy.accepts else total
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

