"""Teleop panel: drive the active robot through the window's teleop session.

It shows whether commands move the robot (the arming state, big, with its reason), the
input live with the profile's dead zones, what is sent (and lets the operator set the hand's
fingers), the command clock, the link and the speed scale. The input is a gamepad (SDL's
thread, started when chosen), the keyboard (keys reach the drive view while it has focus)
or the on-screen stick with a hold-to-drive button. Profiles come from the config dir; a
minimal editor changes dead zone, expo and limits live. The session is the window's: closing
the panel takes its input away (the robot stops) but keeps the session.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFocusEvent, QFont, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSlider,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.inputs.keyboard import KeyboardInput
from app.qt.panel_api import PanelHost
from app.station.frame import FrameBatch
from app.teleop.arming import Arming
from app.teleop.model import InputState
from app.teleop.profiles import (
    AXES,
    DEFAULT,
    FINGERS,
    Profile,
    ProfileError,
    choose_profile,
    list_profiles,
    save_profile,
)
from panels.base import PanelBase
from widgets.status_light import ALARM, OFFLINE, ONLINE, WARNING
from widgets.stick_preview import SignedBar, StickPreview, TriggerPreview
from widgets.virtual_stick import VirtualStick

if TYPE_CHECKING:
    from app.inputs.gamepad import Gamepad
    from app.teleop.session import TeleopSession

SOURCES = {"gamepad": "Gamepad", "keyboard": "Keyboard", "stick": "On-screen stick"}
READING_PERIOD_MS = 50  # keyboard and on-screen stick readings (20 Hz): a held key stays fresh
GAMEPAD_START_MS = 200
SHOW_PERIOD_S = 0.066  # labels refresh at ~15 Hz, not every frame
STATE_COLOURS = {Arming.ARMED: ONLINE, Arming.DISARMED: OFFLINE, Arming.STALE: WARNING,
                 Arming.ESTOP: ALARM}
STICK_OUTPUTS = (("linear", "m/s"), ("angular", "rad/s"), ("steering", "rad"))
LIMIT_FIELDS = (("linear", "m/s"), ("angular", "rad/s"), ("steering", "rad"), ("speed", "m/s"))


def key_name(event: QKeyEvent) -> str:
    """The key as app.inputs.keyboard names it ("w", "up", "space", "shift")."""
    return QKeySequence(event.key()).toString().lower()


def stick_dead_zone(profile: Profile, axes: tuple[str, ...]) -> float:
    return max((m.deadzone for m in profile.axes.values() if m.axis in axes), default=0.0)


def _ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1000:.0f} ms"


class DriveView(QWidget):
    """The input previews; while it has focus the keyboard drives (keys forwarded by name,
    auto-repeats ignored, everything released when focus goes)."""

    def __init__(self, keyboard: KeyboardInput, changed: Any) -> None:
        super().__init__()
        self.keyboard = keyboard
        self._changed = changed
        self.takes_keys = False
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self.takes_keys and self.keyboard.handles(key_name(event)):
            if not event.isAutoRepeat():
                self.keyboard.press(key_name(event))
                self._changed()
            event.accept()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if self.takes_keys and self.keyboard.handles(key_name(event)):
            if not event.isAutoRepeat():
                self.keyboard.release(key_name(event))
                self._changed()
            event.accept()
            return
        super().keyReleaseEvent(event)

    def focusInEvent(self, event: QFocusEvent) -> None:
        self.keyboard.set_focus(True)
        self._changed()
        self.update()
        super().focusInEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self.keyboard.set_focus(False)
        self._changed()
        self.update()
        super().focusOutEvent(event)


class TeleopPanel(PanelBase):
    panel_id = "teleop"
    title = "Teleop"

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self.session: TeleopSession = host.teleop()
        self.profile: Profile = DEFAULT
        self.source = ""
        self._wanted_source = "gamepad"  # until the first turn of the event loop
        self.gamepad: Gamepad | None = None
        self.keyboard = KeyboardInput()
        self.keyboard.set_focus(False)
        self._lock = threading.Lock()  # readings arrive on the gamepad's thread
        self._input: InputState | None = None
        self._ranges: dict[str, list[float]] = {}
        self._stick_xy = (0.0, 0.0)
        self._stick_deadman = False
        self._shown_at = 0.0
        self._closed = False

        self.state_label = QLabel("DISARMED")
        font = QFont(self.state_label.font())
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.state_label.setFont(font)
        self.state_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.state_label.setObjectName("teleop-state")
        self.source_box = QComboBox()
        for key, text in SOURCES.items():
            self.source_box.addItem(text, key)
        self.source_box.activated.connect(
            lambda _: self.set_source(str(self.source_box.currentData())))
        self.profile_box = QComboBox()
        self.profile_box.activated.connect(
            lambda _: self.choose_profile(self.profile_box.currentText()))
        self.input_label = QLabel()
        top = QHBoxLayout()
        top.addWidget(QLabel("Input"))
        top.addWidget(self.source_box)
        top.addWidget(QLabel("Profile"))
        top.addWidget(self.profile_box)
        top.addWidget(self.input_label, 1)

        self.tabs = QTabWidget()
        self.tabs.addTab(_scrolled(self._build_drive()), "Drive")
        self.tabs.addTab(_scrolled(self._build_profile_editor()), "Profile")
        self.tabs.addTab(self._build_calibration(), "Calibration")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.state_label)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)

        self.timer = QTimer(self)
        self.timer.setInterval(READING_PERIOD_MS)
        self.timer.timeout.connect(self._feed)
        self.refresh_profiles()
        self._show_profile()
        # Chosen on the next turn of the event loop, so a restored state picks the source
        # (and the gamepad thread does not start for a panel that is restored otherwise).
        QTimer.singleShot(0, self, lambda: self.set_source(self._wanted_source))

    # -- building --------------------------------------------------------------------------
    def _build_drive(self) -> QWidget:
        self.drive = DriveView(self.keyboard, self._feed)
        self.previews = {"left": StickPreview("left"), "right": StickPreview("right")}
        self.triggers = {"lefttrigger": TriggerPreview("LT"),
                         "righttrigger": TriggerPreview("RT")}
        self.stick = VirtualStick()
        self.stick.moved.connect(self._stick_moved)
        self.deadman_button = QPushButton("Hold to drive")
        self.deadman_button.setMinimumHeight(36)
        self.deadman_button.pressed.connect(lambda: self._set_stick_deadman(True))
        self.deadman_button.released.connect(lambda: self._set_stick_deadman(False))
        self.keys_hint = QLabel("Click here, then W A S D / arrows; hold Space to drive, "
                                "Shift for turbo")
        self.keys_hint.setWordWrap(True)
        inputs = QGridLayout(self.drive)
        inputs.setContentsMargins(2, 2, 2, 2)
        inputs.addWidget(self.previews["left"], 0, 0)
        inputs.addWidget(self.triggers["lefttrigger"], 0, 1)
        inputs.addWidget(self.triggers["righttrigger"], 0, 2)
        inputs.addWidget(self.previews["right"], 0, 3)
        inputs.addWidget(self.stick, 0, 4)
        inputs.addWidget(self.deadman_button, 1, 4)
        inputs.addWidget(self.keys_hint, 1, 0, 1, 4)

        outputs = QGridLayout()
        self.output_bars: dict[str, SignedBar] = {}
        for row, (name, _) in enumerate(STICK_OUTPUTS):
            bar = SignedBar()
            self.output_bars[name] = bar
            outputs.addWidget(QLabel(name), row, 0)
            outputs.addWidget(bar, row, 1)
        self.gear_label = QLabel("—")
        outputs.addWidget(QLabel("gear"), len(STICK_OUTPUTS), 0)
        outputs.addWidget(self.gear_label, len(STICK_OUTPUTS), 1)
        self.fingers: list[QSlider] = []
        for n, finger in enumerate(FINGERS):
            slider = QSlider(Qt.Orientation.Horizontal)
            slider.setRange(0, 100)
            slider.setToolTip(f"{finger}: 0 open .. 100 % closed")
            slider.valueChanged.connect(self._finger_changed)
            self.fingers.append(slider)
            outputs.addWidget(QLabel(finger), len(STICK_OUTPUTS) + 1 + n, 0)
            outputs.addWidget(slider, len(STICK_OUTPUTS) + 1 + n, 1)

        self.stats: dict[str, QLabel] = {}
        stats = QFormLayout()
        for key, text in (("rate", "Command rate"), ("period", "Real period"),
                          ("link", "Link age"), ("round_trip", "Round trip"),
                          ("scale", "Speed scale"), ("output", "Sending"),
                          ("estop", "E-stop")):
            label = QLabel("—")
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.stats[key] = label
            stats.addRow(text, label)

        page = QWidget()
        columns = QHBoxLayout(page)
        columns.setContentsMargins(2, 2, 2, 2)
        columns.addWidget(self.drive, 3)
        columns.addLayout(outputs, 2)
        columns.addLayout(stats, 3)
        return page

    def _build_profile_editor(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.profile_reason = QLabel()
        self.profile_reason.setWordWrap(True)
        self.profile_reason.setStyleSheet(f"color:{ALARM};")
        form.addRow(self.profile_reason)
        self.dead_zone_box = _spin(0.0, 0.95, 0.01)
        self.expo_box = _spin(0.0, 1.0, 0.05)
        form.addRow("Stick dead zone", self.dead_zone_box)
        form.addRow("Expo", self.expo_box)
        self.limit_boxes: dict[str, QDoubleSpinBox] = {}
        for name, unit in LIMIT_FIELDS:
            box = _spin(0.0, 20.0, 0.05)
            box.setSuffix(f" {unit}")
            self.limit_boxes[name] = box
            form.addRow(f"Max {name}", box)
        for box in (self.dead_zone_box, self.expo_box, *self.limit_boxes.values()):
            box.valueChanged.connect(self._edited)
        self.save_name = QLineEdit()
        self.save_name.setPlaceholderText("profile name")
        save = QPushButton("Save")
        save.clicked.connect(self.save_profile)
        row = QHBoxLayout()
        row.addWidget(self.save_name, 1)
        row.addWidget(save)
        form.addRow("Save as", row)
        return page

    def _build_calibration(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(QLabel("Raw range of each axis seen since the panel opened"))
        self.ranges_table = QTableWidget(len(AXES), 3)
        self.ranges_table.setHorizontalHeaderLabels(["min", "max", "now"])
        self.ranges_table.setVerticalHeaderLabels(list(AXES))
        layout.addWidget(self.ranges_table, 1)
        reset = QPushButton("Reset")
        reset.clicked.connect(self.reset_ranges)
        layout.addWidget(reset, 0, Qt.AlignmentFlag.AlignLeft)
        return page

    # -- inputs ------------------------------------------------------------------------------
    def set_source(self, source: str) -> None:
        if source not in SOURCES or self._closed:
            return
        if source == self.source:
            return
        self.source = source
        self.source_box.setCurrentIndex(list(SOURCES).index(source))
        if source != "gamepad" and self.gamepad is not None:
            self.gamepad.stop()
            self.gamepad = None
        self._stick_deadman = False
        self.stick.release()
        self.keyboard.release_all()
        self._reading(None)
        keys, stick = source == "keyboard", source == "stick"
        self.drive.takes_keys = keys
        self.keys_hint.setVisible(keys)
        self.stick.setVisible(stick)
        self.deadman_button.setVisible(stick)
        self.input_label.setText("")
        if source == "gamepad":
            self.timer.stop()
            # SDL starts once the window has painted: the first frame does not wait for it.
            QTimer.singleShot(GAMEPAD_START_MS, self, self._start_gamepad)
        else:
            self.timer.start()
            if keys:
                self.keyboard.set_focus(self.drive.hasFocus())
                self.drive.setFocus()
            self._feed()

    def _start_gamepad(self) -> None:
        if self.source != "gamepad" or self.gamepad is not None or self._closed:
            return
        from app.inputs.gamepad import Gamepad

        gamepad = Gamepad(self._reading)
        try:
            gamepad.start()
        except RuntimeError as exc:
            self.input_label.setText(f"Gamepad: {exc}")
            return
        self.gamepad = gamepad
        if gamepad.error:
            self.input_label.setText(gamepad.error)

    def _reading(self, state: InputState | None) -> None:
        """Every reading of the current source (any thread): kept for the previews and the
        raw ranges, and handed to the session."""
        with self._lock:
            self._input = state
            for axis, value in (state.axes.items() if state is not None else ()):
                seen = self._ranges.setdefault(axis, [value, value])
                seen[0], seen[1] = min(seen[0], value), max(seen[1], value)
        self.session.set_input(state)

    def _feed(self) -> None:
        """A reading of the keyboard or the on-screen stick, as often as the timer asks."""
        if self.source == "keyboard":
            self._reading(self.keyboard.reading())
        elif self.source == "stick":
            x, y = self._stick_xy
            buttons = frozenset((self.profile.deadman,)) if self._stick_deadman else frozenset()
            axes = {axis: 0.0 for axis in AXES} | {"lefty": y, "rightx": x}
            self._reading(InputState(axes=axes, buttons=buttons, read_at=time.monotonic(),
                                     device="on-screen stick"))

    def _stick_moved(self, x: float, y: float) -> None:
        self._stick_xy = (x, y)
        self._feed()

    def _set_stick_deadman(self, held: bool) -> None:
        self._stick_deadman = held
        self._feed()

    def _finger_changed(self) -> None:
        self.session.controller.set_hand(tuple(float(s.value()) for s in self.fingers))

    def _keyboard_for(self, profile: Profile) -> None:
        """Space and Shift read as this profile's deadman and turbo buttons."""
        keyboard = KeyboardInput(deadman_button=profile.deadman,
                                 turbo_button=profile.turbo or "rightshoulder")
        keyboard.set_focus(self.drive.hasFocus())
        self.keyboard = self.drive.keyboard = keyboard
        self._feed()

    def reset_ranges(self) -> None:
        with self._lock:
            self._ranges.clear()

    def ranges(self) -> dict[str, tuple[float, float]]:
        with self._lock:
            return {axis: (low, high) for axis, (low, high) in self._ranges.items()}

    # -- profiles ------------------------------------------------------------------------------
    def refresh_profiles(self) -> None:
        self.profile_box.clear()
        self.profile_box.addItems(list_profiles(self.host.config_dir))
        self.profile_box.setCurrentText(self.profile.name)

    def choose_profile(self, name: str) -> None:
        profile, reason = choose_profile(self.host.config_dir, name)
        self.profile_reason.setText(reason)
        if reason:
            self.host.show_message(reason)
        self._use(profile)

    def _use(self, profile: Profile) -> None:
        if (profile.deadman, profile.turbo) != (self.profile.deadman, self.profile.turbo):
            self._keyboard_for(profile)
        self.profile = profile
        self.session.controller.set_profile(profile)
        self._show_profile()

    def _show_profile(self) -> None:
        profile = self.profile
        boxes = (self.dead_zone_box, self.expo_box, *self.limit_boxes.values())
        for box in boxes:
            box.blockSignals(True)
        sticks = [m for m in profile.axes.values() if m.axis not in ("lefttrigger",
                                                                     "righttrigger")]
        self.dead_zone_box.setValue(max((m.deadzone for m in sticks), default=0.0))
        self.expo_box.setValue(max((m.expo for m in sticks), default=0.0))
        for name, box in self.limit_boxes.items():
            box.setValue(getattr(profile.limits.normal, name))
        for box in boxes:
            box.blockSignals(False)
        self.save_name.setText("" if profile.name == DEFAULT.name else profile.name)
        left = stick_dead_zone(profile, ("leftx", "lefty"))
        right = stick_dead_zone(profile, ("rightx", "righty"))
        self.previews["left"].set_dead_zone(left)
        self.previews["right"].set_dead_zone(right)
        for trigger, preview in self.triggers.items():
            preview.set_dead_zone(stick_dead_zone(profile, (trigger,)))
        self.stick.set_dead_zone(max(left, right))

    def _edited(self) -> None:
        profile = self.profile
        axes = {output: dataclasses.replace(m, deadzone=self.dead_zone_box.value(),
                                            expo=self.expo_box.value())
                if m.axis not in ("lefttrigger", "righttrigger") else m
                for output, m in profile.axes.items()}
        normal = dataclasses.replace(profile.limits.normal, **{
            name: box.value() for name, box in self.limit_boxes.items()})
        self._use(dataclasses.replace(
            profile, axes=axes, limits=dataclasses.replace(profile.limits, normal=normal)))

    def save_profile(self) -> None:
        name = self.save_name.text().strip()
        if not name or name == DEFAULT.name:
            self.profile_reason.setText("Name the profile to save it (not 'default')")
            return
        try:
            path = save_profile(self.host.config_dir, dataclasses.replace(self.profile,
                                                                          name=name))
        except (ProfileError, OSError) as exc:
            self.profile_reason.setText(f"Not saved: {exc}")
            return
        self.profile_reason.setText("")
        self.profile = dataclasses.replace(self.profile, name=name)
        self.session.controller.set_profile(self.profile)
        self.refresh_profiles()
        self.host.show_message(f"Teleop profile saved to {path}")

    # -- showing -----------------------------------------------------------------------------
    def on_frame(self, batch: FrameBatch) -> None:
        if batch.now - self._shown_at < SHOW_PERIOD_S:
            return
        self._shown_at = batch.now
        self.show_status()

    def show_status(self) -> None:
        status = self.session.status()
        teleop = status.teleop
        colour = STATE_COLOURS.get(teleop.state, OFFLINE)
        reason = teleop.reason if teleop.state is not Arming.ARMED else \
            f"driving {teleop.robot}"
        self.state_label.setText(f"{teleop.state.value.upper()} — {reason}")
        self.state_label.setStyleSheet(
            f"color:#111;background:{colour};border-radius:4px;padding:4px;")
        with self._lock:
            reading = self._input
        axes = reading.axes if reading is not None else {}
        self.previews["left"].set_value(axes.get("leftx", 0.0), axes.get("lefty", 0.0))
        self.previews["right"].set_value(axes.get("rightx", 0.0), axes.get("righty", 0.0))
        for trigger, preview in self.triggers.items():
            preview.set_value(axes.get(trigger, 0.0))
        if self.source == "gamepad" and not self.input_label.text().startswith("Gamepad:"):
            self.input_label.setText(teleop.device or "no gamepad plugged")
        elif self.source == "keyboard":
            self.input_label.setText("keys reach the drive view" if self.drive.hasFocus()
                                     else "click the drive view to use the keyboard")
        self._show_outputs(status)
        self._show_stats(status)
        self._show_ranges(axes)

    def _show_outputs(self, status: Any) -> None:
        teleop = status.teleop
        motion = teleop.motion
        limits = self.profile.limits_for(teleop.robot or None, teleop.turbo)
        for name, unit in STICK_OUTPUTS:
            value = getattr(motion, name) if motion is not None else 0.0
            limit = getattr(limits, name) or 1.0
            self.output_bars[name].set_value(value / limit, f"{value:+.2f} {unit}")
        self.gear_label.setText(teleop.gear.value if teleop.gear is not None else "kept")
        if teleop.hand is not None:
            for slider, value in zip(self.fingers, teleop.hand, strict=False):
                if not slider.isSliderDown():
                    slider.blockSignals(True)
                    slider.setValue(round(value))
                    slider.blockSignals(False)

    def _show_stats(self, status: Any) -> None:
        teleop, link, estop = status.teleop, status.link, status.estop
        self.stats["rate"].setText(f"{teleop.rate_hz:.0f} Hz · {teleop.sent} sent")
        self.stats["period"].setText(f"p50 {_ms(teleop.period.p50)} · p99 "
                                     f"{_ms(teleop.period.p99)}")
        self.stats["link"].setText(_ms(link.data_age_s) + ("" if link.live else
                                                           f" ({link.reason})"))
        self.stats["round_trip"].setText(_ms(link.round_trip_s))
        self.stats["scale"].setText(f"{teleop.scale * 100:.0f} %"
                                    + (f" ({teleop.scale_reason})" if teleop.scale_reason
                                       else "") + (" turbo" if teleop.turbo else ""))
        robot = status.link.selected
        self.stats["output"].setText(status.output or (
            f"nothing sent to {robot} yet" if robot else "nothing: no robot selected"))
        self.stats["estop"].setText("not engaged" if estop is None or not (
            estop.engaged or estop.sending) else estop.reason or "engaged")

    def _show_ranges(self, axes: dict[str, float]) -> None:
        ranges = self.ranges()
        for row, axis in enumerate(AXES):
            low, high = ranges.get(axis, (None, None))
            now = axes.get(axis)
            for column, value in enumerate((low, high, now)):
                text = "—" if value is None else f"{value:+.3f}"
                item = self.ranges_table.item(row, column)
                if item is None:
                    self.ranges_table.setItem(row, column, QTableWidgetItem(text))
                elif item.text() != text:
                    item.setText(text)

    # -- the panel contract --------------------------------------------------------------------
    def save_state(self) -> dict[str, Any]:
        return {"source": self.source or self._wanted_source, "profile": self.profile.name}

    def restore_state(self, state: dict[str, Any]) -> None:
        source = state.get("source")
        if isinstance(source, str) and source in SOURCES:
            self._wanted_source = source  # started on the next turn of the event loop
        profile = state.get("profile")
        if isinstance(profile, str) and profile and profile != DEFAULT.name:
            self.choose_profile(profile)
            self.refresh_profiles()

    def shutdown(self) -> None:
        """The input goes (the robot stops); the window keeps the session."""
        self._closed = True
        self.timer.stop()
        if self.gamepad is not None:
            self.gamepad.stop()
            self.gamepad = None
        self.session.set_input(None)


def _scrolled(page: QWidget) -> QScrollArea:
    """The page in a scroll area: a short dock shows part of it rather than growing."""
    area = QScrollArea()
    area.setWidget(page)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    return area


def _spin(low: float, high: float, step: float) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setDecimals(2)
    return box
