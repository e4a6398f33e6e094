"""Who controls the active robot, in the safety bar: "You control rover-1", "rover-1:
controlled by Ana (operator)", and the one button that does what can be done about it —
take control, give it back, ask the holder for it, or (owner role, typed confirmation) take
it over. Another station's request for a robot this station holds is put to the operator.
Taking and asking wait on the network: they run on a thread of their own, and say how
they ended in the status bar."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QToolBar,
    QToolButton,
    QWidget,
)

from app.qt.elided_label import ElidedLabel
from app.station.authority import OWNER, REQUEST_TIMEOUT_S, Authority, Control
from app.station.identity import renamed

WIDTH_CHARS = 42
COLOURS = {"mine": "#3fb950", "other": "#d29922", "free": "#8b949e"}


def control_text(robot: str | None, control: Control | None) -> tuple[str, str]:
    """What the bar says of ``robot``'s control, and its colour."""
    if not robot or control is None:
        return "no active robot", COLOURS["free"]
    if control.mine:
        return f"You control {robot}", COLOURS["mine"]
    if control.taking:
        return f"{robot}: taking control…", COLOURS["free"]
    if control.holder is not None:
        return f"{robot}: controlled by {control.holder.label}", COLOURS["other"]
    if control.lost:
        return f"{robot}: {control.lost}", COLOURS["other"]
    return f"{robot}: nobody in control", COLOURS["free"]


class _Bridge(QObject):
    """Brings zenoh's and the workers' threads back to the GUI thread."""

    said = Signal(str)
    asked = Signal(str, str, object)


