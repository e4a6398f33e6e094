"""Inspector panel: a live tree of the newest message on one key (a fixed key, or one that
follows the active robot: ``fleet/{robot}/uplink/motion``)."""

from __future__ import annotations

import html
import time
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QToolButton,
    QVBoxLayout,
)

from app.bus.stats import TopicStats
from app.codec.fields import UNKNOWN_MEMBER, DataSummary, ListSummary
from app.qt.panel_api import PanelHost
from app.render_text import to_json
from app.station.frame import FrameBatch
from app.station.interests import Interest, Latest, LatestValue
from panels.base import PanelBase
from panels.robot_keys import RobotKey
from panels.schema_info import type_hints
from widgets.choice_box import ChoiceBox
from widgets.message_tree import Bytes, Elided, Flagged, MessageTree

ERROR_STYLE = "color:#f85149;"
DIM_STYLE = "color:#82868c;"
FROZEN_BADGE = ("<span style='background:#d29922;color:#111;font-weight:bold;'>"
                "&nbsp;FROZEN&nbsp;</span> ")
PLOT_WINDOW_S = 60
NUMERIC_HINTS = frozenset({"Bool", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16",
                           "UInt32", "UInt64", "Float32", "Float64"})
UNKNOWN_MEMBER_TIP = ("The robot set a union member this schema does not know "
                      "(a newer schema on the robot)")


def stamp_text(stamp: float) -> str:
    """Local time of day to the millisecond, with the date when it is not today."""
    local = time.localtime(stamp)
    day = "" if time.strftime("%Y-%m-%d", local) == time.strftime("%Y-%m-%d") \
        else time.strftime("%Y-%m-%d ", local)
    return f"{day}{time.strftime('%H:%M:%S', local)}.{int(stamp % 1 * 1000):03d}"


def tree_nodes(value: Any) -> Any:
    """A message's plain value (``app.codec.fields.plain``) as the message tree's nodes: long
    lists and Data fields by their summaries, a union member this schema does not know as a
    warning."""
    if isinstance(value, dict):
        return {key: Flagged(item, "not in this schema", UNKNOWN_MEMBER_TIP)
                if key == UNKNOWN_MEMBER else tree_nodes(item) for key, item in value.items()}
    if isinstance(value, list):
        return [tree_nodes(item) for item in value]
    if isinstance(value, ListSummary):
        return Elided(value.length, [tree_nodes(item) for item in value.first])
    if isinstance(value, DataSummary):
        return Bytes(value.size, value.head)
    return value


def size_text(size: int) -> str:
    return f"{size} B" if size < 1000 else (
        f"{size / 1000:.1f} kB" if size < 1_000_000 else f"{size / 1e6:.2f} MB")


