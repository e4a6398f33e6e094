"""The mission panel on the real simulated rover over real zenoh."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox

from app.sim.kinematics import Pose2D
from panels.mission import MissionPanel, WaypointError, parse_waypoints
from tests.panels.health import TIMEOUT_MS, open_on_rover


def waypoints(*xy: tuple[float, float]) -> str:
    return "\n".join("{:.8f}, {:.8f}".format(*Pose2D(x, y, 0.0).geodetic()) for x, y in xy)


def test_a_mission_started_from_the_panel_runs_and_reports_progress(
        make_main_window, rover_fleet, qtbot, monkeypatch) -> None:
    rover_fleet.robots[0].controls.settings["maxSpeed"] = 2.0
    rover_fleet.robots[0].base.max_linear = 2.0
    _, panel = open_on_rover(make_main_window, "mission")
    assert isinstance(panel, MissionPanel)
    panel.mission_name.setText("Fence line")
    panel.waypoints.setPlainText(waypoints((2.0, 0.0), (2.0, 2.0)))
    qtbot.waitUntil(lambda: panel.buttons["start"].isEnabled(), timeout=TIMEOUT_MS)
    panel.buttons["start"].click()
    qtbot.waitUntil(lambda: panel.status.text().startswith("RUNNING"), timeout=TIMEOUT_MS)
    assert panel.name.text().startswith("Fence line (fs-")
    assert panel.step.text() in ("1 of 2", "2 of 2")
    assert panel.result.text().startswith("✓")
    qtbot.waitUntil(lambda: panel.progress.value() > 100, timeout=TIMEOUT_MS)
    assert panel.buttons["pause"].isEnabled() and not panel.buttons["resume"].isEnabled()
    assert panel.message.text().endswith("m to go")

    panel.buttons["pause"].click()
    qtbot.waitUntil(lambda: panel.status.text().startswith("PAUSED"), timeout=TIMEOUT_MS)
    assert panel.buttons["resume"].isEnabled()
    answers = iter([QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes])
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: next(answers))
    panel.buttons["abort"].click()  # declined: still paused
    assert panel.result.text() != "sent…"
    panel.buttons["abort"].click()
    qtbot.waitUntil(lambda: panel.status.text().startswith("ABORTED"), timeout=TIMEOUT_MS)
    assert panel.message.text() == "aborted by operator"


@pytest.mark.parametrize(("text", "why"), [
    ("", "at least one waypoint"),
    ("51.5", "line 1: write 'lat, lon'"),
    ("51.5, -0.1\nnan, 3", "line 2: nan, 3.0 is not on Earth"),
    ("91, 0", "not on Earth"),
])
def test_bad_waypoints_are_refused_with_the_line(text: str, why: str) -> None:
    with pytest.raises(WaypointError, match=why):
        parse_waypoints(text)


def test_a_mission_is_not_started_while_the_rover_is_e_stopped(make_main_window, rover_fleet,
                                                                qtbot) -> None:
    window, panel = open_on_rover(make_main_window, "mission")
    assert isinstance(panel, MissionPanel)
    panel.waypoints.setPlainText(waypoints((2.0, 0.0)))
    qtbot.waitUntil(lambda: panel.buttons["start"].isEnabled(), timeout=TIMEOUT_MS)
    window.engage_estop()
    qtbot.waitUntil(lambda: "rover-1" in window.estopped_robots(), timeout=TIMEOUT_MS)
    panel.buttons["start"].click()
    assert panel.result.text() == "not sent: rover-1's e-stop is engaged from this station"
    assert panel._sent is None
