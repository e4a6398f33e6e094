"""Topics panel: every key heard with its type, rate, bandwidth, age and decode errors;
a filter, a context menu to plot or inspect, and rows to drag onto other panels."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QMimeData, QModelIndex, QObject, QPoint, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QInputDialog,
    QMenu,
)

from app.bus.keys import UPLINK_SEGMENTS
from app.bus.stats import BUCKETS, TopicStats
from app.codec.fields import numeric_paths
from app.codec.registry import registry
from app.qt.panel_api import TOPIC_MIME, PanelHost
from app.render_text import human_age, human_bytes_per_s, human_rate
from app.station.frame import FrameBatch
from panels.base import PanelBase
from panels.plot import PlotPanel
from widgets.grouped_rows import RowsModel
from widgets.list_page import ListPage
from widgets.status_light import ALARM
from widgets.table import (
    KEY_ROLE,
    Cell,
    ContentColumns,
    Row,
    TextFilterProxy,
    make_table_view,
    restore_sort,
    sort_state,
)

COLUMNS = ("Key", "Type", "Rate", "Bandwidth", "Age", "Errors")
WIDTHS = (40, 38, 9, 10, 7, 7)  # characters
STALE_S = 2.0  # a topic silent this long (and for 3 periods) is greyed
KEY, TYPE, RATE, BANDWIDTH, AGE, ERRORS = range(len(COLUMNS))


class TopicsModel(RowsModel):
    """Rows drag out as TOPIC_MIME: JSON {"key", "type"}."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(COLUMNS, parent)
        self.types: dict[str, str] = {}

    def mimeTypes(self) -> list[str]:
        return [TOPIC_MIME]

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        keys = [i.data(KEY_ROLE) for i in indexes if i.isValid()]
        mime = QMimeData()
        if not keys:
            return mime
        payload = {"key": keys[0], "type": self.types.get(keys[0], "")}
        mime.setData(TOPIC_MIME, json.dumps(payload).encode())
        mime.setText(keys[0])
        return mime


