"""Robots panel at 1,000 robots (100 in short mode): sorting by each column, the search,
the state filter, grouping, a table tick where every robot's vitals changed, and ticks where
none did; and the fleet map drawing the same number of robots.

The robots are RobotInfo and vitals values as the station makes them for a depot's fleet
(rovers, humanoids, cars; some offline, some e-stopped, some faulted). Each operation is
timed with the events it posts (the view's relayout and repaint) handled, the panel shown.
Baseline in the same run: the best bare use of Qt, a QSortFilterProxyModel over a
QStandardItemModel of the same rows (same texts and sort values) in a shown QTableView
doing the same sort or filter; for grouping, that model rebuilt as a tree of the same groups;
for the tick, setData of the changed cells.

A tick where every robot changed is made over a few frames, each within a budget: it is
timed whole (new tables to the last row owed, each frame's events handled) and by its
longest frame, the stall an operator would feel.

Targets (absolute, the ratios are printed for comparison): each sort, filter or grouping
under one 60 Hz frame (16.7 ms); a tick's longest frame under half of one (8.3 ms); a tick
without new tables well under 1 ms, and one whose tables came with nothing changed under 2
ms. The fleet
map's paint is timed against a bare QPainter drawing each robot's arrow and label, under one
frame of the frame clock's default rate (30 Hz). Run under a display (Xvfb in CI).
"""

from __future__ import annotations

import itertools
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QPointF, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QApplication, QTableView, QWidget

from app.qt.application import create_application
from app.qt.frame_clock import DEFAULT_HZ
from panels.robot_rows import BATTERY, COLUMNS, ROBOT
from panels.robots import RobotsPanel
from tests.bench.common import MISSED, fmt_seconds, iterations, median, report, short_mode
from tests.panels.health import LiveStation, PlainHost
from tests.panels.robot_infos import batch, depot, drained
from widgets.fleet_map_view import FleetMapView, MapRobot
from widgets.grouped_rows import Group
from widgets.table import SORT_ROLE, Row

ROBOTS = 1000
SHORT_ROBOTS = 100
FRAME_60HZ_S = 1 / 60
TICK_TARGET_S = FRAME_60HZ_S / 2
IDLE_TARGET_S = 0.001
UNCHANGED_TARGET_S = 0.002
MAP_FRAME_S = 1 / DEFAULT_HZ
NOW = 1000.0


class _Station(LiveStation):
    root = "fleet"


class _Host(PlainHost):
    station = _Station()


def timed(action: Callable[[], object], repeats: int) -> float:
    """Median seconds of ``action`` plus the events it posted."""
    app = QApplication.instance()
    assert app is not None
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        app.processEvents()
        times.append(time.perf_counter() - started)
    return median(times)


def check(name: str, measured: float, baseline: float, target: float) -> None:
    line = report(f"{name} (target < {fmt_seconds(target)} absolute)", measured, baseline)
    if measured >= target and not short_mode():
        MISSED.append(line)


class Bare:
    """The baseline: QStandardItemModel + QSortFilterProxyModel in a QTableView."""

    def __init__(self, rows: list[Row]) -> None:
        self.model = QStandardItemModel(0, len(COLUMNS))
        self.proxy = QSortFilterProxyModel()
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setFilterKeyColumn(-1)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setSourceModel(self.model)
        self.view = QTableView()
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.resize(1200, 700)
        self.fill(rows)
        self.view.show()

    def fill(self, rows: list[Row]) -> None:
        self.model.setRowCount(0)
        for row in rows:
            self.model.appendRow(self.items(row))

    @staticmethod
    def items(row: Row) -> list[QStandardItem]:
        items = []
        for cell in row.cells:
            item = QStandardItem(cell.text)
            item.setData(cell.text if cell.sort is None else cell.sort, SORT_ROLE)
            items.append(item)
        return items

    def regroup(self, rows: list[Row], groups: dict[str, Group]) -> None:
        """The bare way to group: the model rebuilt as a tree of group items."""
        self.model.setRowCount(0)
        heads: dict[str, QStandardItem] = {}
        for row in rows:
            group = groups[row.key]
            head = heads.get(group.key)
            if head is None:
                head = heads[group.key] = QStandardItem(group.label)
                self.model.appendRow(head)
            head.appendRow(self.items(row))

    def update(self, rows: list[Row]) -> None:
        for r, row in enumerate(rows):
            for c in (BATTERY, len(COLUMNS) - 2):  # the battery and the age of its data
                cell = row.cells[c]
                item = self.model.item(r, c)
                item.setText(cell.text)
                item.setData(cell.text if cell.sort is None else cell.sort, SORT_ROLE)


