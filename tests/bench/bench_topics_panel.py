"""Topics panel at 10,000 topics (1,000 in short mode): a table tick where a tenth of the
topics had new samples, and one where none had.

The topics are TopicStats snapshots as the station hands them over: a new object for a key
with new samples, the same object for a quiet one. The quiet ones were last heard between
10 s and an hour ago (robots gone quiet, latched topics), a few are heavy topics nobody
listens to. Each tick is timed with the events it posts (the view's re-sort and repaint)
handled, the panel shown. Baseline in the same run: the best bare use of Qt, setData of the
changed cells (rate, bandwidth, age) of a QStandardItemModel under a QSortFilterProxyModel
in a shown QTableView; for the tick where nothing changed, an empty tick.

Targets (absolute, the ratios are printed for comparison): a tick under half a 60 Hz frame
(8.3 ms). Run under a display (Xvfb in CI).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QApplication, QTableView

from app.bus.stats import TopicStats
from app.qt.application import create_application
from app.station.frame import FrameBatch
from app.station.robots import StationStatus
from panels.topics import AGE, BANDWIDTH, COLUMNS, RATE, TopicsPanel
from tests.bench.bench_robots_panel import check, timed
from tests.bench.common import iterations
from tests.panels.health import PlainHost
from widgets.table import SORT_ROLE, Row

TOPICS = 10_000
SHORT_TOPICS = 1_000
CHANGED_SHARE = 10  # one topic in ten has new samples each tick
TICK_S = 0.3  # the tables' rate
TICK_TARGET_S = 1 / 60 / 2
NOW = 10_000.0
ENCODING = "application/capnp;fleet.Uplink"


def _key(n: int) -> str:
    return f"fleet/rover-{n // 10}/uplink/member-{n % 10}"


def _quiet(n: int) -> TopicStats:
    """A topic last heard between 10 s and an hour before NOW, or not listened to."""
    stats = TopicStats(_key(n), listening=n % 50 != 3)
    if stats.listening:
        stats.record(NOW - 10.0 - (n * 7919) % 3590, 120, ENCODING)
    return stats.snapshot()


class Ticks:
    """Each tick's snapshots, made beforehand: a tick is the panel's work alone. A tenth of
    the topics (the first) stream; the rest are quiet."""

    def __init__(self, count: int) -> None:
        self.streaming = [TopicStats(_key(n)) for n in range(count // CHANGED_SHARE)]
        self.topics = {_key(n): _quiet(n) for n in range(count)}
        self.ticks = 0

    def batch(self, changed: bool) -> FrameBatch:
        """The next tick; ``changed``: the streaming topics had samples since the last."""
        self.ticks += 1
        now = NOW + TICK_S * self.ticks
        if changed:
            self.topics = dict(self.topics)
            for live in self.streaming:
                for k in range(3):
                    live.record(now - 0.1 * k, 200 + k, ENCODING)
                self.topics[live.key] = live.snapshot()
        return FrameBatch(now, StationStatus(), topics=self.topics, tables_changed=True)

    def keys(self) -> set[str]:
        return {live.key for live in self.streaming}


class Bare:
    """The baseline: QStandardItemModel + QSortFilterProxyModel in a QTableView."""

    def __init__(self, rows: list[Row]) -> None:
        self.model = QStandardItemModel(0, len(COLUMNS))
        self.proxy = QSortFilterProxyModel()
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setSourceModel(self.model)
        self.view = QTableView()
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.resize(1200, 700)
        self.rows: dict[str, int] = {}
        for row in rows:
            self.rows[row.key] = self.model.rowCount()
            self.model.appendRow([self._item(c.text, c.sort) for c in row.cells])
        self.view.show()

    @staticmethod
    def _item(text: str, sort: object) -> QStandardItem:
        item = QStandardItem(text)
        item.setData(text if sort is None else sort, SORT_ROLE)
        return item

    def update(self, rows: list[Row]) -> None:
        for row in rows:
            r = self.rows[row.key]
            for c in (RATE, BANDWIDTH, AGE):
                cell = row.cells[c]
                item = self.model.item(r, c)
                item.setText(cell.text)
                item.setData(cell.text if cell.sort is None else cell.sort, SORT_ROLE)


def rows_of(panel: TopicsPanel) -> list[Row]:
    return list(panel.model._rows.values())


def run() -> list[str]:
    create_application()
    repeats = iterations(30, 3)
    count = iterations(TOPICS, SHORT_TOPICS)
    ticks = Ticks(count)
    with tempfile.TemporaryDirectory() as scratch:
        panel = TopicsPanel(PlainHost(Path(scratch)))  # type: ignore[arg-type]
        panel.resize(1200, 700)
        panel.show()
        panel.on_frame(ticks.batch(changed=True))
        panel.view.sortByColumn(RATE, Qt.SortOrder.DescendingOrder)
        bare = Bare(rows_of(panel))
        bare.view.sortByColumn(RATE, Qt.SortOrder.DescendingOrder)
        QApplication.processEvents()
        print(f"topics panel at {count} topics (median of {repeats}):", flush=True)
        try:
            panel.on_frame(ticks.batch(changed=True))  # two ticks' rows for the bare model
            keys = ticks.keys()
            alternate = [[r for r in rows_of(panel) if r.key in keys]]
            panel.on_frame(ticks.batch(changed=True))
            alternate.append([r for r in rows_of(panel) if r.key in keys])
            changed = [ticks.batch(changed=True) for _ in range(repeats)]

            def bare_tick() -> None:
                alternate.reverse()
                bare.update(alternate[0])

            measured = timed(lambda: panel.on_frame(changed.pop(0)), repeats)
            baseline = timed(bare_tick, repeats)
            check(f"tick: {len(keys)} of {count} topics changed", measured, baseline,
                  TICK_TARGET_S)
            quiet = [ticks.batch(changed=False) for _ in range(repeats + 1)]
            panel.on_frame(quiet.pop(0))
            measured = timed(lambda: panel.on_frame(quiet.pop(0)), repeats)
            baseline = timed(lambda: None, repeats)
            check(f"tick: none of {count} topics changed (baseline: an empty tick)", measured,
                  baseline, TICK_TARGET_S)
        finally:
            panel.close()
            panel.deleteLater()
            bare.view.close()
            bare.view.deleteLater()
            QApplication.processEvents()
    return []


if __name__ == "__main__":
    run()
