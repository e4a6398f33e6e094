"""The status tiles on the real simulated rover over real zenoh."""

from __future__ import annotations

import re

from app.bus.keys import command_key
from app.bus.publisher import Publisher, Traffic
from app.codec.registry import registry
from app.station.commands import next_seq
from app.station.vitals import Battery, Gnss, RobotVitals, Status
from panels.status import StatusPanel
from tests.panels.health import ROVER, TIMEOUT_MS, PlainHost, batch_of, open_on_rover
from widgets.status_light import ALARM


def test_tiles_show_the_rover_and_its_e_stop(make_main_window, rover_fleet, open_session,
                                             free_endpoint, qtbot) -> None:
    _, panel = open_on_rover(make_main_window, "status")
    assert isinstance(panel, StatusPanel)
    qtbot.waitUntil(lambda: panel.text("GPS fix").startswith("fixedRtk")
                    and panel.text("Mode").startswith("IDLE"), timeout=TIMEOUT_MS)
    assert panel.text("E-stop") == "released"
    assert panel.text("GPS fix") == "fixedRtk source: simulated"
    assert re.fullmatch(r"0:\d\d", panel.text("Uptime"))
    assert re.fullmatch(r"-?\d+ ms incl. clock offset", panel.text("Link latency"))
    assert re.fullmatch(r"\d\.\d s live", panel.text("Data age"))
    assert panel.text("Last command") == "none"

    robot = open_session(mode="client", connect=[free_endpoint], must_connect=True)
    estop = Publisher(robot, command_key(ROVER, "estop"), "fleet.Command", Traffic.ESTOP)
    command = registry().struct("fleet.Command").new_message(robotId=ROVER, seq=41)
    command.init("estop").engage, command.estop.reason = True, "bumper hit"
    payload = command.to_bytes()
    qtbot.waitUntil(lambda: (estop.put(payload), panel.text("E-stop"))[1]
                    == "ENGAGED bumper hit", timeout=TIMEOUT_MS)
    assert panel.tiles["E-stop"].colour == ALARM
    qtbot.waitUntil(lambda: panel.text("Last command") == "command acknowledged",
                    timeout=TIMEOUT_MS)  # another client's seq: not a time, not ours
    assert "41" in panel.tiles["Last command"].toolTip()


def test_unknown_and_missing_values_show_sensibly(qtbot, tmp_path) -> None:
    panel = StatusPanel(PlainHost(tmp_path))  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.show()
    panel.on_frame(batch_of(RobotVitals(ROVER)))
    assert panel.text("Mode") == "— no status yet" and panel.text("Data age") == "— no data"
    vitals = RobotVitals(ROVER, status=Status(9, False, "", None, 0, None, 95.0),
                         gnss=Gnss(12, 7, 95.0), last_at=80.0, version=1)
    panel.on_frame(batch_of(vitals, now=100.0))
    assert panel.text("Mode") == "mode 9 5.0 s ago"
    assert panel.text("GPS fix") == "fix 12 source: 7" and panel.tiles["GPS fix"].colour == ALARM
    assert panel.text("Uptime") == "—"
    assert panel.text("Data age") == "20 s LOST"


def test_the_last_command_says_what_it_was_and_when_not_its_id(qtbot, tmp_path) -> None:
    panel = StatusPanel(PlainHost(tmp_path))  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.show()
    seq = next_seq("e-stop")
    panel.on_frame(batch_of(RobotVitals(ROVER, status=Status("idle", False, "", 10.0, seq,
                                                              None, 95.0), version=1)))
    assert re.fullmatch(r"e-stop acknowledged · sent \d\.\d s ago", panel.text("Last command"))
    assert str(seq) not in panel.text("Last command")
    assert str(seq) in panel.tiles["Last command"].toolTip()


def test_the_battery_tile_shows_the_charge_and_its_state(qtbot, tmp_path) -> None:
    panel = StatusPanel(PlainHost(tmp_path))  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.show()
    panel.on_frame(batch_of(RobotVitals(ROVER)))
    assert panel.text("Battery") == "— no battery reported"
    panel.on_frame(batch_of(RobotVitals(ROVER, battery=Battery(12.4, status="discharging"),
                                        version=1)))
    assert panel.text("Battery") == "12 % CRITICAL · discharging"
    assert panel.tiles["Battery"].colour == ALARM
