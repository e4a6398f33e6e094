"""The faults panel on the real simulated rover over real zenoh, and on plain vitals."""

from __future__ import annotations

import dataclasses
import time

from app.station.robots import RobotInfo, StationStatus
from app.station.vitals import Fault, Message, RobotVitals
from panels.faults import FaultsPanel
from tests.panels.health import (
    ROVER,
    TIMEOUT_MS,
    PlainHost,
    RobotVoice,
    batch_of,
    fault,
    open_on_rover,
)
from tests.panels.tables import rows


def codes(panel: FaultsPanel) -> list[str]:
    return list(rows(panel.active))


def test_a_critical_fault_appears_first_and_notifies(make_main_window, rover_fleet,
                                                     open_session, free_endpoint, qtbot) -> None:
    window, panel = open_on_rover(make_main_window, "faults")
    voice = RobotVoice(open_session(mode="client", connect=[free_endpoint], must_connect=True))
    # a minor fault that stays, so the rover's own critical one has something to top
    qtbot.waitUntil(lambda: (voice.say("fault", **fault("TEST_MINOR", "minor")),
                             "TEST_MINOR" in codes(panel))[1], timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: "TILT_LIMIT" in codes(panel), timeout=TIMEOUT_MS)
    assert codes(panel)[0] == "TILT_LIMIT"
    top = rows(panel.active)["TILT_LIMIT"]
    assert top[0] == "CRITICAL" and top[2] == "imu" and top[6] == "NEW"
    assert "exceeds the 25° limit" in top[3]
    (name, text), = window.alerts().items()
    assert text.startswith("CRITICAL fault TILT_LIMIT on rover-1")
    assert window._docks[name].windowTitle() == "⚠ Faults"
    alert = window.status_strip.alert_label
    assert alert.isVisible() and "TILT_LIMIT" in alert.text()
    window._alert_clicked(name)  # clicked in the status bar: seen
    assert window.alerts() == {} and window._docks[name].windowTitle() == "Faults"
    assert not window.status_strip.alert_label.isVisible()


def test_acknowledging_persists_across_a_restart_of_the_panel(
        make_main_window, rover_fleet, open_session, free_endpoint, qtbot) -> None:
    window, panel = open_on_rover(make_main_window, "faults")
    voice = RobotVoice(open_session(mode="client", connect=[free_endpoint], must_connect=True))
    qtbot.waitUntil(lambda: (voice.say("fault", **fault("STUCK", "critical")),
                             "STUCK" in codes(panel))[1], timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: any("STUCK" in t for t in window.alerts().values()),
                    timeout=TIMEOUT_MS)
    for r in range(panel.active.model().rowCount()):  # select it and acknowledge
        if panel.active.model().index(r, 1).data() == "STUCK":
            panel.active.selectRow(r)
    panel.ack_button.click()
    assert rows(panel.active)["STUCK"][6] == "acknowledged"
    if not any(f.alerts and f.code != "STUCK" for f in panel._active_faults()):
        assert not any("STUCK" in t for t in window.alerts().values())

    window.close_all_panels()
    again = window.open_panel("faults")
    qtbot.waitUntil(lambda: "STUCK" in codes(again), timeout=TIMEOUT_MS)
    assert rows(again.active)["STUCK"][6] == "acknowledged"
    # the rover's own faults are not acknowledged by that
    qtbot.waitUntil(lambda: any(c != "STUCK" for c in codes(again)), timeout=TIMEOUT_MS)
    assert all(rows(again.active)[c][6] == "NEW" for c in codes(again) if c != "STUCK")
    voice.say("fault", **fault("STUCK", "critical", raised_ms=1_700_000_999_000))
    qtbot.waitUntil(lambda: rows(again.active).get("STUCK", [""] * 7)[6] == "NEW",
                    timeout=TIMEOUT_MS)  # raised again: a new acknowledgement is needed


def _fault(code: str, severity: object, seq: int, cleared: float | None = None) -> Fault:
    return Fault(code, severity, f"{code} went wrong", "src", 1_700_000_000_000 + seq,
                 cleared is None, 50.0, seq, cleared)  # type: ignore[arg-type]