def run() -> list[str]:
    create_application()
    repeats = iterations(30, 3)
    count = iterations(ROBOTS, SHORT_ROBOTS)
    robots, book = depot(count, NOW)
    with tempfile.TemporaryDirectory() as scratch:
        panel = RobotsPanel(_Host(Path(scratch)))  # type: ignore[arg-type]
        panel.resize(1200, 700)
        panel.show()
        panel.on_frame(batch(NOW, robots, book, active="rover-7"))
        bare = Bare(panel._rows.rows)
        QApplication.processEvents()
        print(f"robots panel at {count} robots (median of {repeats}):", flush=True)
        try:
            _sorting(panel, bare, repeats)
            _filtering(panel, bare, repeats)
            _grouping(panel, bare, repeats)
            _ticks(panel, bare, robots, book, repeats)
            _fleet_map(count, repeats)
        finally:
            panel.close()
            panel.deleteLater()
            bare.view.close()
            bare.view.deleteLater()
            QApplication.processEvents()
    return []


def _flip(view_sort: Callable[[int, Qt.SortOrder], None], column: int) -> Callable[[], None]:
    order = [Qt.SortOrder.AscendingOrder]

    def sort() -> None:
        order[0] = (Qt.SortOrder.DescendingOrder if order[0] == Qt.SortOrder.AscendingOrder
                    else Qt.SortOrder.AscendingOrder)
        view_sort(column, order[0])

    return sort


def _sorting(panel: RobotsPanel, bare: Bare, repeats: int) -> None:
    for column, name in enumerate(COLUMNS):
        measured = timed(_flip(panel.view.sortByColumn, column), repeats)
        baseline = timed(_flip(bare.view.sortByColumn, column), repeats)
        check(f"sort by {name}", measured, baseline, FRAME_60HZ_S)
    panel.view.sortByColumn(ROBOT, Qt.SortOrder.AscendingOrder)
    bare.view.sortByColumn(ROBOT, Qt.SortOrder.AscendingOrder)


def _toggle(apply: Callable[[str], object], on: str) -> Callable[[], None]:
    state = [""]

    def toggle() -> None:
        state[0] = on if not state[0] else ""
        apply(state[0])

    return toggle


def _filtering(panel: RobotsPanel, bare: Bare, repeats: int) -> None:
    baseline = timed(_toggle(bare.proxy.setFilterFixedString, "rover"), repeats)
    measured = timed(_toggle(panel.search.setText, "rover"), repeats)
    check("search 'rover' (and clear)", measured, baseline, FRAME_60HZ_S)
    choice = _toggle(lambda s: panel.state_filter.setCurrentText(s or "All robots"), "Fault")
    measured = timed(choice, repeats)
    baseline = timed(_toggle(bare.proxy.setFilterFixedString, "critical"), repeats)
    check("state filter Fault (and All)", measured, baseline, FRAME_60HZ_S)


def _grouping(panel: RobotsPanel, bare: Bare, repeats: int) -> None:
    """Each step one regrouping: to the grouping, then back to none, and so on."""
    for label in ("Family", "State", "Fault"):
        panel.group_by.setCurrentText(label)
        groups = panel._groups()
        panel.group_by.setCurrentText("None")
        assert groups is not None
        measured = timed(_toggle(lambda s: panel.group_by.setCurrentText(s or "None"), label),
                         repeats)
        baseline = timed(_toggle(lambda s, g=groups: bare.regroup(panel._rows.rows, g) if s
                                 else bare.fill(panel._rows.rows), label), repeats)
        check(f"group by {label} (or back to none)", measured, baseline, FRAME_60HZ_S)
    panel.group_by.setCurrentText("None")
    bare.fill(panel._rows.rows)  # an odd number of toggles leaves it grouped


