"""Teleop panel: shows and edits how the window drives the active robot.

It shows whether commands move the robot (the arming state, big, with its reason), the
input live with the profile's dead zones, what is sent (and lets the operator set the hand's
fingers), the command clock, the link and the speed scale. The devices and the session are
the window's (``host.operator``, ``host.teleop()``), so closing or hiding this panel changes
nothing about driving: here the operator picks the input (automatic: a plugged pad, else
the keyboard; the keyboard's keys reach the drive view while it has focus; the on-screen
stick with a hold-to-drive button) and the profile. Profiles come from the config dir; a
minimal editor changes dead zone, expo and limits, never beyond the profile's caps.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFocusEvent, QFont, QKeyEvent, QKeySequence, QMouseEvent
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
from app.qt.panel_api import SOURCES, Operator, PanelHost, arming_banner
from app.station.frame import FrameBatch
from app.teleop.arming import Arming
from app.teleop.profiles import (
    AXES,
    DEADZONE_MAX,
    DEFAULT,
    FINGERS,
    LIMITS_MAX,
    Profile,
    ProfileError,
    list_profiles,
    save_profile,
    within_caps,
)
from panels.base import PanelBase
from panels.ros_velocity_input import RosVelocityInputBox
from widgets.status_light import ALARM, WARNING
from widgets.stick_preview import SignedBar, StickPreview, TriggerPreview
from widgets.virtual_stick import VirtualStick

if TYPE_CHECKING:
    from app.inputs.gamepad import Gamepad
    from app.teleop.session import TeleopSession

SHOW_PERIOD_S = 0.066  # labels refresh at ~15 Hz, not every frame
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

    def __init__(self, operator: Operator) -> None:
        super().__init__()
        self.operator = operator
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    @property
    def takes_keys(self) -> bool:
        return self.operator.driving_source() == "keyboard"

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self.takes_keys and self.operator.keyboard.handles(key_name(event)):
            if not event.isAutoRepeat():
                self.operator.press_key(key_name(event))
            event.accept()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if self.takes_keys and self.operator.keyboard.handles(key_name(event)):
            if not event.isAutoRepeat():
                self.operator.release_key(key_name(event))
            event.accept()
            return
        super().keyReleaseEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """A click gives the keyboard to the drive view, also when the chosen pad is not
        there."""
        if self.operator.source == "gamepad" and not self.operator.pads():
            self.operator.set_source("auto")
        super().mousePressEvent(event)

    def focusInEvent(self, event: QFocusEvent) -> None:
        self.operator.set_keyboard_focus(True)
        self.update()
        super().focusInEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self.operator.set_keyboard_focus(False)
        self.update()
        super().focusOutEvent(event)


class TeleopPanel(PanelBase):
    panel_id = "teleop"
    title = "Teleop"

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self.session: TeleopSession = host.teleop()
        self.operator: Operator = host.operator
        self._shown_at = 0.0
        self._shown_source = ""

        self.state_label = QLabel("DISARMED")
        font = QFont(self.state_label.font())
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.state_label.setFont(font)
        self.state_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.state_label.setWordWrap(True)  # a narrow dock shows all of why, not its middle
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
        self.ros_input = RosVelocityInputBox(host)
        top = QHBoxLayout()
        top.addWidget(QLabel("Input"))
        top.addWidget(self.source_box)
        top.addWidget(QLabel("Profile"))
        top.addWidget(self.profile_box)
        top.addWidget(self.ros_input)
        top.addWidget(self.input_label, 1)

        self.tabs = QTabWidget()
        self.tabs.addTab(_scrolled(self._build_drive()), "Drive")
        self.editor = self._build_profile_editor()
        self.tabs.addTab(_scrolled(self.editor), "Profile")
        self.tabs.addTab(self._build_calibration(), "Calibration")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.state_label)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)

        self.refresh_profiles()
        self._show_profile()
        self._show_source()
        self.operator.changed.connect(self._operator_changed)

    # -- building --------------------------------------------------------------------------
    def _build_drive(self) -> QWidget:
        self.drive = DriveView(self.operator)
        self.previews = {"left": StickPreview("left"), "right": StickPreview("right")}
        self.triggers = {"lefttrigger": TriggerPreview("LT"),
                         "righttrigger": TriggerPreview("RT")}
        self.stick = VirtualStick()
        self.stick.moved.connect(self.operator.set_stick)
        self.deadman_button = QPushButton("Hold to drive")
        self.deadman_button.setMinimumHeight(36)
        self.deadman_button.pressed.connect(lambda: self.operator.set_stick_deadman(True))
        self.deadman_button.released.connect(lambda: self.operator.set_stick_deadman(False))
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
        self.hand_note = QLabel()
        self.hand_note.setWordWrap(True)
        self.hand_note.setStyleSheet(f"color:{WARNING};")
        self.hand_note.hide()
        outputs.addWidget(self.hand_note, len(STICK_OUTPUTS) + 1 + len(FINGERS), 0, 1, 2)
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
        self.dead_zone_box = _spin(0.0, DEADZONE_MAX, 0.01)
        self.expo_box = _spin(0.0, 1.0, 0.05)
        form.addRow("Stick dead zone", self.dead_zone_box)
        form.addRow("Expo", self.expo_box)
        self.limit_boxes: dict[str, QDoubleSpinBox] = {}
        for name, unit in LIMIT_FIELDS:
            box = _spin(0.0, LIMITS_MAX[name], 0.05)  # never past what the loader accepts
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
    @property
    def source(self) -> str:
        return self.operator.source

    @property
    def gamepad(self) -> Gamepad | None:
        return self.operator.gamepad

    @property
    def keyboard(self) -> KeyboardInput:
        return self.operator.keyboard

    @property
    def profile(self) -> Profile:
        return self.operator.profile

    def set_source(self, source: str) -> None:
        self.operator.set_source(source)
        if self.operator.driving_source() == "keyboard":
            self.drive.setFocus()

    def _operator_changed(self) -> None:
        self._show_source()
        if self.profile_box.currentText() != self.profile.name:
            self.refresh_profiles()
        self._show_profile()

    def _show_source(self) -> None:
        """The source box and the controls of the device that drives."""
        source, driving = self.operator.source, self.operator.driving_source()
        self.source_box.setCurrentIndex(list(SOURCES).index(source))
        self.keys_hint.setVisible(driving == "keyboard")
        self.stick.setVisible(driving == "stick")
        self.deadman_button.setVisible(driving == "stick")
        if driving != "stick":
            self.stick.release()
        self._shown_source = driving

    def _finger_changed(self) -> None:
        self.session.controller.set_hand(tuple(float(s.value()) for s in self.fingers))

    def reset_ranges(self) -> None:
        self.operator.reset_ranges()

    def ranges(self) -> dict[str, tuple[float, float]]:
        return self.operator.ranges()

    # -- profiles ------------------------------------------------------------------------------
    def refresh_profiles(self) -> None:
        self.profile_box.clear()
        self.profile_box.addItems(list_profiles(self.host.config_dir))
        self.profile_box.setCurrentText(self.profile.name)

    def choose_profile(self, name: str) -> None:
        reason = self.operator.choose_profile(name)
        self.profile_reason.setText(reason)
        if reason:
            self.host.show_message(reason)

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
        self.operator.use_profile(within_caps(dataclasses.replace(
            profile, axes=axes, limits=dataclasses.replace(profile.limits, normal=normal))))

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
        self.operator.use_profile(dataclasses.replace(self.profile, name=name))
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
        # The safety bar's words: a keyboard waiting for a click is named as such, not as
        # an unplugged controller.
        shown = arming_banner(teleop.state, teleop.robot, teleop.reason, "", teleop.device)
        self.state_label.setText(shown.text)
        self.state_label.setToolTip(shown.tooltip)
        self.state_label.setStyleSheet(
            f"color:#111;background:{shown.colour};border-radius:4px;padding:4px;")
        reading = self.operator.latest()
        if self.operator.driving_source() != self._shown_source:
            self._show_source()  # a pad plugged or pulled while the source is automatic
        axes = reading.axes if reading is not None else {}
        self.previews["left"].set_value(axes.get("leftx", 0.0), axes.get("lefty", 0.0))
        self.previews["right"].set_value(axes.get("rightx", 0.0), axes.get("righty", 0.0))
        for trigger, preview in self.triggers.items():
            preview.set_value(axes.get(trigger, 0.0))
        self.input_label.setText(self._input_text(teleop.device))
        # Limits change only while nothing moves: never under the operator's hands.
        self.ros_input.show_robot(teleop.robot or None, teleop.state is Arming.ARMED)
        self.editor.setEnabled(teleop.state is not Arming.ARMED)
        self.editor.setToolTip("Release the deadman to edit the profile"
                               if teleop.state is Arming.ARMED else "")
        self.hand_note.setText(teleop.hand_note)
        self.hand_note.setVisible(bool(teleop.hand_note))
        self._show_outputs(status)
        self._show_stats(status)
        self._show_ranges(axes)

    def _input_text(self, device: str) -> str:
        driving = self.operator.driving_source()
        if self.operator.gamepad_error and self.operator.source == "gamepad":
            return self.operator.gamepad_error
        if driving == "gamepad":
            return device or "no gamepad plugged"
        if driving == "keyboard":
            return "keys reach the drive view" if self.drive.hasFocus() \
                else "click the drive view to use the keyboard"
        return "on-screen stick"

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
        robot = status.link.selected
        self.stats["scale"].setText("— (no robot)" if not robot else
                                    f"{teleop.scale * 100:.0f} %"
                                    + (f" ({teleop.scale_reason})" if teleop.scale_reason
                                       else "") + (" turbo" if teleop.turbo else ""))
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
        """The profile; the input is the window's choice, kept across layouts."""
        return {"profile": self.profile.name}

    def restore_state(self, state: dict[str, Any]) -> None:
        profile = state.get("profile")
        if isinstance(profile, str) and profile and profile != DEFAULT.name:
            self.choose_profile(profile)
            self.refresh_profiles()

    def shutdown(self) -> None:
        """The window keeps the devices and the session: driving goes on without the
        panel."""
        self.operator.changed.disconnect(self._operator_changed)


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
