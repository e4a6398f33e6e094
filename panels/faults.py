"""Faults panel: a robot's active faults (most severe first) to acknowledge, cleared faults
in a searchable history, and the robot's messages. A new critical or major fault of any
robot raises an alert in the status bar and on this panel's tab until it is seen."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.qt.panel_api import PanelHost
from app.render_text import human_age
from app.station.fault_acks import FaultAcks
from app.station.frame import FrameBatch
from app.station.vitals import SEVERITIES, Fault, Message, RobotVitals
from panels.base import PanelBase
from panels.robot_picker import RobotPicker
from widgets.grouped_rows import RowsModel
from widgets.status_light import ALARM, OFFLINE, WARNING
from widgets.table import (
    KEY_ROLE,
    SORT_ROLE,
    Cell,
    ContentColumns,
    Row,
    TextFilterProxy,
    make_table_view,
)

ACTIVE_COLUMNS = ("Severity", "Code", "Source", "Message", "Raised", "Age", "State")
HISTORY_COLUMNS = ("Severity", "Code", "Source", "Message", "Raised", "Cleared")
MESSAGE_COLUMNS = ("Time", "Level", "Message")
SEVERITY_COLOURS = {"critical": ALARM, "major": ALARM, "minor": WARNING, "info": OFFLINE}
LEVEL_COLOURS = {"error": ALARM, "warn": WARNING, "info": ""}
ALL = "All"


class FaultsPanel(PanelBase):
    panel_id = "faults"
    title = "Faults"

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self.acks = FaultAcks(host.config_dir)
        # the faults alerting (_alerting), and what they were worked out from
        self._alerting_for: tuple[object, object, tuple[str, int]] = (None, None, ("", -1))
        self._alerting_now: list[tuple[str, Fault]] = []
        self.picker = RobotPicker()
        self.summary = QLabel()
        self.active_model = RowsModel(ACTIVE_COLUMNS, self)
        self.active = _sorted_view(self.active_model, (11, 20, 12, 40, 9, 7, 13), 3)
        self.active.setSelectionMode(QTableView.SelectionMode.ExtendedSelection)
        # severities whole ("CRITICAL", not "CRITI…"); the message takes the spare room
        self._active_columns = ContentColumns(self.active, first=3)
        self.ack_button = QPushButton("Acknowledge")
        self.ack_all_button = QPushButton("Acknowledge all")
        self.ack_button.clicked.connect(self.acknowledge_selected)
        self.ack_button.setEnabled(False)
        self.ack_all_button.setEnabled(False)
        self.active.selectionModel().selectionChanged.connect(lambda *_: self._enable_ack())
        self.ack_all_button.clicked.connect(self.acknowledge_all)
        self.history_model = RowsModel(HISTORY_COLUMNS, self)
        self.history_proxy = TextFilterProxy((1, 2, 3), self)
        self.history_proxy.setSourceModel(self.history_model)
        self.history = make_table_view(self.history_proxy, (11, 20, 12, 40, 9, 9), 3)
        self._history_columns = ContentColumns(self.history, first=3)
        self.history_search = _search_box("Search code, source or message")
        self.history_search.textChanged.connect(self.history_proxy.set_pattern)
        self.history_severity = _choice((ALL, *SEVERITIES))
        self.history_severity.currentTextChanged.connect(lambda _: self._refresh_lists())
        self.messages_model = RowsModel(MESSAGE_COLUMNS, self)
        self.messages_proxy = TextFilterProxy((2,), self)
        self.messages_proxy.setSourceModel(self.messages_model)
        self.messages = make_table_view(self.messages_proxy, (9, 6, 60), 2)
        self.messages_search = _search_box("Search messages")
        self.messages_search.textChanged.connect(self.messages_proxy.set_pattern)
        self.messages_level = _choice((ALL, "info", "warn", "error"))
        self.messages_level.currentTextChanged.connect(lambda _: self._refresh_lists())
        self.tabs = QTabWidget()
        self.tabs.addTab(_page(self.active, self.ack_button, self.ack_all_button), "Active")
        self.tabs.addTab(_page(self.history, self.history_severity, self.history_search),
                         "History")
        self.tabs.addTab(_page(self.messages, self.messages_level, self.messages_search),
                         "Messages")
        top = QHBoxLayout()
        top.addWidget(self.picker)
        top.addWidget(self.summary, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)
        self._robot: str | None = None
        self._vitals: RobotVitals | None = None
        self._shown: tuple[Any, ...] = ()
        # The faults alerting at the last check, as (robot, code, raised): one not among them
        # is news.
        self._notified: set[tuple[str, str, int]] = set()
        self._alert_text = ""

    # -- ticks ------------------------------------------------------------------------------
    def on_frame(self, batch: FrameBatch) -> None:
        self._robot, self._vitals = self.picker.vitals(batch)
        self._check_alerts(batch)
        shown = (self._robot, self._vitals.version if self._vitals else -1)
        if shown != self._shown or batch.tables_changed:
            self._shown = shown
            self._refresh_active()
            self._refresh_lists()

    def watch(self, batch: FrameBatch) -> None:
        self._check_alerts(batch)

    def _check_alerts(self, batch: FrameBatch) -> None:
        """One alert line for the faults that alert now: raised by a fault not alerted
        before (a robot repeating its fault is not a new one), kept up to date while shown,
        and gone when they clear, their robot goes, a log plays or they are acknowledged."""
        alerting = self._alerting(batch)
        keys = {(robot_id, f.code, f.raised_ms) for robot_id, f in alerting}
        fresh = keys - self._notified
        self._notified = keys
        text = alert_line(alerting, batch.active_robot)
        if fresh or (text and self.host.alerting(self)):
            if text != self._alert_text or fresh:
                self.host.alert(self, text)
        elif not text and self._alert_text:
            self.host.alert_seen(self)
        self._alert_text = text

    def _alerting(self, batch: FrameBatch) -> list[tuple[str, Fault]]:
        """Worked out again only when the robots, their vitals or the acknowledgements
        changed: every frame it read a thousand robots' faults."""
        robots, vitals, known = self._alerting_for
        if robots is batch.robots and vitals is batch.vitals \
                and known == (batch.status.playback, self.acks.revision):
            return self._alerting_now
        alerting: list[tuple[str, Fault]] = []
        if not batch.status.playback:
            online = {r.robot_id for r in batch.robots if r.online}
            alerting = [(robot_id, f) for robot_id, vitals in batch.vitals.items()
                        if robot_id in online for f in vitals.faults
                        if f.alerts and not self.acks.acknowledged(robot_id, f.code,
                                                                   f.raised_ms)]
        self._alerting_for = (batch.robots, batch.vitals,
                              (batch.status.playback, self.acks.revision))
        self._alerting_now = alerting
        return alerting

    # -- acknowledging ------------------------------------------------------------------------
    def acknowledge_selected(self) -> None:
        codes = {i.data(KEY_ROLE) for i in self.active.selectionModel().selectedRows()}
        self._acknowledge([f for f in self._active_faults() if f.code in codes])

    def acknowledge_all(self) -> None:
        self._acknowledge(list(self._active_faults()))

    def _acknowledge(self, faults: list[Fault]) -> None:
        if self._robot is None or not faults:
            return
        problem = self.acks.acknowledge(self._robot, [(f.code, f.raised_ms) for f in faults])
        if problem:
            self.host.show_message(problem)
        self._refresh_active()
        if not self.unacknowledged_alerts():
            self.host.alert_seen(self)

    def _enable_ack(self) -> None:
        """Acknowledge is for a selection holding a fault not acknowledged yet."""
        selected = self.active.selectionModel().selectedRows(6)
        self.ack_button.setEnabled(any(i.data() == "NEW" for i in selected))

    def unacknowledged_alerts(self) -> list[Fault]:
        return [f for f in self._active_faults() if f.alerts and self._robot is not None
                and not self.acks.acknowledged(self._robot, f.code, f.raised_ms)]

    def _active_faults(self) -> tuple[Fault, ...]:
        return self._vitals.faults if self._vitals else ()

    # -- tables -------------------------------------------------------------------------------
    def _refresh_active(self) -> None:
        wall = self.host.station.now()
        robot = self._robot or ""
        faults = self._active_faults()
        rows = [_active_row(i, f, wall, self.acks.acknowledged(robot, f.code, f.raised_ms))
                for i, f in enumerate(faults)]
        self.active_model.set_rows(rows)
        unacked = sum(r.cells[6].text == "NEW" for r in rows)
        if self._robot is None:
            self.summary.setText("No robot chosen — select one in the Robots panel")
        elif self._vitals is None:
            self.summary.setText(f"{self._robot} has reported nothing yet")
        else:
            self.summary.setText(f"{len(faults)} active fault{'' if len(faults) == 1 else 's'}"
                                 f", {unacked} not acknowledged" if faults else "No active faults")
        self.ack_all_button.setEnabled(unacked > 0)
        self._enable_ack()
        self.tabs.setTabText(0, f"Active ({len(faults)})" if faults else "Active")

    def _refresh_lists(self) -> None:
        vitals = self._vitals
        severity = self.history_severity.currentText()
        history = [f for f in (vitals.history if vitals else ())
                   if severity == ALL or str(f.severity) == severity]
        wall, now = self.host.station.now(), time.monotonic()
        self.history_model.set_rows([_history_row(i, f, wall, now)
                                     for i, f in enumerate(history)])
        level = self.messages_level.currentText()
        messages = [m for m in (vitals.messages if vitals else ())
                    if level == ALL or str(m.level) == level]
        self.messages_model.set_rows([_message_row(i, m) for i, m in enumerate(messages)])

    def save_state(self) -> dict[str, Any]:
        return {"tab": self.tabs.currentIndex(), **self.picker.save()}

    def restore_state(self, state: dict[str, Any]) -> None:
        tab = state.get("tab")
        if isinstance(tab, int) and 0 <= tab < self.tabs.count():
            self.tabs.setCurrentIndex(tab)
        self.picker.restore(state)


