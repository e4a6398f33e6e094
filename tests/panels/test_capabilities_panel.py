"""The capabilities panel on the real simulated rover over real zenoh, and on bad input."""

from __future__ import annotations

import math

import pytest
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSpinBox,
)

from app.bus.config import BusConfig
from app.bus.keys import command_key
from app.codec.decode import decode, encoding_for
from app.sim.rover_controls import SENSORS, SERVICES, SETTINGS
from app.station.commands import Sent
from app.station.vitals import Capabilities, RobotVitals, Sensor, Service, Setting
from panels.capabilities import ROLE_TIP, CapabilitiesPanel
from tests.panels.health import ROVER, TIMEOUT_MS, PlainHost, batch_of, open_on_rover

SENSOR_WIDGETS = {"gauge": QProgressBar, "progress": QProgressBar, "onOff": QLabel,
                  "text": QLabel, "online": QLabel, "warningLight": QLabel,
                  "temperature": QLabel, "none": QLabel}
SETTING_EDITORS = {"string": QLineEdit, "int": QSpinBox, "number": QDoubleSpinBox,
                   "bool": QCheckBox, "enum": QComboBox}


def open_caps(make_main_window, qtbot):
    window, panel = open_on_rover(make_main_window, "capabilities")
    assert isinstance(panel, CapabilitiesPanel)
    qtbot.waitUntil(lambda: "sensor:firmware" in panel.controls
                    and bool(panel.controls["sensor:firmware"].text()), timeout=TIMEOUT_MS)
    return window, panel


def result(panel: CapabilitiesPanel, key: str) -> str:
    return panel.results[key].text()


def config_of_user(folder, user: str) -> BusConfig:
    """A station config with zenoh credentials for ``user``, as a depot's station has."""
    path = folder / f"{user}.json5"
    path.write_text(f'{{ transport: {{ auth: {{ usrpwd: {{ user: "{user}", '
                    f'password: "{user}-password" }} }} }} }}')
    return BusConfig(config_file=str(path))


def test_every_capability_of_the_rover_is_rendered_by_its_type_and_hint(
        make_main_window, rover_fleet, qtbot) -> None:
    _, panel = open_caps(make_main_window, qtbot)
    for service in SERVICES:
        control = panel.controls[f"service:{service.name}"]
        if service.type == "setBool":
            on, off = control
            assert (on.text(), off.text()) == ("On", "Off") and off.isChecked()
        else:
            assert isinstance(control, QPushButton) and control.text() == service.label
    for setting in SETTINGS:
        assert isinstance(panel.controls[f"setting:{setting.key}"],
                          SETTING_EDITORS[setting.value_type]), setting.key
    for sensor in SENSORS:
        assert isinstance(panel.controls[f"sensor:{sensor.key}"],
                          SENSOR_WIDGETS[sensor.hint]), sensor.key
    c = panel.controls
    assert (c["setting:goalToleranceCm"].minimum(), c["setting:goalToleranceCm"].maximum()) \
        == (5, 200)
    assert c["setting:goalToleranceCm"].value() == 30
    assert (c["setting:maxSpeed"].minimum(), c["setting:maxSpeed"].maximum()) == (0.1, 2.0)
    assert [c["setting:gnssCorrections"].itemText(i) for i in range(3)] == \
        ["rtk", "sbas", "none"]
    assert c["setting:displayName"].text() == "Field rover"
    assert c["setting:chargeWhenIdle"].isChecked() is False  # the fixture turned it off
    assert c["sensor:firmware"].text() == "rover-fw 2.4.1"
    assert c["sensor:lidar"].text() == "online" and c["sensor:lights"].text() == "OFF"
    assert c["sensor:tilt"].text() in ("ok", "WARNING")
    assert c["sensor:motorTemp"].text().endswith("°C")
    assert c["sensor:odometer"].text().endswith(" m")
    assert c["sensor:motorLoad"].format() == "0 %"
    # reboot needs admin; a station without credentials is an operator
    assert panel.role.text() == "Role: operator (no user name in the zenoh config)"
    assert panel.role.toolTip() == ROLE_TIP
    assert not c["service:reboot"].isEnabled()
    assert panel.reasons["service:reboot"].text() == \
        "needs the admin role (this station: operator)"


def test_a_critical_service_needs_confirm_typed_and_goes_on_its_roles_key(
        make_main_window, rover_fleet, qtbot, monkeypatch, tmp_path) -> None:
    window, panel = open_caps(make_main_window, qtbot)
    heard: list[bytes] = []
    rover_fleet.hub.declare_subscriber(command_key(ROVER, "service", min_role="admin"),
                                       lambda sample: heard.append(bytes(sample.payload)))
    # The station's config changes as on a reconnect with a depot's credentials.
    window.station.config = config_of_user(tmp_path, "bo-admin")
    qtbot.waitUntil(lambda: panel.controls["service:reboot"].isEnabled(), timeout=TIMEOUT_MS)
    assert panel.role.text() == "Role: admin (from user 'bo-admin')"
    typed = iter([("confirm", True), ("CONFIRM", True)])
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: next(typed))
    panel.controls["service:reboot"].click()
    assert result(panel, "service:reboot") == ""  # not typed right: nothing sent
    panel.controls["service:reboot"].click()
    qtbot.waitUntil(lambda: bool(heard), timeout=TIMEOUT_MS)
    command = decode(encoding_for("fleet.Command"), heard[0]).root
    assert command.which() == "service" and command.service.name == "reboot"

    window.station.config = config_of_user(tmp_path, "viewer")
    qtbot.waitUntil(lambda: not panel.controls["service:horn"].isEnabled(), timeout=TIMEOUT_MS)
    assert panel.role.text() == "Role: viewer (from user 'viewer')"
    assert panel.reasons["service:horn"].text() == \
        "needs the operator role (this station: viewer)"
    assert not panel.controls["setting:maxSpeed"].isEnabled()


