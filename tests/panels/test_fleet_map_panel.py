"""The fleet map on the simulated fleet over real zenoh: every robot placed (the rover and
the humanoid on the earth, the car in its street's ``map``), a click makes a robot active,
an e-stopped rover turns the e-stop colour, a killed robot goes grey where it was."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt

from app.bus.config import BusConfig
from app.bus.keys import command_key
from app.bus.publisher import Publisher, Traffic
from app.codec.registry import registry
from app.sim.fleet import SimFleet
from app.station.identity import StationIdentity
from app.station.station import Station
from panels.fleet_map import COLOURS, FleetMapPanel
from widgets.fleet_map_view import MapRobot

TIMEOUT_MS = 15_000


@pytest.fixture
def small_fleet(free_endpoint: str) -> Iterator[SimFleet]:
    with SimFleet(["rover", "humanoid", "car"], listen=[free_endpoint], points=2000) as fleet:
        yield fleet


def drawn(panel: FleetMapPanel) -> dict[str, MapRobot]:
    return {r.robot_id: r for r in panel.view.robots}


def test_the_fleet_is_placed_picked_estopped_and_lost(make_main_window, small_fleet,
                                                      open_session, free_endpoint,
                                                      qtbot) -> None:
    window = make_main_window(show=True)
    panel = window.open_panel("fleet_map")
    assert isinstance(panel, FleetMapPanel)
    qtbot.waitUntil(lambda: panel.summary.text() == "3 robots placed, 0 without a position",
                    timeout=TIMEOUT_MS)
    robots = drawn(panel)
    assert (robots["rover-1"].frame, robots["humanoid-1"].frame) == ("", "")  # on the earth
    assert robots["car-1"].frame == "map"  # its street's own frame: a tile
    assert panel.view.title.startswith("Datum 47.39770° N, 8.54560° E (first fix, ")
    assert all(r.yaw is not None for r in robots.values())

    where = {r.robot_id: p for r, p in panel.view._placed()}
    qtbot.mouseClick(panel.view, Qt.MouseButton.LeftButton, pos=where["car-1"].toPoint())
    assert window.active_robot == "car-1"
    qtbot.waitUntil(lambda: panel.view.active == "car-1", timeout=TIMEOUT_MS)

    robot = open_session(mode="client", connect=[free_endpoint], must_connect=True)
    estop = Publisher(robot, command_key("rover-1", "estop"), "fleet.Command", Traffic.ESTOP)
    command = registry().struct("fleet.Command").new_message(robotId="rover-1", seq=7)
    command.init("estop").engage, command.estop.reason = True, "test"
    payload = command.to_bytes()
    qtbot.waitUntil(lambda: (estop.put(payload), drawn(panel)["rover-1"].colour)[1]
                    == COLOURS["estop"], timeout=TIMEOUT_MS)
    assert "Emergency stop engaged: test" in drawn(panel)["rover-1"].tooltip

    car = next(r for r in small_fleet.robots if r.robot_id == "car-1")
    placed = drawn(panel)["car-1"]
    car.stop()  # its zenoh session closes: its liveliness token goes away
    qtbot.waitUntil(lambda: drawn(panel)["car-1"].colour == COLOURS["offline"],
                    timeout=TIMEOUT_MS)
    gone = drawn(panel)["car-1"]
    assert gone.muted and (gone.x, gone.y) == (placed.x, placed.y)  # where it was last
    assert panel.summary.text() == "3 robots placed, 0 without a position"


def test_the_map_repaints_only_when_something_drawn_changed(make_main_window, small_fleet,
                                                           qtbot) -> None:
    window = make_main_window(show=True)
    panel = window.open_panel("fleet_map")
    qtbot.waitUntil(lambda: len(panel.view.robots) == 3, timeout=TIMEOUT_MS)
    qtbot.wait(500)  # the robots stand still (nobody drives them): nothing to redraw
    paints = panel.view.paints
    qtbot.wait(1000)
    assert panel.view.paints - paints <= 2  # not the ~30 ticks that went by


def test_who_controls_each_robot_is_written_beside_it(make_main_window, small_fleet,
                                                      free_endpoint, qtbot) -> None:
    window = make_main_window(show=True)
    panel = window.open_panel("fleet_map")
    assert isinstance(panel, FleetMapPanel)
    qtbot.waitUntil(lambda: panel.summary.text() == "3 robots placed, 0 without a position",
                    timeout=TIMEOUT_MS)
    ana = Station(BusConfig(mode="client", connect=[free_endpoint]),  # as the robots are
                  identity=StationIdentity.new("Ana"))
    try:
        qtbot.waitUntil(lambda: ana.authority.take("car-1") == "", timeout=TIMEOUT_MS)
        assert window.station.authority.take("rover-1") == ""
        qtbot.waitUntil(lambda: drawn(panel)["car-1"].label == "car-1 · Ana (operator)"
                        and drawn(panel)["rover-1"].label == "rover-1 · you",
                        timeout=TIMEOUT_MS)
        assert drawn(panel)["car-1"].tooltip.endswith("\ncontrolled by Ana (operator)")
        assert drawn(panel)["humanoid-1"].label == ""
        ana.authority.release("car-1")
        qtbot.waitUntil(lambda: drawn(panel)["car-1"].label == "", timeout=TIMEOUT_MS)
        assert "controlled by" not in drawn(panel)["car-1"].tooltip
    finally:
        ana.close()