class InspectorPanel(PanelBase):
    panel_id = "inspector"
    title = "Inspector"
    accepts = frozenset({"topic"})

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self._key = ""  # as the user gave it (saved): fixed, or following the active robot
        self._robot_key = RobotKey("")
        self._shown: LatestValue | None = None  # the value in the tree (kept while frozen)
        self._shown_seq = -1
        self._type_name = ""
        self._changed_at = 0.0  # batch.now when the shown message arrived

        self.key_box = ChoiceBox("Topic key (or drop a topic here)")
        self.key_box.textActivated.connect(self.set_key)
        self.key_box.lineEdit().returnPressed.connect(
            lambda: self.set_key(self.key_box.currentText()))
        self.freeze_button = QToolButton()
        self.freeze_button.setText("Freeze")
        self.freeze_button.setCheckable(True)
        self.freeze_button.setToolTip("Stop updating and keep the value shown")
        self.freeze_button.toggled.connect(self._on_freeze)
        self.copy_button = QToolButton()
        self.copy_button.setText("Copy JSON")
        self.copy_button.setToolTip("Copy the message shown as JSON")
        self.copy_button.clicked.connect(self.copy_json)
        bar = QHBoxLayout()
        bar.addWidget(self.key_box, 1)
        bar.addWidget(self.freeze_button)
        bar.addWidget(self.copy_button)

        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error = QLabel()
        self.error.setStyleSheet(ERROR_STYLE)
        self.error.setWordWrap(True)
        self.error.hide()
        self.tree = MessageTree()
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.header)
        layout.addWidget(self.error)
        layout.addWidget(self.tree, 1)
        self._show_header()

    # -- the panel contract --------------------------------------------------------------
    @property
    def key(self) -> str:
        return self._key

    @property
    def frozen(self) -> bool:
        return self.freeze_button.isChecked()

    def interests(self) -> set[Interest]:
        key = self._robot_key.key
        return {Latest(key)} if key else set()

    def accept_topic(self, key: str, type_name: str) -> bool:
        self.set_key(key)
        return True

    def save_state(self) -> dict[str, Any]:
        state: dict[str, Any] = {}
        if self._key:
            state["key"] = self._key
        expanded = self.tree.expanded_paths()
        if expanded is not None:
            state["expanded"] = expanded
        return state

    def restore_state(self, state: dict[str, Any]) -> None:
        key = state.get("key", "")
        expanded = state.get("expanded")
        paths_ok = expanded is None or (isinstance(expanded, list)
                                        and all(isinstance(p, str) for p in expanded))
        if not isinstance(key, str) or not paths_ok:
            self.host.show_message("Inspector: ignored a malformed saved state")
            return
        self.tree.set_expanded_paths(expanded)
        self.set_key(key)

    def on_frame(self, batch: FrameBatch) -> None:
        if batch.tables_changed:
            self._refresh_keys(batch)
        if self.frozen:
            return
        if self._robot_key.follow(batch):
            self._clear_shown()
        key = self._robot_key.key
        value = batch.latest.get(key) if key else None
        if value is not None and (value is not self._shown or value.seq != self._shown_seq):
            self._show(value, batch.now)
        self._show_header(batch)

    # -- what the user does ----------------------------------------------------------------
    def set_key(self, key: str) -> None:
        key = key.strip()
        if self.key_box.currentText() != key:
            self.key_box.setEditText(key)
        if key == self._key:
            return
        self.freeze_button.setChecked(False)  # a new topic is wanted live
        self._key = key
        self._robot_key = RobotKey(key)
        self._clear_shown()

    def _clear_shown(self) -> None:
        self._shown, self._shown_seq, self._type_name = None, -1, ""
        self.tree.clear_value()
        self._show_header()

    def copy_json(self) -> bool:
        if self._shown is None:
            self.host.show_message("Inspector: nothing to copy yet")
            return False
        QGuiApplication.clipboard().setText(to_json(self._shown.tree))
        self.host.show_message(f"Copied {self._robot_key.key} as JSON")
        return True

    def _on_freeze(self, frozen: bool) -> None:
        self.freeze_button.setText("Frozen" if frozen else "Freeze")
        self._show_header()

    def _context_menu(self, pos: QPoint) -> None:
        item = self.tree.itemAt(pos)
        path = self.tree.path_of(item) if item is not None else None
        if item is None or path is None:
            return
        menu = QMenu(self)
        menu.addAction("Copy value", lambda: QGuiApplication.clipboard().setText(item.text(1)))
        menu.addAction("Copy path", lambda: QGuiApplication.clipboard().setText(path))
        if item.childCount() == 0 and item.text(2).split(" · ")[-1] in NUMERIC_HINTS:
            menu.addAction(f"Plot {path}", lambda: self.plot_field(path))
        menu.exec(self.tree.viewport().mapToGlobal(pos))

    def plot_field(self, path: str) -> None:
        self.host.open_panel("plot", {"series": [{"key": self._key, "path": path}],
                                      "window_s": PLOT_WINDOW_S, "paused": False})

    # -- showing ---------------------------------------------------------------------------
    def _show(self, value: LatestValue, now: float) -> None:
        if value.type_name != self._type_name:
            self._type_name = value.type_name
            self.tree.clear_value()
            self.tree.set_type_hint(type_hints(value.type_name))
        self.tree.set_value(tree_nodes(value.tree))
        self._shown, self._shown_seq, self._changed_at = value, value.seq, now

    def _show_header(self, batch: FrameBatch | None = None) -> None:
        value = self._shown
        badge = FROZEN_BADGE if self.frozen else ""
        if not self._key:
            self._set_header(f"<span style='{DIM_STYLE}'>Choose a topic above, or drop one "
                             "from the topics panel</span>", "")
            return
        key = html.escape(self._robot_key.key or self._key)
        if value is None:
            resolved = self._robot_key.key
            stats = batch.topics.get(resolved) if batch is not None and resolved else None
            self._set_header(f"{badge}<b>{key}</b> <span style='{DIM_STYLE}'>— "
                             f"{self._waiting_text(batch, stats)}</span>",
                             stats.last_error if stats is not None else "")
            return
        age = f" · age {batch.now - self._changed_at:.1f} s" if batch is not None else ""
        self._set_header(
            f"{badge}<b>{key}</b> · {html.escape(value.type_name)}<br>"
            f"<span style='{DIM_STYLE}'>{stamp_text(value.stamp)} ({value.clock} clock) · "
            f"{size_text(value.size)}{age}</span>", value.error)

    def _waiting_text(self, batch: FrameBatch | None, stats: TopicStats | None) -> str:
        """Why no value is shown: decode errors, no robot (chosen or online), or none yet."""
        if stats is not None and stats.error_count:
            return f"nothing decoded: {stats.error_count} decode errors"
        absence = self._robot_key.absence(batch, self.host.station.root) if batch else ""
        return absence or "waiting for data"

    def _set_header(self, text: str, error: str) -> None:
        if self.header.text() != text:
            self.header.setText(text)
        error_text = f"Decode error: {error}" if error else ""
        if self.error.text() != error_text:
            self.error.setText(error_text)
            self.error.setVisible(bool(error))

    def _refresh_keys(self, batch: FrameBatch) -> None:
        self.key_box.set_choices(sorted(batch.topics))