class TopicsPanel(PanelBase):
    panel_id = "topics"
    title = "Topics"

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self.model = TopicsModel(self)
        self.proxy = TextFilterProxy((KEY, TYPE), self)
        self.proxy.setSourceModel(self.model)
        self.view = make_table_view(self.proxy, WIDTHS, stretch=KEY)
        self.columns = ContentColumns(self.view, first=KEY)
        # keys share their robot's prefix: the end of a key is what tells rows apart
        self.view.setTextElideMode(Qt.TextElideMode.ElideLeft)
        self.view.setDragEnabled(True)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.view.setDefaultDropAction(Qt.DropAction.CopyAction)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._show_context_menu)
        restore_sort(self.view, {}, KEY)

        self._page = ListPage(self, self.view,
                              "Filter key or type (text, or a glob like */uplink/*)")
        self.filter, self.count, self.hint = self._page.search, self._page.count, self._page.hint
        self.filter.textChanged.connect(self._on_filter)
        self._filled = False
        self._made: dict[str, tuple[TopicStats, Row]] = {}  # each key's snapshot and its row
        self._ages_due = False
        self.view.verticalScrollBar().valueChanged.connect(lambda _: self._ages_later())
        self.view.horizontalHeader().sortIndicatorChanged.connect(
            lambda *_: self._ages_later())
        self._show_counts()

    def on_frame(self, batch: FrameBatch) -> None:
        if not batch.tables_changed and self._filled:
            return
        self._filled = True
        on_screen = self._keys_on_screen()
        made: dict[str, tuple[TopicStats, Row]] = {}
        types: dict[str, str] = {}
        for key, stats in batch.topics.items():
            was = self._made.get(key)
            row = _kept(was, stats, batch.now, key in on_screen) if was is not None else None
            if row is None:
                row = _row(stats, batch.now)
                types[key] = stats.type_name
            else:
                types[key] = self.model.types[key]
            made[key] = (stats, row)
        self._made, self.model.types = made, types
        self.model.set_rows([row for _, row in made.values()])
        self._show_counts()

    def _keys_on_screen(self) -> set[str]:
        """The keys of the rows in the list's viewport now."""
        if not self.view.isVisible() or not self.proxy.rowCount():
            return set()
        top = self.view.rowAt(0)
        bottom = self.view.rowAt(self.view.viewport().height() - 1)
        if top < 0:
            return set()
        last = bottom if bottom >= 0 else self.proxy.rowCount() - 1
        return {self.proxy.index(row, 0).data(KEY_ROLE) for row in range(top, last + 1)}

    def _bring_ages_on_screen_up_to_date(self) -> None:
        """A quiet topic's age is written only while its row is on screen (the rest wait
        until they are): the rows scrolled or filtered into view get theirs now."""
        self._ages_due = False
        now = time.monotonic()
        changed = False
        for key in self._keys_on_screen():
            was = self._made.get(key)
            if was is None:
                continue
            row = _kept(was, was[0], now, True)
            if row is not None and row is not was[1]:
                self._made[key] = (was[0], row)
                changed = True
        if changed:
            self.model.set_rows([row for _, row in self._made.values()])

    def _ages_later(self) -> None:
        if not self._ages_due:
            self._ages_due = True
            QTimer.singleShot(0, self._bring_ages_on_screen_up_to_date)

    def _on_filter(self, text: str) -> None:
        self.proxy.set_pattern(text)
        self._show_counts()
        self._ages_later()

    def _show_counts(self) -> None:
        total, shown = self.model.rowCount(), self.proxy.rowCount()
        self.count.setText(f"{total} topic{'' if total == 1 else 's'}" if shown == total
                           else f"{shown} of {total}")
        self.hint.setText(f"No topics yet — waiting for data on {self.host.station.root}/**")
        self._page.show_list(bool(total))

    # -- context menu -------------------------------------------------------------------------
    def _show_context_menu(self, pos: QPoint) -> None:
        key = self.view.indexAt(pos).data(KEY_ROLE)
        if key:
            menu = self.context_menu(key)
            menu.exec(self.view.viewport().mapToGlobal(pos))
            menu.deleteLater()

    def context_menu(self, key: str) -> QMenu:
        menu = QMenu(self)
        plot = menu.addAction("Plot field…", lambda: self.plot_field(key))
        if not self.numeric_paths(key):
            plot.setEnabled(False)
            plot.setToolTip("This topic's type has no numeric fields we know of")
        menu.addAction("Inspect", lambda: self.inspect(key))
        menu.addSeparator()
        menu.addAction("Record this topic", lambda: self.host.record_topics([key]))
        shown = self.shown_keys()
        menu.addAction(f"Record the {len(shown)} topics shown",
                       lambda: self.host.record_topics(shown))
        menu.setToolTipsVisible(True)
        return menu

    def shown_keys(self) -> list[str]:
        """The keys the filter lets through, in the table's order."""
        return [self.proxy.index(row, 0).data(KEY_ROLE) for row in range(self.proxy.rowCount())]

    def numeric_paths(self, key: str) -> list[str]:
        """The numeric fields of the topic's type; those under the union member its key
        names (``…/uplink/motion`` carries ``motion``) come first."""
        struct = registry().find(self.model.types.get(key, ""))
        if struct is None:
            return []
        paths = numeric_paths(struct.schema)
        segment = key.rsplit("/", 1)[-1]
        members = {segment, *(m for m, s in UPLINK_SEGMENTS.items() if s == segment)}
        return sorted(paths, key=lambda p: p.split(".", 1)[0] not in members)

    def plot_field(self, key: str) -> None:
        """Asks which numeric field of the topic to plot, then adds it to the plot on screen
        (the one opened last, if several), or opens a plot where the window puts it."""
        paths = self.numeric_paths(key)
        if not paths:
            self.host.show_message(f"{key} has no numeric fields to plot")
            return
        path, ok = QInputDialog.getItem(self, "Plot field", f"Field of {key}:", paths, 0, False)
        if not ok or not path:
            return
        plot = self._plot_on_screen()
        if plot is None:
            self.host.open_panel("plot", {"series": [{"key": key, "path": path}]})
        elif not plot.add_series(key, path):
            self.host.show_message(f"Plot: {key}:{path} is plotted already")

    def _plot_on_screen(self) -> PlotPanel | None:
        on_screen = [p for p in self.host.panels().values()
                     if isinstance(p, PlotPanel) and not p.visibleRegion().isEmpty()]
        return on_screen[-1] if on_screen else None

    def inspect(self, key: str) -> None:
        self.host.open_panel("inspector", {"key": key})

    # -- state --------------------------------------------------------------------------------
    def save_state(self) -> dict[str, Any]:
        return {"filter": self.filter.text(), **sort_state(self.view)}

    def restore_state(self, state: dict[str, Any]) -> None:
        state = state if isinstance(state, dict) else {}
        text = state.get("filter", "")
        self.filter.setText(text if isinstance(text, str) else "")
        restore_sort(self.view, state, KEY)