class ControlBar(QWidget):
    """``station`` returns the current station (its ``authority``), ``robot`` the active
    robot, ``say`` shows a line in the status bar."""

    def __init__(self, parent: QWidget, station: Callable[[], Any],
                 robot: Callable[[], str | None], say: Callable[[str], None],
                 config_dir: Any) -> None:
        super().__init__(parent)
        self.setObjectName("control-bar")
        self._station, self._robot, self._say = station, robot, say
        self._config_dir = config_dir
        self._bridge = _Bridge(self)
        self._bridge.said.connect(say)
        self._bridge.asked.connect(self._ask_operator)
        self.label = ElidedLabel(min_chars=WIDTH_CHARS)
        self.label.setObjectName("control-label")
        self.label.setFixedWidth(self.label.fontMetrics().averageCharWidth() * WIDTH_CHARS)
        self.button = QToolButton(self)
        self.button.setObjectName("control-button")
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.menu = QMenu(self.button)
        self.take_action = QAction("Take control", self)
        self.release_action = QAction("Release control", self)
        self.request_action = QAction("Request control…", self)
        self.takeover_action = QAction("Take over…", self)
        self.rename_action = QAction("Station name…", self)
        self.take_action.triggered.connect(lambda: self._in_background(self._take))
        self.release_action.triggered.connect(self._release)
        self.request_action.triggered.connect(lambda: self._in_background(self._request))
        self.takeover_action.triggered.connect(self._take_over)
        self.rename_action.triggered.connect(self._rename)
        for action in (self.take_action, self.release_action, self.request_action,
                       self.takeover_action):
            self.menu.addAction(action)
        self.menu.addSeparator()
        self.menu.addAction(self.rename_action)
        self.button.setMenu(self.menu)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 6, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.button)
        self._authority: Authority | None = None
        self.refresh()

    # -- what it shows -------------------------------------------------------------------
    def refresh(self) -> None:
        """From the authority's state (cheap: the window's safety ticks call it)."""
        authority = self._station().authority
        if authority is not self._authority:
            self._authority = authority
            authority.on_request(lambda robot, who, answer:
                                 self._bridge.asked.emit(robot, who, answer))
        robot = self._robot()
        control = authority.control(robot) if robot else None
        text, colour = control_text(robot, control)
        name = authority.identity.name
        station = f"Station {name} ({authority.role})"
        if self.rename_action.text() != f"{station}: rename…":
            self.rename_action.setText(f"{station}: rename…")
        self.label.set_full_text(text, f"{station}. " + (
            "Driving, goals, missions, settings and services need control of a robot; the "
            "e-stop never does." if robot else "No active robot."))
        style = f"color:{colour};font-weight:bold;padding:0 4px;"
        if self.label.styleSheet() != style:
            self.label.setStyleSheet(style)
        self._show_actions(robot, control, authority.role)

    def _show_actions(self, robot: str | None, control: Control | None, role: str) -> None:
        held_by_other = control is not None and control.holder is not None and \
            not control.mine
        self.take_action.setEnabled(bool(robot) and control is not None and
                                    control.holder is None and not control.taking)
        self.release_action.setEnabled(control is not None and control.mine)
        self.request_action.setEnabled(held_by_other)
        self.takeover_action.setEnabled(held_by_other and role == OWNER)
        self.takeover_action.setVisible(role == OWNER)
        default = next((a for a in (self.release_action, self.take_action,
                                    self.request_action) if a.isEnabled()), self.take_action)
        if self.button.defaultAction() is not default:
            self.button.setDefaultAction(default)

    # -- what the operator does ----------------------------------------------------------
    def _in_background(self, work: Callable[[str], str]) -> None:
        robot = self._robot()
        if not robot:
            return

        def run() -> None:
            self._bridge.said.emit(work(robot))

        threading.Thread(target=run, name="control", daemon=True).start()

    def _take(self, robot: str, takeover: bool = False) -> str:
        why = self._station().authority.take(robot, takeover=takeover)
        return f"You control {robot}" if not why else f"{robot}: control not taken: {why}"

    def _request(self, robot: str) -> str:
        self._bridge.said.emit(f"{robot}: asking for control…")
        why = self._station().authority.request(robot)
        return f"You control {robot}" if not why else f"{robot}: {why}"

    def _release(self) -> None:
        robot = self._robot()
        if robot:
            self._station().authority.release(robot)
            self._say(f"{robot}: control given back")

    def _take_over(self) -> None:
        robot = self._robot()
        control = self._station().authority.control(robot) if robot else None
        if not robot or control is None or control.holder is None:
            return
        typed, ok = QInputDialog.getText(
            self, "Take over control",
            f"{control.holder.label} controls {robot}; taking over stops their commands at "
            f"once.\nType the robot's id ({robot}) to take it over:", QLineEdit.EchoMode.Normal)
        if ok and typed.strip() == robot:
            self._in_background(lambda r: self._take(r, takeover=True))
        elif ok:
            self._say(f"{robot}: not taken over (the id typed was not {robot})")

    def _rename(self) -> None:
        authority = self._station().authority
        name, ok = QInputDialog.getText(self, "Station name", "The name other stations see "
                                        "when this station controls a robot:",
                                        QLineEdit.EchoMode.Normal, authority.identity.name)
        if ok:
            authority.identity = renamed(self._config_dir, authority.identity, name)
            self._say(f"This station is now {authority.identity.name} (robots taken from "
                      "now on show it)")

    def _ask_operator(self, robot: str, who: str, answer: Callable[[bool], None]) -> None:
        box = QMessageBox(QMessageBox.Icon.Question, "Control requested",
                          f"{who} asks for control of {robot}. Give it?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                          self.window())
        box.setObjectName("control-request")
        yes = box.button(QMessageBox.StandardButton.Yes)
        box.finished.connect(lambda _: answer(box.clickedButton() is yes))
        QTimer.singleShot(int(REQUEST_TIMEOUT_S * 1000), box, box.reject)
        box.open()


def add_control_bar(window: QMainWindow, station: Callable[[], Any],
                    robot: Callable[[], str | None], say: Callable[[str], None],
                    config_dir: Any) -> ControlBar:
    """The control bar in a toolbar of its own at the window's top: the safety bar's banner
    and E-STOP keep their room in the menu bar's corner at every width."""
    bar = ControlBar(window, station, robot, say, config_dir)
    toolbar = QToolBar("Control", window)
    toolbar.setObjectName("control-toolbar")
    toolbar.setMovable(False)
    toolbar.addWidget(bar)
    window.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)
    return bar
