"""The battery panel on the real simulated rover over real zenoh, and on bad readings."""

from __future__ import annotations

import re

from app.station.vitals import Battery, RobotVitals
from panels.battery import BatteryPanel
from tests.panels.health import ROVER, TIMEOUT_MS, PlainHost, batch_of, open_on_rover
from widgets.status_light import ALARM, OFFLINE, WARNING


def percent(panel: BatteryPanel) -> float | None:
    reading = panel.gauge.reading
    return None if reading is None else reading.percentage


def test_battery_falls_and_the_gauge_follows(make_main_window, rover_fleet, qtbot) -> None:
    _, panel = open_on_rover(make_main_window, "battery")
    assert isinstance(panel, BatteryPanel)
    qtbot.waitUntil(lambda: percent(panel) is not None, timeout=TIMEOUT_MS)
    first = percent(panel)
    qtbot.waitUntil(lambda: percent(panel) <= first - 2.0, timeout=TIMEOUT_MS)
    now = percent(panel)
    assert re.fullmatch(rf"{now:.0f} % · (OK|LOW|CRITICAL)", panel.gauge.headline())
    details = dict(panel.gauge.details())
    assert re.fullmatch(r"\d+\.\d A discharging", details["Current"])
    assert details["Status"] == "discharging" and details["Technology"] == "Li-ion"
    assert re.fullmatch(r"\d+\.\d\d V", details["Voltage"])
    assert re.fullmatch(r"(\d+ h )?\d+ min", details["Runtime left"])
    history = panel.gauge.history()
    assert len(history) >= 2 and history[-1][1] < history[0][1]  # the sparkline falls
    top, bottom, ago, end = panel.gauge.sparkline_labels()  # with its axes named
    assert (top, bottom, end) == ("100 %", "0 %", "now") and ago.startswith("−")
    assert float(ago[1:].split()[0]) > 0
    assert panel.age.text().startswith(ROVER)

    # thresholds set above the charge: the state says so in words and in colour
    panel.warning.setValue(now + 5)
    assert panel.gauge.state() == ("LOW", WARNING)
    panel.critical.setValue(now + 3)
    assert panel.gauge.state() == ("CRITICAL", ALARM)
    saved = panel.save_state()
    assert saved["warning_pct"] == round(now + 5) and saved["critical_pct"] == round(now + 3)


def test_thresholds_are_restored_and_critical_never_above_warning(qtbot, tmp_path) -> None:
    panel = BatteryPanel(PlainHost(tmp_path))  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.restore_state({"warning_pct": 40, "critical_pct": 60, "robot": "r9"})
    assert (panel.warning.value(), panel.critical.value()) == (40, 40)
    assert panel.save_state()["robot"] == "r9"
    panel.restore_state({"warning_pct": "lots", "critical_pct": float("nan")})  # ignored
    assert panel.warning.value() == 40


def test_nan_and_missing_readings_show_as_unknown(qtbot, tmp_path) -> None:
    panel = BatteryPanel(PlainHost(tmp_path))  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.show()
    panel.on_frame(batch_of(RobotVitals(ROVER)))
    assert panel.gauge.state() == ("NO DATA", OFFLINE)
    assert "no battery" in panel.age.text()
    unknown = Battery(None, None, None, None, 99, "good", "liIon", None, at=99.0)
    panel.on_frame(batch_of(RobotVitals(ROVER, battery=unknown)))
    assert panel.gauge.headline() == "UNKNOWN"
    assert dict(panel.gauge.details())["Voltage"] == "—"
    assert dict(panel.gauge.details())["Status"] == "99"  # a newer robot's status number
    panel.grab()  # paints without a number to draw
    stale = Battery(50.0, at=50.0)
    panel.on_frame(batch_of(RobotVitals(ROVER, battery=stale), now=100.0))
    assert panel.gauge.state() == ("OK (STALE)", OFFLINE)