def _row(stats: TopicStats, now: float) -> Row:
    if not stats.listening:
        return _on_demand_row(stats)
    rate, age, bandwidth = stats.rate_hz(now), stats.age_s(now), stats.bandwidth_bps(now)
    stale = age is not None and age > STALE_S and (rate == 0 or age * rate > 3)
    return Row(
        key=stats.key,
        cells=(
            Cell(stats.key, tooltip=stats.key),
            Cell(stats.type_name or "—", tooltip=stats.encoding),
            Cell(human_rate(rate), sort=rate, numeric=True),
            Cell(human_bytes_per_s(bandwidth), sort=bandwidth, numeric=True),
            _age_cell(stats, age),
            _errors_cell(stats) if stats.error_count else Cell("0", sort=0.0, numeric=True),
        ),
        muted=stale,
    )


def _age_cell(stats: TopicStats, age: float | None) -> Cell:
    # Sorted by the newest sample's time, newest first: the order of the ages at any moment,
    # and a value that changes only with new samples, not on every tick.
    return Cell(human_age(age), sort=float("inf") if age is None else -stats.last_arrival,
                numeric=True)


def _kept(was: tuple[TopicStats, Row], stats: TopicStats, now: float, on_screen: bool
          ) -> Row | None:
    """The row made of this same snapshot before, if nothing else of it can have changed
    since: a topic not listened to, or silent for longer than the rate window (its rate and
    bandwidth stay 0 and it stays greyed), its age brought up to ``now`` while its row is
    ``on_screen`` (the age sorts by the last arrival, which a quiet topic keeps: ten
    thousand quiet rows off screen cost nothing). None otherwise."""
    snapshot, row = was
    if snapshot is not stats:
        return None
    if not stats.listening:
        return row
    if stats.count and int(stats.last_arrival) > int(now) - BUCKETS:
        return None  # heard within the rate window: its rate moves with time
    if not on_screen:
        return row
    age = human_age(stats.age_s(now))
    if row.cells[AGE].text == age:
        return row
    return replace(row, cells=(*row.cells[:AGE], replace(row.cells[AGE], text=age),
                               *row.cells[AGE + 1:]))


def _on_demand_row(stats: TopicStats) -> Row:
    """A heavy topic in a robot's catalog that no open panel shows: not received now."""
    why = ("A heavy topic (images, video, point clouds…): the station receives it only "
           "while a panel or the recorder wants it, so a big fleet costs what is shown.")
    return Row(
        key=stats.key,
        cells=(
            Cell(stats.key, tooltip=stats.key),
            Cell(stats.type_name or "—", tooltip=stats.encoding),
            Cell("on demand", sort=-1.0, numeric=True, tooltip=why),
            Cell("—", sort=-1.0, numeric=True, tooltip=why),
            Cell("—", sort=float("inf"), numeric=True, tooltip=why),
            Cell(str(stats.error_count), sort=float(stats.error_count), numeric=True),
        ),
        muted=True,
    )


def _errors_cell(stats: TopicStats) -> Cell:
    kinds = ", ".join(f"{kind} ×{n}" for kind, n in stats.errors.most_common())
    return Cell(str(stats.error_count), sort=float(stats.error_count), colour=ALARM, bold=True,
                numeric=True, tooltip=f"Last error: {stats.last_error}\nKinds: {kinds}\n"
                f"(the newest sample of each topic is checked twice a second)")