def test_a_warning_service_asks_and_its_state_comes_back(
        make_main_window, rover_fleet, qtbot, monkeypatch) -> None:
    _, panel = open_caps(make_main_window, qtbot)
    answers = iter([QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes])
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: next(answers))
    on, off = panel.controls["service:lights"]
    on.click()
    assert result(panel, "service:lights") == "" and off.isChecked()  # declined
    on.click()
    # the robot's answer and its sensor report come separately: wait for both
    qtbot.waitUntil(lambda: panel.controls["sensor:lights"].text() == "ON"
                    and on.isChecked()
                    and result(panel, "service:lights") == "✓ Lights on", timeout=TIMEOUT_MS)


def test_a_setting_change_comes_back_from_the_robot(make_main_window, rover_fleet,
                                                    qtbot) -> None:
    _, panel = open_caps(make_main_window, qtbot)
    speed = panel.controls["setting:maxSpeed"]
    speed.setValue(1.2)
    panel.controls["setting:maxSpeed"].parent().findChild(QPushButton).click()
    qtbot.waitUntil(lambda: result(panel, "setting:maxSpeed") == "✓ robot reports 1.2",
                    timeout=TIMEOUT_MS)
    assert rover_fleet.robots[0].controls.settings["maxSpeed"] == pytest.approx(1.2)
    corrections = panel.controls["setting:gnssCorrections"]
    corrections.setCurrentText("sbas")
    corrections.parent().findChild(QPushButton).click()
    qtbot.waitUntil(lambda: result(panel, "setting:gnssCorrections")
                    == "✓ robot reports sbas", timeout=TIMEOUT_MS)
    name = panel.controls["setting:displayName"]
    name.setText("x" * 80)  # the rover refuses: too long
    name.parent().findChild(QPushButton).click()
    qtbot.waitUntil(lambda: "refused" in result(panel, "setting:displayName"),
                    timeout=TIMEOUT_MS)
    assert "1..64 characters" in result(panel, "setting:displayName")


class _Commands:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str, str]] = []

    def send(self, robot_id: str, member: str, what: str, fill, min_role) -> Sent:
        self.sent.append((robot_id, member, what))
        return Sent(robot_id, 7, what, 0.0)  # sent long ago, never answered


class _Station:
    commands = _Commands()
    config = BusConfig()


BAD = Capabilities(
    services=(Service("warp", "Warp", 9, "normal", "viewer", "", False),
              Service("odd", "Odd", "trigger", 5, "operator", "", False),
              Service("future", "Future", "trigger", "normal", 7, "", False)),
    sensors=(Sensor("s1", "Weird", 42, 3.5, "V", None, None),
             Sensor("s2", "Load", "gauge", math.nan, "%", 0.0, 100.0),
             Sensor("s3", "Heat", "temperature", 119.0, "°C", -20.0, 120.0)),
    settings=(Setting("k1", "Mystery", 17, "blob", (), None, None, "viewer", ""),
              Setting("k2", "Tolerance", "int", 500, (), 5.0, 200.0, "viewer", ""),
              Setting("k3", "Mode", "enum", "x", (), None, None, "viewer", ""),
              Setting("k4", "Gain", "number", math.nan, (), 0.0, 1.0, "viewer", "")),
    at=1.0)


def test_bad_capabilities_are_shown_sensibly(qtbot, tmp_path, monkeypatch) -> None:
    host = PlainHost(tmp_path)
    host.station = _Station()  # type: ignore[assignment]
    panel = CapabilitiesPanel(host)  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.show()
    panel.on_frame(batch_of(RobotVitals(ROVER, capabilities=BAD, version=1), now=10.0))
    c = panel.controls
    assert c["service:warp"].text() == "unsupported control type 9"
    assert c["sensor:s1"].text() == "3.5 V (display hint 42 unknown)"
    assert c["sensor:s2"].format() == "unknown"
    assert c["sensor:s3"].text() == "119.0 °C HOT"
    assert c["setting:k1"].text() == "unsupported value type 17: blob"
    assert c["setting:k2"].value() == 200  # clamped, and the note says so
    assert c["note:k2"].text() == "the robot reports 500, outside its range 5..200"
    assert not c["setting:k3"].isEnabled() and c["note:k3"].text() == \
        "the robot offers no options"
    assert c["note:k4"].text() == "the robot reports nan (unknown)"
    assert not c["service:future"].isEnabled()
    assert panel.reasons["service:future"].text() == "needs role 7, unknown to this station"
    # an unknown danger level asks for CONFIRM like a critical one
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("CONFIRM", True))
    c["service:odd"].click()
    assert host.station.commands.sent == [(ROVER, "service", "Odd")]
    panel.on_frame(batch_of(RobotVitals(ROVER, capabilities=BAD, version=1), now=10.0))
    assert result(panel, "service:odd") == "no answer in 5 s"
