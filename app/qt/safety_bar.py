"""The window's safety controls, in the menu bar's corner and so on screen in every layout:
the arming banner (state, robot, why not armed; the cause of the last stop kept until the
operator acts), which robots are e-stopped from here, "Release e-stop…" and the E-STOP.
Each keeps its place and size in every state, and nothing else in the window can push
them away.

While a modal dialog is open (Connect, Save layout, a file dialog, About…) the station does
not drive, and the e-stop still works: an E-STOP laid exactly over this one, a child of the
dialog (which a modal dialog does not block), and the e-stop key, which is the dialog's own
shortcut too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, QRect, QSize, Qt
from PySide6.QtGui import QAction, QFontMetrics, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QPushButton,
    QToolButton,
    QWidget,
)

from app.qt.elided_label import ElidedLabel
from app.teleop.arming import Arming

# Quick with one hand, but two keys: never hit by a stray press. Space alone is the
# keyboard's deadman, so Ctrl+Space is under the thumb while driving.
ESTOP_SHORTCUT = "Ctrl+Space"
ESTOP_STYLE = ("QToolButton, QPushButton{background:#b62324;color:#ffffff;font-weight:bold;"
               "font-size:16px;border:2px solid #ff7b72;border-radius:4px;padding:2px 8px;}"
               "QToolButton:pressed, QPushButton:pressed{background:#8e1519;}"
               "QToolButton:disabled{background:#6e4042;color:#d0c0c0;}")
ESTOP_ENGAGED_STYLE = ESTOP_STYLE.replace("#b62324", "#f85149").replace("#ff7b72", "#ffffff")
ESTOP_LABELS = ("E-STOP", "E-STOP ENGAGED")
ESTOP_TOOLTIP = (f"Stop the active robot ({ESTOP_SHORTCUT}); with none chosen, every robot "
                 "on line. This is a stop command sent over the network, not a safety-rated "
                 "emergency stop: keep the robot's own hardwired e-stop within reach.")
PLAYBACK_TOOLTIP = "Playback: nothing is sent to any robot, so there is nothing to stop"
BANNER_WIDTH_CHARS = 46
ESTOPPED_WIDTH_CHARS = 24
STATE_COLOURS = {Arming.ARMED: "#3fb950", Arming.DISARMED: "#8b949e",
                 Arming.STALE: "#d29922", Arming.ESTOP: "#f85149"}
# Reasons that only say how to go on: the banner keeps the cause of the stop beside them.
UNFOCUSED_WINDOW = "window lost focus"
UNFOCUSED = "controller unplugged"  # what the machine says of a keyboard without focus
REARM_HINTS = ("deadman released", "release the deadman and press it again to drive")


@dataclass(frozen=True)
class Banner:
    """What the arming banner says."""

    text: str
    colour: str
    tooltip: str


class StopCause:
    """The cause of the last stop, kept from the moment driving ends until the operator
    drives again (the reason the machine gives afterwards is only how to re-arm)."""

    def __init__(self) -> None:
        self._armed = False
        self.cause = ""

    def follow(self, state: Arming, reason: str) -> str:
        if state is Arming.ARMED:
            self._armed, self.cause = True, ""
        elif self._armed:
            self._armed = False
            self.cause = "" if reason == "deadman released" else reason
        return self.cause


def banner(state: Arming, robot: str, reason: str, cause: str, device: str) -> Banner:
    """The banner for an arming state: the robot, and the reason in the operator's words."""
    who = robot or "no robot"
    if state is Arming.ARMED:
        return Banner(f"ARMED · driving {who}", STATE_COLOURS[state],
                      f"Commands move {who}; release the deadman to stop")
    said = operator_words(reason, device)
    if robot and said.startswith(f"{robot} "):  # named once, before it: room for the rest
        said = said[len(robot) + 1:]
    if cause and reason in REARM_HINTS:
        said = f"stopped: {operator_words(cause, device)} · {said}"
    if device == "keyboard" and reason == UNFOCUSED:
        state = Arming.DISARMED  # a keyboard waiting for a click is idle, not a lost device
    return Banner(f"{state.value.upper()} · {who} · {said}", STATE_COLOURS[state],
                  f"{state.value.upper()} ({who}): {said}")


