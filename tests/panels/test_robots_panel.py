"""The robots panel on the real simulated fleet over real zenoh."""

from __future__ import annotations

import re
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from app.station.frame import FrameBatch
from app.station.robots import RobotInfo, StationStatus
from panels.robot_rows import (
    AGE,
    BATTERY,
    ESTOP_BACKGROUND,
    FAMILIES,
    LIVE_AGE,
    MODE,
    MODEL,
    ROBOT,
    STATUS,
)
from panels.robots import RobotsPanel
from tests.panels.tables import cell, index_of, rows
from widgets.table import HIGHLIGHT, MUTED_ROLE, VALUE_ROLE

ROBOTS = {"rover-1", "humanoid-1", "car-1"}


def open_robots(make_main_window, qtbot):
    window = make_main_window(show=True)
    panel = window.open_panel("robots")
    assert isinstance(panel, RobotsPanel)
    # catalogs come from each robot's queryable, vitals from its telemetry
    qtbot.waitUntil(lambda: set(rows(panel.view)) == ROBOTS
                    and all(r[MODEL] not in ("…", "—") for r in rows(panel.view).values()),
                    timeout=10_000)
    return window, panel


def test_robots_appear_with_model_families_and_battery(make_main_window, fleet, qtbot):
    _, panel = open_robots(make_main_window, qtbot)
    qtbot.waitUntil(lambda: all(re.fullmatch(r"\d+ %", cell(panel.view, robot, BATTERY))
                                for robot in ("rover-1", "humanoid-1")), timeout=5_000)
    shown = rows(panel.view)
    for robot in fleet.robots:
        row = shown[robot.robot_id]
        assert row[STATUS] == "online"
        assert row[1] == f"{robot.name} ({robot.robot_id})"
        assert row[MODEL] == robot.model
        assert row[FAMILIES] == ", ".join(robot.families)
    rover_battery = cell(panel.view, "rover-1", BATTERY, VALUE_ROLE)
    assert 0 <= rover_battery <= 100
    assert shown["rover-1"][BATTERY] == f"{rover_battery:.0f} %"
    assert shown["car-1"][BATTERY] == "—"  # the car reports no battery
    assert shown["rover-1"][AGE] == LIVE_AGE  # its data is under a second old


def test_a_killed_robot_goes_offline_and_stays_listed(make_main_window, fleet, qtbot):
    _, panel = open_robots(make_main_window, qtbot)
    car = next(r for r in fleet.robots if r.robot_id == "car-1")
    killed = time.monotonic()
    car.stop()  # closes its zenoh session: its liveliness token goes away
    qtbot.waitUntil(lambda: cell(panel.view, "car-1", STATUS).startswith("offline"),
                    timeout=10_000)
    assert time.monotonic() - killed < 2.0
    assert set(rows(panel.view)) == ROBOTS
    assert cell(panel.view, "car-1", 0, MUTED_ROLE) is True
    assert cell(panel.view, "rover-1", 0, MUTED_ROLE) is False
    assert re.fullmatch(r"offline \d+\.\d s ago", cell(panel.view, "car-1", STATUS))
    assert cell(panel.view, "rover-1", STATUS) == "online"


def test_selecting_a_robot_makes_it_the_active_robot(make_main_window, fleet, qtbot):
    window, panel = open_robots(make_main_window, qtbot)
    index = index_of(panel.view, "humanoid-1", 1)
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton,
                     pos=panel.view.visualRect(index).center())
    assert window.active_robot == "humanoid-1"
    assert window.station.active_robot == "humanoid-1"
    assert "humanoid-1" in window.status_strip.robot_label.text()
    qtbot.waitUntil(lambda: cell(panel.view, "humanoid-1", MODEL,
                                 Qt.ItemDataRole.BackgroundRole) == HIGHLIGHT, timeout=10_000)
    assert cell(panel.view, "rover-1", MODEL, Qt.ItemDataRole.BackgroundRole) is None

    window.set_active_robot("rover-1")  # chosen elsewhere: the selection follows
    qtbot.waitUntil(lambda: [i.data() for i in panel.view.selectionModel().selectedRows(1)]
                    == ["Field rover (rover-1)"], timeout=10_000)
    assert window.active_robot == "rover-1"


def test_an_engaged_estop_is_shown_loudly(make_main_window, fleet, qtbot):
    _, panel = open_robots(make_main_window, qtbot)
    rover = next(r for r in fleet.robots if r.robot_id == "rover-1")
    rover.estop, rover.estop_reason = True, "test"
    qtbot.waitUntil(lambda: cell(panel.view, "rover-1", MODE).startswith("E-STOP"),
                    timeout=10_000)
    background = cell(panel.view, "rover-1", MODE, Qt.ItemDataRole.BackgroundRole)
    assert background == QColor(ESTOP_BACKGROUND)
    assert cell(panel.view, "rover-1", MODE, Qt.ItemDataRole.FontRole).bold()
    assert not cell(panel.view, "humanoid-1", MODE).startswith("E-STOP")