def _sorted_view(model: RowsModel, widths: tuple[int, ...], stretch: int) -> QTableView:
    proxy = QSortFilterProxyModel(model)
    proxy.setSortRole(SORT_ROLE)
    proxy.setDynamicSortFilter(True)
    proxy.setSourceModel(model)
    view = make_table_view(proxy, widths, stretch)
    view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    return view


def _page(table: QTableView, *controls: QWidget) -> QWidget:
    page = QWidget()
    bar = QHBoxLayout()
    for control in controls:
        bar.addWidget(control, 1 if isinstance(control, QLineEdit) else 0)
    bar.addStretch(0)
    layout = QVBoxLayout(page)
    layout.setContentsMargins(0, 4, 0, 0)
    layout.addLayout(bar)
    layout.addWidget(table, 1)
    return page


def _search_box(placeholder: str) -> QLineEdit:
    box = QLineEdit()
    box.setPlaceholderText(placeholder)
    box.setClearButtonEnabled(True)
    return box


def _choice(items: tuple[str, ...]) -> QComboBox:
    box = QComboBox()
    box.addItems(list(items))
    return box


def _severity_cell(order: int, fault: Fault) -> Cell:
    name = str(fault.severity)
    return Cell(name.upper() if isinstance(fault.severity, str) else f"severity {name}",
                sort=float(order), light=SEVERITY_COLOURS.get(name, ALARM),
                bold=fault.rank == 0,
                tooltip="" if isinstance(fault.severity, str)
                else "A severity this station does not know: shown as major")