def operator_words(reason: str, device: str) -> str:
    """The arming machine's reason, said so that whoever caused it is named."""
    gui_input = device in ("keyboard", "on-screen stick")
    if reason.startswith("input stale") and gui_input:
        return f"the window was too busy to read the {device} ({reason})"
    if reason.startswith("app stalled"):
        return f"the station is too slow ({reason})"
    if reason == UNFOCUSED and device == "keyboard":
        return "to drive with the keyboard, click the Teleop panel's drive view"
    return reason


class SafetyBar(QWidget):
    """``engage`` and ``release`` are the window's (release asks to confirm). A plain row,
    not a toolbar: a toolbar in the menu bar's corner laid its fixed-width items over each
    other and sent the E-STOP to its overflow."""

    def __init__(self, parent: QWidget, engage: Callable[[], None],
                 release: Callable[[], object], on_dialog: Callable[[bool], None]) -> None:
        super().__init__(parent)
        self.setObjectName("safety-bar")
        self._engage = engage
        self._on_dialog = on_dialog
        self._cause = StopCause()
        self._dialog: QWidget | None = None
        self._overlay: EStopOverlay | None = None
        self._engaged = False

        self.banner = ElidedLabel(min_chars=BANNER_WIDTH_CHARS)
        self.banner.setObjectName("arming-banner")
        self.banner.setFixedWidth(self.banner.fontMetrics().averageCharWidth()
                                  * BANNER_WIDTH_CHARS)
        self.estopped = ElidedLabel(min_chars=ESTOPPED_WIDTH_CHARS)
        self.estopped.setObjectName("estopped-robots")
        self.estopped.setFixedWidth(self.estopped.fontMetrics().averageCharWidth()
                                    * ESTOPPED_WIDTH_CHARS)
        self.estopped.setStyleSheet("color:#f85149;font-weight:bold;padding:0 6px;")
        self.estop_action = QAction(ESTOP_LABELS[0], self)
        self.estop_action.setShortcut(QKeySequence(ESTOP_SHORTCUT))
        self.estop_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.estop_action.setToolTip(ESTOP_TOOLTIP)
        self.estop_action.triggered.connect(engage)
        parent.addAction(self.estop_action)  # the shortcut works whatever has focus
        self.release_action = QAction("Release e-stop…", self)
        self.release_action.setToolTip("Release the e-stop of the active robot (asks to "
                                       "confirm; nothing moves until the deadman is pressed "
                                       "anew)")
        self.release_action.triggered.connect(release)
        self.release_action.setEnabled(False)
        release_button = QToolButton(self)
        release_button.setDefaultAction(self.release_action)
        release_button.setAutoRaise(True)
        release_button.setFixedWidth(release_button.sizeHint().width())
        button = QToolButton(self)
        button.setDefaultAction(self.estop_action)
        self.estop_button = button
        button.setObjectName("estop-button")
        button.setStyleSheet(ESTOP_STYLE)
        button.setFixedSize(estop_button_size(button))
        self.setWindowTitle("Safety")  # where the shortcuts list finds its actions
        self.addActions([self.release_action, self.estop_action])
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 4, 0)
        for widget in (self.banner, self.estopped, release_button, button):
            row.addWidget(widget)
        self.show_banner(Banner("DISARMED · no robot", STATE_COLOURS[Arming.DISARMED], ""))
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            app.focusWindowChanged.connect(self._focus_moved)

    # -- what it shows -------------------------------------------------------------------
    def show_state(self, state: Arming, robot: str, reason: str, device: str) -> None:
        if reason == UNFOCUSED_WINDOW and self.dialog_open():
            reason = "a dialog is open: close it to drive"
        cause = self._cause.follow(state, reason)
        self.show_banner(banner(state, robot, reason, cause, device))

    def show_banner(self, shown: Banner) -> None:
        self.banner.set_full_text(shown.text, shown.tooltip)
        style = (f"background:{shown.colour};color:#111;font-weight:bold;border-radius:3px;"
                 "padding:1px 6px;")
        if self.banner.styleSheet() != style:
            self.banner.setStyleSheet(style)

    def show_estop(self, engaged: bool, engaged_robots: list[str], playback: bool) -> None:
        """``engaged``: the active robot's e-stop (or, with none chosen, any)."""
        self._engaged = engaged
        text = ESTOP_LABELS[1] if engaged else ESTOP_LABELS[0]
        if self.estop_action.text() != text:
            self.estop_action.setText(text)
            self.estop_button.setStyleSheet(ESTOP_ENGAGED_STYLE if engaged else ESTOP_STYLE)
        self.release_action.setEnabled(engaged and not playback)
        self.estop_action.setEnabled(not playback)
        listed = ", ".join(engaged_robots)
        self.estopped.set_full_text(f"E-stopped: {listed}" if listed else "",
                                    f"E-stop engaged from this station for {listed}; each "
                                    "is released on its own" if listed else "")
        tooltip = PLAYBACK_TOOLTIP if playback else ESTOP_TOOLTIP + (
            f"\n\nE-stopped from here: {listed}" if listed else "")
        if self.estop_action.toolTip() != tooltip:
            self.estop_action.setToolTip(tooltip)
        if self._overlay is not None:
            self._overlay.show_engaged(engaged)

    # -- modal dialogs -------------------------------------------------------------------
    def _focus_moved(self, _: object) -> None:
        self.watch_dialogs()

    def watch_dialogs(self) -> None:
        """Called when the focus moves between windows and on the window's ticks."""
        dialog = QApplication.activeModalWidget()
        if dialog is self._dialog:
            if self._overlay is not None:
                self._overlay.place(self._button_rect())
            return
        if self._overlay is not None:
            self._overlay.close()
            self._overlay.deleteLater()
            self._overlay = None
        self._dialog = dialog
        if dialog is not None:
            self._overlay = EStopOverlay(dialog, self._engage, self._engaged)
            self._overlay.place(self._button_rect())
            dialog.destroyed.connect(self._dialog_gone)
        self._on_dialog(dialog is not None)

    def dialog_open(self) -> bool:
        return self._dialog is not None

    def _dialog_gone(self, _: QObject | None = None) -> None:
        self._dialog, self._overlay = None, None
        self._on_dialog(False)

    def _button_rect(self) -> QRect:
        button = self.estop_button
        return QRect(button.mapToGlobal(button.rect().topLeft()), button.size())