def test_a_nonsense_battery_reading_is_flagged_not_drawn(make_main_window):
    window = make_main_window()
    panel = window.open_panel("robots")
    robot = RobotInfo("odd-1", online=True, battery_pct=float("nan"), last_data=time.monotonic())
    panel.on_frame(FrameBatch(time.monotonic(), StationStatus(), robots=[robot],
                            tables_changed=True))
    assert cell(panel.view, "odd-1", BATTERY) == "invalid"
    assert cell(panel.view, "odd-1", BATTERY, VALUE_ROLE) is None  # no bar
    assert "nan" in cell(panel.view, "odd-1", BATTERY, Qt.ItemDataRole.ToolTipRole)


@pytest.mark.parametrize(("percent", "shown"), [(78.0, "78 %"), (22.0, "22 % LOW"),
                                                 (9.0, "9 % CRITICAL")])
def test_the_battery_state_is_said_in_words_with_the_gauges_thresholds(
        make_main_window, percent: float, shown: str) -> None:
    window = make_main_window()
    panel = window.open_panel("robots")
    robot = RobotInfo("r-1", online=True, battery_pct=percent, last_data=time.monotonic())
    panel.on_frame(FrameBatch(time.monotonic(), StationStatus(), robots=[robot],
                              tables_changed=True))
    assert cell(panel.view, "r-1", BATTERY) == shown
    assert "warning at 30 %" in cell(panel.view, "r-1", BATTERY, Qt.ItemDataRole.ToolTipRole)


def test_who_controls_each_robot_is_shown_here_and_on_the_safety_bar(
        make_main_window, fleet, qtbot, free_endpoint):
    from app.bus.config import BusConfig
    from app.station.identity import StationIdentity
    from app.station.station import Station
    from panels.robot_rows import CONTROL

    window, panel = open_robots(make_main_window, qtbot)
    ana = Station(BusConfig(mode="client", connect=[free_endpoint]),  # as the robots are
                  identity=StationIdentity.new("Ana"))
    try:
        qtbot.waitUntil(lambda: ana.authority.take("car-1") == "", timeout=10_000)
        assert window.station.authority.take("rover-1") == ""
        qtbot.waitUntil(lambda: cell(panel.view, "car-1", CONTROL) == "Ana (operator)"
                        and cell(panel.view, "rover-1", CONTROL) == "you", timeout=5_000)
        assert cell(panel.view, "humanoid-1", CONTROL) == "—"
        window.set_active_robot("car-1")
        qtbot.waitUntil(lambda: window.control_bar.label.full_text()
                        == "car-1: controlled by Ana (operator)", timeout=5_000)
        assert window.control_bar.request_action.isEnabled()
        assert not window.control_bar.take_action.isEnabled()
        ana.authority.release("car-1")
        qtbot.waitUntil(lambda: cell(panel.view, "car-1", CONTROL) == "—", timeout=5_000)
        qtbot.waitUntil(lambda: window.control_bar.take_action.isEnabled(), timeout=5_000)
    finally:
        ana.close()


@pytest.mark.parametrize("spare_px", [-300, 60, 700])
def test_the_robot_column_is_never_squeezed_under_its_width_and_takes_spare_room(
        make_main_window, fleet, qtbot, spare_px):
    """The Robot column keeps its 24 characters however little room the other columns leave
    it (a stretch column alone went down to 26 px, 'Ro…', when they left it a little, as in a
    dock of 840 px beside the fleet map), the columns after it scrolling into view; room to
    spare is its."""
    window = make_main_window(show=True)
    window.close_all_panels()
    panel = window.open_panel("robots", area="left")
    fleet_map = window.open_panel("fleet_map", area="right")
    window.resize(1900, 760)
    qtbot.waitUntil(lambda: set(rows(panel.view)) == ROBOTS, timeout=10_000)
    header = panel.view.header()
    others = sum(header.sectionSize(c) for c in range(header.count()) if c != ROBOT)
    dock = panel.parentWidget()

    def dock_for_spare(width: int) -> None:  # the viewport: the dock less its frame
        window.resizeDocks([dock, fleet_map.parentWidget()], [width, 1900 - width],
                           Qt.Orientation.Horizontal)

    dock_for_spare(others + spare_px + 100)
    qtbot.waitUntil(lambda: panel.view.viewport().width() > 0, timeout=5_000)
    frame = dock.width() - panel.view.viewport().width()
    dock_for_spare(others + spare_px + frame)
    qtbot.waitUntil(lambda: abs(panel.view.viewport().width() - others - spare_px) <= 8,
                    timeout=5_000)
    floor = 24 * panel.view.fontMetrics().averageCharWidth() + 16
    room = panel.view.viewport().width() - others
    qtbot.waitUntil(lambda: header.sectionSize(ROBOT) == max(floor, room), timeout=5_000)