def _clock(unix_ms: int) -> str:
    return time.strftime("%H:%M:%S", time.localtime(unix_ms / 1000)) if unix_ms > 0 else "—"


def _active_row(order: int, fault: Fault, wall: float, acknowledged: bool) -> Row:
    age = wall - fault.raised_ms / 1000 if fault.raised_ms > 0 else None
    return Row(fault.code, (
        _severity_cell(order, fault),
        Cell(fault.code, bold=True),
        Cell(fault.source),
        Cell(fault.message, tooltip=fault.message),
        Cell(_clock(fault.raised_ms), sort=float(fault.raised_ms)),
        Cell(human_age(age), sort=age if age is not None else -1.0, numeric=True),
        Cell("acknowledged", colour=OFFLINE) if acknowledged
        else Cell("NEW", bold=True, colour=ALARM if fault.alerts else WARNING),
    ), muted=acknowledged)


def _history_row(order: int, fault: Fault, wall: float, now: float) -> Row:
    cleared = wall - (now - fault.cleared_at) if fault.cleared_at is not None else 0.0
    return Row(f"{order}", (
        _severity_cell(order, fault), Cell(fault.code), Cell(fault.source),
        Cell(fault.message, tooltip=fault.message), Cell(_clock(fault.raised_ms)),
        Cell(_clock(int(cleared * 1000))),
    ))


def _message_row(order: int, message: Message) -> Row:
    level = str(message.level)
    return Row(f"{order}", (
        Cell(_clock(message.unix_ms), sort=float(order)),
        Cell(level if isinstance(message.level, str) else f"level {level}",
             colour=LEVEL_COLOURS.get(level, WARNING)),
        Cell(message.text, tooltip=message.text),
    ))


def alert_line(alerting: list[tuple[str, Fault]], active: str | None) -> str:
    """The worst fault, the active robot's first, and how many more on how many robots."""
    if not alerting:
        return ""
    robot_id, worst = min(alerting, key=lambda item: (item[0] != active, item[1].rank,
                                                       -item[1].seq))
    text = f"{str(worst.severity).upper()} fault {worst.code} on {robot_id}: {worst.message}"
    more = len(alerting) - 1
    if more:
        robots = len({r for r, _ in alerting})
        text += f" (+{more} more" + (f" on {robots} robots)" if robots > 1 else ")")
    return text