def _ticks(panel: RobotsPanel, bare: Bare, robots: list, book: dict, repeats: int) -> None:
    panel.view.sortByColumn(BATTERY, Qt.SortOrder.AscendingOrder)
    bare.view.sortByColumn(BATTERY, Qt.SortOrder.AscendingOrder)
    # the station's snapshots, made beforehand: a tick is the panel's work alone
    batches = [batch(NOW + 0.3 * i, drained(robots, 0.1 * i, NOW + 0.3 * i), book, "rover-7")
               for i in range(1, 2 * repeats + 3)]
    last = batches[-1]

    app = QApplication.instance()
    assert app is not None
    frames: list[int] = []  # each sweep's frames
    longest: list[float] = []  # each sweep's longest frame

    def tick() -> None:
        """New tables, then the frames after them until no row is owed (the panel makes a
        thousand robots' rows over a few frames, within a budget each)."""
        tables = batches.pop(0)
        owed = replace(tables, tables_changed=False)
        times = []
        for frame in itertools.count():
            started = time.perf_counter()
            panel.on_frame(tables if frame == 0 else owed)
            app.processEvents()
            times.append(time.perf_counter() - started)
            if not panel._rows.behind:
                break
        frames.append(len(times))
        longest.append(max(times))

    tick()
    first = panel._rows.rows
    tick()
    changes = [first, panel._rows.rows]  # two successive ticks' rows: every battery differs

    def bare_tick() -> None:
        changes.reverse()
        bare.update(changes[0])

    for grouping in ("None", "State"):
        panel.group_by.setCurrentText(grouping)
        frames.clear()
        longest.clear()
        measured = timed(tick, repeats)
        baseline = timed(bare_tick, repeats)
        report(f"tick: {len(robots)} robots' vitals changed, grouped by {grouping}, every row "
               f"made again (over {median(frames):g} frames)", measured, baseline)
        check(f"tick: {len(robots)} robots' vitals changed, grouped by {grouping}, the "
              "longest of its frames", median(longest), baseline, TICK_TARGET_S)
    idle = batch(NOW, robots, book, "rover-7", tables_changed=False)
    measured = timed(lambda: panel.on_frame(idle), repeats)
    baseline = timed(lambda: None, repeats)
    check("tick where nothing changed (baseline: an empty tick)", measured, baseline,
          IDLE_TARGET_S)
    # the station lists its robots anew on each refresh: equal values, new objects
    again = batch(last.now, [replace(r) for r in last.robots], book, "rover-7")
    measured = timed(lambda: panel.on_frame(again), repeats)
    check("tick with the same tables again (baseline: an empty tick)", measured, baseline,
          UNCHANGED_TARGET_S)
    panel.group_by.setCurrentText("None")



class BareMap(QWidget):
    """The fleet map's baseline: each robot's arrow and label drawn, nothing placed."""

    def __init__(self, robots: list[MapRobot]) -> None:
        super().__init__()
        self.robots = robots

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor("#11161d"))
        for robot in self.robots:
            at = QPointF(600 + robot.x, 400 - robot.y)
            painter.setBrush(QColor(robot.colour))
            painter.drawPolygon([at + QPointF(10, 0), at + QPointF(-6, 5), at + QPointF(-6, -5)])
            painter.drawText(at + QPointF(12, -6), robot.robot_id)
        painter.end()


def _fleet_map(count: int, repeats: int) -> None:
    colours = ("#2ea043", "#d29922", "#f85149", "#e040fb", "#7d8590")
    robots = [MapRobot(f"rover-{i}", (i * 37) % 1100 - 550.0, (i * 53) % 700 - 350.0,
                       0.1 * i, colours[i % len(colours)], muted=i % 10 == 7)
              for i in range(count)]
    view, bare = FleetMapView(), BareMap(robots)
    for widget in (view, bare):
        widget.resize(1200, 800)
        widget.show()
    view.set_robots(robots)
    QApplication.processEvents()
    try:
        measured = timed(view.repaint, repeats)
        baseline = timed(bare.repaint, repeats)
        check(f"fleet map: {count} robots drawn", measured, baseline, MAP_FRAME_S)
    finally:
        for widget in (view, bare):
            widget.close()
            widget.deleteLater()


if __name__ == "__main__":
    run()