class EStopOverlay(QWidget):
    """An E-STOP over the window's own while a modal dialog blocks it: a child window of
    the dialog, which Qt never blocks, so a click and the e-stop key reach it."""

    def __init__(self, dialog: QWidget, engage: Callable[[], None], engaged: bool) -> None:
        super().__init__(dialog, Qt.WindowType.Tool | Qt.WindowType.FramelessWindowHint
                         | Qt.WindowType.WindowStaysOnTopHint
                         | Qt.WindowType.WindowDoesNotAcceptFocus)
        self.setObjectName("estop-overlay")
        self.button = QPushButton(ESTOP_LABELS[0], self)
        self.button.setObjectName("estop-overlay-button")
        self.button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.button.setToolTip(ESTOP_TOOLTIP)
        self.button.clicked.connect(lambda _=False: engage())
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.button)
        self.shortcut = QShortcut(QKeySequence(ESTOP_SHORTCUT), dialog)
        self.shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        self.shortcut.activated.connect(engage)
        self.show_engaged(engaged)

    def place(self, rect: QRect) -> None:
        if self.geometry() != rect:
            self.setGeometry(rect)
        if not self.isVisible():
            self.show()

    def show_engaged(self, engaged: bool) -> None:
        self.button.setText(ESTOP_LABELS[1] if engaged else ESTOP_LABELS[0])
        self.button.setStyleSheet(ESTOP_ENGAGED_STYLE if engaged else ESTOP_STYLE)

    def close(self) -> bool:
        self.shortcut.setEnabled(False)
        self.shortcut.deleteLater()
        return super().close()


def estop_button_size(button: QToolButton) -> QSize:
    """Wide enough for its longest label in the bold 16 px font of its style (its padding
    and border on both sides, and a margin)."""
    font = button.font()
    font.setBold(True)
    font.setPixelSize(16)
    metrics = QFontMetrics(font)
    width = max(metrics.horizontalAdvance(label) for label in ESTOP_LABELS) + 2 * (8 + 2) + 8
    return QSize(width, max(30, metrics.height() + 10))
