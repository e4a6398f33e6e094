"""Capabilities panel: controls generated from the robot's UiCapabilities — services as
buttons, settings as editors by value type, sensors by display hint — with each control's
danger level and minimum role respected, and each call's answer shown beside it. The
station's role is shown, never chosen: its zenoh user name names it and the router's access
control enforces it (app.station.role)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.bus.config import BusConfig
from app.qt.panel_api import PanelHost
from app.station.commands import CommandError, Sent, fill_value, outcome
from app.station.frame import FrameBatch
from app.station.role import DEFAULT_ROLE, refusal, role_of
from app.station.vitals import Capabilities, Enum, RobotVitals, Sensor, Service, Setting
from panels.base import PanelBase
from panels.robot_picker import RobotPicker, no_robot_text
from widgets.status_light import ALARM, OFFLINE, ONLINE, WARNING

INT32 = (-2**31, 2**31 - 1)
CONFIRM_WORD = "CONFIRM"
RESULT_COLOURS = {"done": ONLINE, "answered": WARNING, "timeout": ALARM, "waiting": OFFLINE}
HOT_FRACTION = 0.85  # a temperature this far up its range is shown hot
ROLE_TIP = ("Granted to this station's zenoh user name by the router's access control, "
            "which drops whatever the role does not allow: it cannot be changed here. "
            "Controls that need a higher role are disabled.")


@dataclass
class Call:
    sent: Sent
    expect: tuple[str, Any] | None = None  # (setting key, value) the robot should report


class CapabilitiesPanel(PanelBase):
    panel_id = "capabilities"
    title = "Capabilities"

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self.picker = RobotPicker()
        self.role = QLabel()
        self.role.setToolTip(ROLE_TIP)
        self._role = DEFAULT_ROLE
        self._role_config: BusConfig | None = None  # the station config it was read from
        self.role.setWordWrap(True)  # a narrow dock: wrapped, never drawn over the hint
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.body = QWidget()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.body)
        top = QHBoxLayout()
        top.addWidget(self.picker)
        top.addWidget(self.role, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.hint)
        layout.addWidget(scroll, 1)
        self.controls: dict[str, Any] = {}  # "service:horn", "setting:maxSpeed", "sensor:x"
        self.results: dict[str, QLabel] = {}
        self.reasons: dict[str, QLabel] = {}
        self._calls: dict[str, Call] = {}
        self._robot: str | None = None
        self._vitals: RobotVitals | None = None
        self._shape: tuple[Any, ...] | None = None
        self._caps_at = -1.0
        self._robot_values: dict[str, Any] = {}
        self._show_role()

    # -- ticks ------------------------------------------------------------------------------
    def on_frame(self, batch: FrameBatch) -> None:
        self._show_role()
        robot_id, vitals = self.picker.vitals(batch)
        self._robot, self._vitals = robot_id, vitals
        caps = vitals.capabilities if vitals else None
        if caps is None:
            self.hint.setText(no_robot_text(robot_id, "capabilities"))
            if self._shape is not None:
                self._build(None)
            return
        self.hint.setText("")
        shape = (robot_id, _shape(caps), self._role)
        if shape != self._shape:
            self._shape = shape
            self._build(caps)
        if caps.at != self._caps_at:
            self._caps_at = caps.at
            self._show_values(caps)
        self._show_results(batch.now)

    def _show_role(self) -> None:
        """Reads the role again when the station has a new config (a reconnect)."""
        config = self.host.station.config
        if config is self._role_config:
            return
        self._role_config = config
        self._role, source = role_of(config)
        self.role.setText(f"Role: {self._role} ({source})")

    # -- building the controls once per shape ------------------------------------------------
    def _build(self, caps: Capabilities | None) -> None:
        old = self.body.layout()
        if old is not None:
            QWidget().setLayout(old)  # re-parents the old layout and its widgets to go
        self.controls, self.results, self.reasons = {}, {}, {}
        self._robot_values, self._caps_at = {}, -1.0
        layout = QVBoxLayout(self.body)
        if caps is None:
            self._shape = None
            layout.addStretch(1)
            return
        groups = (("Services", [(s.label or s.name, self._service_row(s))
                                for s in caps.services]),
                  ("Settings", [(s.label or s.key, self._setting_row(s)) for s in caps.settings]),
                  ("Sensors", [(s.label or s.key, self._sensor_row(s)) for s in caps.sensors]))
        for title, rows in groups:
            if not rows:
                continue
            box = QGroupBox(title)
            form = QFormLayout(box)
            for label, row in rows:
                form.addRow(label, row)
            layout.addWidget(box)
        layout.addStretch(1)

    def _row(self, key: str, *widgets: QWidget, min_role: Enum | None = None) -> QWidget:
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        for widget in widgets:
            line.addWidget(widget)
        why = refusal(self._role, min_role) if min_role is not None else ""
        if why:
            for widget in widgets:
                widget.setEnabled(False)
                widget.setToolTip(why)
            reason = QLabel(why)
            reason.setStyleSheet(f"color:{OFFLINE};")
            line.addWidget(reason)
            self.reasons[key] = reason
        result = QLabel()
        line.addWidget(result, 1)
        self.results[key] = result
        return row

    def _service_row(self, service: Service) -> QWidget:
        key = f"service:{service.name}"
        tip = service.description
        if service.type == "trigger":
            button = _button(service.label or service.name, service.danger, tip)
            button.clicked.connect(lambda: self._call_service(service, None))
            self.controls[key] = button
            return self._row(key, button, min_role=service.min_role)
        if service.type == "setBool":
            on, off = _button("On", service.danger, tip), _button("Off", service.danger, tip)
            for button, state in ((on, True), (off, False)):
                button.setCheckable(True)
                button.clicked.connect(lambda _=False, s=state: self._call_service(service, s))
            self.controls[key] = (on, off)
            return self._row(key, on, off, min_role=service.min_role)
        if service.type == "missionType":
            label = QLabel("a mission type this robot can run")
            self.controls[key] = label
            return self._row(key, label)
        label = QLabel(f"unsupported control type {service.type}")
        label.setStyleSheet(f"color:{WARNING};")
        self.controls[key] = label
        return self._row(key, label)

    def _setting_row(self, setting: Setting) -> QWidget:
        key = f"setting:{setting.key}"
        editor = _editor(setting)
        if editor is None:
            label = QLabel(f"unsupported value type {setting.value_type}: "
                           f"{_text(setting.value)}")
            label.setStyleSheet(f"color:{WARNING};")
            self.controls[key] = label
            return self._row(key, label)
        editor.setToolTip(setting.description)
        apply = QPushButton("Set")
        apply.clicked.connect(lambda: self._call_setting(setting))
        self.controls[key] = editor
        note = QLabel()
        note.setStyleSheet(f"color:{WARNING};")
        self.controls[f"note:{setting.key}"] = note
        row = self._row(key, editor, apply, note, min_role=setting.min_role)
        if setting.value_type == "enum" and not setting.options:
            editor.setEnabled(False)
            apply.setEnabled(False)
        return row

    def _sensor_row(self, sensor: Sensor) -> QWidget:
        key = f"sensor:{sensor.key}"
        if sensor.hint in ("gauge", "progress"):
            widget: QWidget = QProgressBar()
        else:
            widget = QLabel()
        self.controls[key] = widget
        return self._row(key, widget)

    # -- values, on every new capabilities message ------------------------------------------
    def _show_values(self, caps: Capabilities) -> None:
        for service in caps.services:
            pair = self.controls.get(f"service:{service.name}")
            if service.type == "setBool" and isinstance(pair, tuple):
                pair[0].setChecked(service.state)
                pair[1].setChecked(not service.state)
        for setting in caps.settings:
            self._show_setting(setting)
        for sensor in caps.sensors:
            widget = self.controls.get(f"sensor:{sensor.key}")
            if widget is not None:
                _show_sensor(widget, sensor)

    def _show_setting(self, setting: Setting) -> None:
        editor = self.controls.get(f"setting:{setting.key}")
        note = self.controls.get(f"note:{setting.key}")
        if note is None or editor is None:
            return
        note.setText(_setting_problem(setting))
        if self._robot_values.get(setting.key, _UNSET) == setting.value or editor.hasFocus():
            return  # the operator may be editing: only a change on the robot overrides
        self._robot_values[setting.key] = setting.value
        _set_editor(editor, setting)

    def _show_results(self, now: float) -> None:
        for key, call in self._calls.items():
            label = self.results.get(key)
            if label is None or call.sent.robot_id != self._robot:
                continue
            result = outcome(call.sent, self._vitals, now)
            text, state = result.text, result.state
            caps = self._vitals.capabilities if self._vitals else None
            if call.expect is not None and caps is not None and caps.at >= call.sent.sent_at:
                setting = next((s for s in caps.settings if s.key == call.expect[0]), None)
                if setting is not None and setting.value == call.expect[1] and \
                        state in ("done", "waiting"):
                    text, state = f"robot reports {_text(setting.value)}", "done"
            label.setText(("✓ " if state == "done" else "") + text)
            label.setStyleSheet(f"color:{RESULT_COLOURS[state]};")

    # -- calls ------------------------------------------------------------------------------
    def _call_service(self, service: Service, state: bool | None) -> None:
        what = service.label or service.name
        if state is not None:
            what += " on" if state else " off"
        pair = self.controls.get(f"service:{service.name}")
        if isinstance(pair, tuple) and self._caps_at >= 0:  # show the robot's state again
            pair[0].setChecked(service.state)
            pair[1].setChecked(not service.state)
        if not self.confirm(what, service.danger, service.description):
            return

        def fill(call: Any) -> None:
            call.name = service.name
            if state is None:
                call.trigger = None
            else:
                call.setBool = state

        self._send(f"service:{service.name}", "service", what, fill, service.min_role)

    def _call_setting(self, setting: Setting) -> None:
        editor = self.controls[f"setting:{setting.key}"]
        value = _editor_value(editor, setting)
        kind = str(setting.value_type)

        def fill(update: Any) -> None:
            update.key = setting.key
            fill_value(update.value, kind, value)

        self._send(f"setting:{setting.key}", "setting",
                   f"{setting.label or setting.key} = {_text(value)}", fill,
                   setting.min_role, expect=(setting.key, value))

    def _send(self, key: str, member: str, what: str, fill: Callable[[Any], None],
              min_role: Enum, expect: tuple[str, Any] | None = None) -> None:
        result = self.results[key]
        robot = self._robot
        try:
            if robot is None:
                raise CommandError("no robot chosen")
            sent = self.host.station.commands.send(robot, member, what, fill, min_role)
        except CommandError as exc:
            self._calls.pop(key, None)
            result.setText(f"not sent: {exc}")
            result.setStyleSheet(f"color:{ALARM};")
            return
        self._calls[key] = Call(sent, expect)
        result.setText("sent…")
        result.setStyleSheet(f"color:{OFFLINE};")

    def confirm(self, what: str, danger: Enum, description: str) -> bool:
        """Normal: no question. Warning: a yes/no question. Critical, or a danger level this
        station does not know: the operator types CONFIRM."""
        if danger == "normal":
            return True
        detail = f"\n\n{description}" if description else ""
        if danger == "warning":
            answer = QMessageBox.question(self, "Confirm", f"{what}?{detail}")
            return answer == QMessageBox.StandardButton.Yes
        text, ok = QInputDialog.getText(
            self, "Confirm a critical action",
            f"{what}{detail}\n\nType {CONFIRM_WORD} to go ahead:")
        return bool(ok) and text.strip() == CONFIRM_WORD

    def save_state(self) -> dict[str, Any]:
        return self.picker.save()

    def restore_state(self, state: dict[str, Any]) -> None:
        self.picker.restore(state)


_UNSET = object()


def _shape(caps: Capabilities) -> tuple[Any, ...]:
    """What the controls are built from (values excluded: they change in place)."""
    return (tuple((s.name, s.label, s.type, s.danger, s.min_role) for s in caps.services),
            tuple((s.key, s.label, s.value_type, s.options, s.min, s.max, s.min_role)
                  for s in caps.settings),
            tuple((s.key, s.label, s.hint, s.unit) for s in caps.sensors))


def _button(text: str, danger: Enum, tooltip: str) -> QPushButton:
    button = QPushButton(text)
    button.setToolTip(tooltip)
    if danger == "warning":
        button.setStyleSheet(f"QPushButton{{border:1px solid {WARNING};color:{WARNING};"
                             "padding:3px 10px;}")
    elif danger != "normal":
        button.setStyleSheet(f"QPushButton{{border:1px solid {ALARM};color:{ALARM};"
                             "font-weight:bold;padding:3px 10px;}")
    return button


def _range(setting: Setting, low: float, high: float) -> tuple[float, float]:
    lo = setting.min if setting.min is not None else low
    hi = setting.max if setting.max is not None else high
    if lo >= hi:  # no range given (0..0) or an inverted one: the type's own
        return low, high
    return max(lo, low), min(hi, high)


def _editor(setting: Setting) -> QWidget | None:
    kind = setting.value_type
    if kind == "string":
        return QLineEdit()
    if kind == "int":
        spin = QSpinBox()
        lo, hi = _range(setting, *INT32)
        spin.setRange(math.ceil(lo), math.floor(hi))
        return spin
    if kind == "number":
        box = QDoubleSpinBox()
        box.setDecimals(3)
        box.setRange(*_range(setting, -1e12, 1e12))
        return box
    if kind == "bool":
        return QCheckBox()
    if kind == "enum":
        combo = QComboBox()
        combo.addItems(list(setting.options))
        return combo
    return None


def _set_editor(editor: QWidget, setting: Setting) -> None:
    value = setting.value
    if isinstance(editor, QLineEdit):
        editor.setText(_text(value))
    elif isinstance(editor, QSpinBox) and isinstance(value, int | float) \
            and math.isfinite(value):
        editor.setValue(int(value))  # clamped to the range; the note says it was outside
    elif isinstance(editor, QDoubleSpinBox) and isinstance(value, int | float) \
            and math.isfinite(value):
        editor.setValue(float(value))
    elif isinstance(editor, QCheckBox):
        editor.setChecked(bool(value))
    elif isinstance(editor, QComboBox) and value in setting.options:
        editor.setCurrentText(str(value))


def _editor_value(editor: QWidget, setting: Setting) -> Any:
    if isinstance(editor, QLineEdit):
        return editor.text()
    if isinstance(editor, QSpinBox):
        return editor.value()
    if isinstance(editor, QDoubleSpinBox):
        return editor.value()
    if isinstance(editor, QCheckBox):
        return editor.isChecked()
    if isinstance(editor, QComboBox):
        return editor.currentText()
    return setting.value


def _setting_problem(setting: Setting) -> str:
    """What is wrong with what the robot reports (shown, never fatal)."""
    value, kind = setting.value, setting.value_type
    if value is None:
        return "the robot reports no value"
    if kind in ("int", "number"):
        if not isinstance(value, int | float) or isinstance(value, bool):
            return f"the robot reports {_text(value)}, not a number"
        if not math.isfinite(value):
            return f"the robot reports {value} (unknown)"
        lo, hi = setting.min, setting.max
        if lo is not None and hi is not None and lo < hi and not lo <= value <= hi:
            return f"the robot reports {value:g}, outside its range {lo:g}..{hi:g}"
    if kind == "enum" and not setting.options:
        return "the robot offers no options"
    if kind == "enum" and value not in setting.options:
        return f"the robot reports {value!r}, not one of its options"
    return ""


def _text(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return "—" if not math.isfinite(value) else f"{value:g}"
    return str(value)


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _show_sensor(widget: QWidget, sensor: Sensor) -> None:
    value, unit, hint = sensor.value, sensor.unit, sensor.hint
    unit_text = f" {unit}" if unit else ""
    if isinstance(widget, QProgressBar):
        number = _number(value)
        lo, hi = sensor.min, sensor.max
        if lo is None or hi is None or lo >= hi:
            lo, hi = 0.0, 100.0
        widget.setRange(0, 1000)
        if number is None:
            widget.setValue(0)
            widget.setFormat("unknown")
        else:
            widget.setValue(round(1000 * min(1.0, max(0.0, (number - lo) / (hi - lo)))))
            widget.setFormat(f"{number:g}{unit_text}")
        return
    assert isinstance(widget, QLabel)
    colour = ""
    if hint == "onOff":
        text = "ON" if value else "OFF"
        colour = ONLINE if value else OFFLINE
    elif hint == "warningLight":
        text, colour = ("WARNING", ALARM) if value else ("ok", ONLINE)
    elif hint == "online":
        text, colour = ("online", ONLINE) if value else ("OFFLINE", ALARM)
    elif hint == "temperature":
        number = _number(value)
        text = "unknown" if number is None else f"{number:.1f}{unit_text}"
        if number is not None and sensor.max is not None and sensor.min is not None \
                and sensor.min < sensor.max:
            hot = (number - sensor.min) / (sensor.max - sensor.min) >= HOT_FRACTION
            colour = ALARM if hot else ""
            text += " HOT" if hot else ""
    elif hint in ("text", "none"):
        text = _text(value) + (unit_text if value is not None else "")
    else:
        text = f"{_text(value)}{unit_text} (display hint {hint} unknown)"
    widget.setText(text)
    widget.setStyleSheet(f"color:{colour};" if colour else "")
