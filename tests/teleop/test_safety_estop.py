"""An engaged e-stop belongs to the robots it was sent to: with a rover and a humanoid
online, it keeps being sent to each until that robot reports it, whatever robot is
selected meanwhile; the robot selected is shown e-stopped iff its own e-stop is engaged
here, and releasing is per robot. (The simulated humanoid speaks bow and never reports a
fleet e-stop: its e-stop is repeated for as long as the session lives.)"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from app.bus.config import BusConfig
from app.sim.fleet import SimFleet
from app.station.station import Station
from app.teleop.arming import Arming
from app.teleop.session import TeleopSession
from tests.bus.helpers import wait_for
from tests.teleop.heard import Heard

pytestmark = pytest.mark.slow
ROVER, HUMANOID = "rover-1", "humanoid-1"


@pytest.fixture
def fleet(free_endpoint: str) -> Iterator[SimFleet]:
    with SimFleet(["rover", "humanoid"], listen=[free_endpoint], points=2_000) as fleet:
        yield fleet


@pytest.fixture
def station(fleet: SimFleet, free_endpoint: str) -> Iterator[Station]:
    station = Station(BusConfig(mode="peer", connect=[free_endpoint]))
    try:
        wait_for(lambda: sum(bool(r.online and r.catalog) for r in station.robots()) == 2, 15)
        yield station
    finally:
        station.close()


@pytest.fixture
def session(station: Station) -> Iterator[TeleopSession]:
    session = TeleopSession(station, focus_disarms=False)
    try:
        yield session
    finally:
        session.close()


def estops_heard(heard: Heard, robot: str, since: float = 0.0) -> int:
    return sum(c.what == "estop" for c in heard.of(robot, since))


def shown(session: TeleopSession) -> tuple[Arming, bool]:
    """The arming state and the e-stop flag of the selected robot, as the window reads them."""
    status = session.status().teleop
    return status.state, status.estop


def reports_estop(station: Station, robot: str) -> bool:
    vitals = station.vitals.get(robot)
    return vitals is not None and vitals.status is not None and vitals.status.estop


def test_an_unconfirmed_e_stop_is_still_sent_after_switching_away_and_back(
        fleet: SimFleet, session: TeleopSession) -> None:
    heard = Heard(fleet)
    session.select(HUMANOID)
    session.engage_estop()
    wait_for(lambda: estops_heard(heard, HUMANOID) >= 1, 3)

    switched = time.monotonic()
    session.select(ROVER)
    wait_for(lambda: shown(session) == (Arming.DISARMED, False), 3)  # the rover is not
    assert session.status().estop is None
    wait_for(lambda: estops_heard(heard, HUMANOID, since=switched) >= 3, 3)  # still sent
    assert set(session.estops()) == {HUMANOID}
    assert session.estops()[HUMANOID].engaged and not session.estops()[HUMANOID].confirmed

    back = time.monotonic()
    session.select(HUMANOID)
    wait_for(lambda: shown(session) == (Arming.ESTOP, True), 3)
    estop = session.status().estop
    assert estop is not None and estop.engaged
    wait_for(lambda: estops_heard(heard, HUMANOID, since=back) >= 3, 3)
    assert estops_heard(heard, ROVER) == 0  # never engaged for the rover


def test_an_e_stop_is_sent_until_its_robot_reports_it_and_released_per_robot(
        fleet: SimFleet, station: Station, session: TeleopSession) -> None:
    heard = Heard(fleet)
    session.select(ROVER)
    session.engage_estop()
    session.select(HUMANOID)  # at once, before the rover can have answered
    wait_for(lambda: reports_estop(station, ROVER), 5)
    wait_for(lambda: session.estops()[ROVER].confirmed, 3)
    assert not session.estops()[ROVER].sending
    assert shown(session)[1] is False  # the humanoid is not e-stopped
    confirmed = estops_heard(heard, ROVER)
    assert confirmed >= 1
    time.sleep(0.5)  # a confirmed e-stop is not repeated
    assert estops_heard(heard, ROVER) == confirmed

    session.select(ROVER)
    wait_for(lambda: shown(session) == (Arming.ESTOP, True), 3)
    assert not session.release_estop(HUMANOID)  # not engaged: nothing to release
    assert reports_estop(station, ROVER)
    assert session.release_estop(ROVER)
    wait_for(lambda: not reports_estop(station, ROVER), 5)
    wait_for(lambda: session.estops() == {}, 3)
    wait_for(lambda: shown(session)[1] is False, 3)
    assert estops_heard(heard, HUMANOID) == 0


def test_the_e_stop_with_no_robot_selected_stops_every_robot_online(
        fleet: SimFleet, station: Station, session: TeleopSession) -> None:
    heard = Heard(fleet)
    session.engage_estop()
    wait_for(lambda: estops_heard(heard, ROVER) >= 1 and estops_heard(heard, HUMANOID) >= 1, 3)
    wait_for(lambda: reports_estop(station, ROVER), 5)
    assert set(session.estops()) == {ROVER, HUMANOID}
    wait_for(lambda: shown(session) == (Arming.ESTOP, True), 3)

    session.select(ROVER)
    wait_for(lambda: shown(session) == (Arming.ESTOP, True), 3)
    session.release_estop(ROVER)
    wait_for(lambda: shown(session)[1] is False, 3)
    wait_for(lambda: not reports_estop(station, ROVER), 5)
    wait_for(lambda: set(session.estops()) == {HUMANOID}, 3)  # released for the rover alone
    assert session.estops()[HUMANOID].engaged