def test_history_and_messages_filter_and_unknown_values_show(qtbot, tmp_path) -> None:
    host = PlainHost(tmp_path)
    panel = FaultsPanel(host)  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.show()
    vitals = RobotVitals(
        ROVER,
        faults=(_fault("NEWER", 7, 3), _fault("LOW", "info", 4)),
        history=(_fault("GONE_A", "minor", 1, 60.0), _fault("GONE_B", "critical", 2, 70.0)),
        messages=(Message("info", "Horn sounded", int(time.time() * 1000), 1.0),
                  Message("error", "Battery empty", int(time.time() * 1000), 2.0),
                  Message(9, "from the future", int(time.time() * 1000), 3.0)),
        version=1)
    panel.on_frame(batch_of(vitals))
    assert codes(panel) == ["NEWER", "LOW"]
    assert rows(panel.active)["NEWER"][0] == "severity 7"  # unknown: its number, ranked high
    assert host.alerts == [f"7 fault NEWER on {ROVER}: NEWER went wrong"]
    panel.history_search.setText("gone_b")
    assert [r[1] for r in rows(panel.history).values()] == ["GONE_B"]
    panel.history_search.setText("")
    panel.history_severity.setCurrentText("minor")
    assert [r[1] for r in rows(panel.history).values()] == ["GONE_A"]
    panel.messages_level.setCurrentText("error")
    assert [r[2] for r in rows(panel.messages).values()] == ["Battery empty"]
    panel.messages_level.setCurrentText("All")
    panel.messages_search.setText("future")
    assert [r[1:] for r in rows(panel.messages).values()] == [["level 9", "from the future"]]
    panel.acknowledge_all()
    assert host.alerts == []  # seen
    assert all(r[6] == "acknowledged" for r in rows(panel.active).values())
    assert (tmp_path / "fault-acknowledgements.json").is_file()


def test_an_unreadable_acknowledgement_file_is_ignored(qtbot, tmp_path) -> None:
    (tmp_path / "fault-acknowledgements.json").write_text("{not json")
    panel = FaultsPanel(PlainHost(tmp_path))  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.on_frame(batch_of(RobotVitals(ROVER, faults=(_fault("X", "major", 1),), version=1)))
    assert rows(panel.active)["X"][6] == "NEW"


def test_acknowledge_is_for_a_selection_with_a_new_fault_and_severities_are_whole(
        qtbot, tmp_path) -> None:
    panel = FaultsPanel(PlainHost(tmp_path))  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.resize(900, 300)
    panel.show()
    assert not panel.ack_button.isEnabled() and not panel.ack_all_button.isEnabled()
    panel.on_frame(batch_of(RobotVitals(ROVER, faults=(_fault("HOT", "critical", 1),),
                                        version=1)))
    assert not panel.ack_button.isEnabled()  # nothing selected: nothing to acknowledge
    assert panel.ack_all_button.isEnabled()
    panel.active.selectRow(0)
    assert panel.ack_button.isEnabled()
    panel.ack_button.click()
    assert rows(panel.active)["HOT"][6] == "acknowledged"
    assert not panel.ack_button.isEnabled() and not panel.ack_all_button.isEnabled()

    severity = panel.active.model().index(0, 0)
    needed = panel.active.sizeHintForColumn(0)
    qtbot.waitUntil(lambda: panel.active.columnWidth(0) >= needed, timeout=10_000)
    assert severity.data() == "CRITICAL"


def test_one_alert_line_the_active_robot_first_cleared_when_its_robots_go(qtbot,
                                                                         tmp_path) -> None:
    host = PlainHost(tmp_path)
    panel = FaultsPanel(host)  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    rover = RobotVitals(ROVER, faults=(_fault("TILT", "major", 1),), version=1)
    car = RobotVitals("car-1", faults=(_fault("BRAKE", "critical", 2),
                                       _fault("DOOR", "major", 3)), version=1)
    panel.watch(batch_of(rover, car))  # the rover is active: its fault first, the rest counted
    assert host.alerts == [f"MAJOR fault TILT on {ROVER}: TILT went wrong (+2 more on 2 robots)"]
    host.alerts.clear()  # the operator clicked it: seen
    panel.watch(batch_of(rover, car))  # the robots repeat their faults: nothing new
    assert host.alerts == []
    again = RobotVitals(ROVER, faults=(_fault("TILT", "major", 9),), version=2)
    panel.watch(batch_of(again, car))  # raised anew: news again
    assert host.alerts[-1] == f"MAJOR fault TILT on {ROVER}: TILT went wrong (+2 more on 2 robots)"
    offline = dataclasses.replace(batch_of(again, car), robots=[
        RobotInfo(ROVER, online=False), RobotInfo("car-1", online=False)])
    panel.watch(offline)  # its robots gone (a lost link): the alert goes
    assert host.alerts == []
    panel.watch(batch_of(again, car))
    assert host.alerts != []
    playing = dataclasses.replace(batch_of(again, car), status=StationStatus(playback="x.mcap"))
    panel.watch(playing)  # a log plays: its faults are on the timeline, not alerts
    assert host.alerts == []
