"""Battery panel: the chosen robot's battery as a gauge with thresholds the operator sets
(saved with the layout), its readings, its state in words and a sparkline."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QVBoxLayout

from app.qt.panel_api import PanelHost
from app.render_text import human_age
from app.station.frame import FrameBatch
from app.station.vitals import Battery
from panels.base import PanelBase
from panels.robot_picker import RobotPicker, no_robot_text
from widgets.battery_gauge import CRITICAL_PCT, WARNING_PCT, BatteryGauge, BatteryReading

STALE_S = 10.0  # a battery silent this long is shown as stale


class BatteryPanel(PanelBase):
    panel_id = "battery"
    title = "Battery"

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self.picker = RobotPicker()
        self.gauge = BatteryGauge()
        self.age = QLabel("—")
        self.warning = _percent_box(WARNING_PCT)
        self.critical = _percent_box(CRITICAL_PCT)
        self.warning.valueChanged.connect(self._thresholds_changed)
        self.critical.valueChanged.connect(self._thresholds_changed)
        top = QHBoxLayout()
        top.addWidget(self.picker)
        top.addStretch(1)
        top.addWidget(self.age)
        limits = QHBoxLayout()
        limits.addWidget(QLabel("Warning at"))
        limits.addWidget(self.warning)
        limits.addWidget(QLabel("Critical at"))
        limits.addWidget(self.critical)
        limits.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.gauge, 1)
        layout.addLayout(limits)
        self._robot: str | None = None
        self._shown_at = -1.0
        self._thresholds_changed()

    def on_frame(self, batch: FrameBatch) -> None:
        robot_id, vitals = self.picker.vitals(batch)
        if robot_id != self._robot:
            self._robot, self._shown_at = robot_id, -1.0
            self.gauge.clear_history()
        battery = vitals.battery if vitals else None
        if battery is None:
            self.gauge.set_reading(None)
            self.age.setText(no_robot_text(robot_id, "battery"))
            return
        age = batch.now - battery.at
        self.age.setText(f"{robot_id} · {human_age(age)} ago")
        if battery.at != self._shown_at:
            self._shown_at = battery.at
            self.gauge.add_history(battery.at, battery.percentage)
            self.gauge.set_reading(reading_of(battery), stale=age > STALE_S)
        elif age > STALE_S and not self.gauge.stale:
            self.gauge.set_reading(self.gauge.reading, stale=True)

    def _thresholds_changed(self) -> None:
        if self.critical.value() > self.warning.value():
            self.critical.setValue(self.warning.value())
        self.gauge.set_thresholds(self.warning.value(), self.critical.value())

    def save_state(self) -> dict[str, Any]:
        return {"warning_pct": self.warning.value(), "critical_pct": self.critical.value(),
                **self.picker.save()}

    def restore_state(self, state: dict[str, Any]) -> None:
        for box, key in ((self.warning, "warning_pct"), (self.critical, "critical_pct")):
            value = state.get(key)
            if isinstance(value, int | float) and math.isfinite(value):
                box.setValue(float(value))
        self.picker.restore(state)
        self._thresholds_changed()


# fleet.capnp's PowerSupplyTechnology, as a battery's label says it
TECHNOLOGY_NAMES = {"unknown": "unknown", "niMH": "NiMH", "liIon": "Li-ion", "liPo": "LiPo",
                    "liFe": "LiFePO₄", "niCd": "NiCd", "liMn": "LiMn"}


def reading_of(battery: Battery) -> BatteryReading:
    technology = str(battery.technology)
    return BatteryReading(battery.percentage, battery.voltage_v, battery.current_a,
                          battery.temperature_c, str(battery.status), str(battery.health),
                          TECHNOLOGY_NAMES.get(technology, technology), battery.runtime_s)


def _percent_box(value: float) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(0.0, 100.0)
    box.setDecimals(0)
    box.setSuffix(" %")
    box.setValue(value)
    return box
