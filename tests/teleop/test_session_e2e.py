"""The whole chain: a (virtual) game controller -> the gamepad thread -> profile and arming
machine -> the rover's adapter on the wire -> the simulated rover moves; and every way of
losing control ends in zero commands."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator

import pytest

from app.bus.config import BusConfig
from app.codec.decode import decode
from app.inputs.gamepad import Gamepad
from app.sim.fleet import SimFleet
from app.station.station import Station
from app.teleop.arming import Arming
from app.teleop.model import Gear
from app.teleop.session import TeleopSession
from tests.bus.helpers import wait_for
from tests.inputs.virtual_gamepad import VirtualGamepad
from tests.sim.running import one_robot
from tests.teleop.heard import LATCHED
from tests.teleop.test_outputs_e2e import Latest

pytestmark = pytest.mark.slow
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


@pytest.fixture
def station(free_endpoint: str) -> Iterator[Station]:
    with one_robot("rover", free_endpoint, points=2_000):
        station = Station(BusConfig(mode="peer", connect=[free_endpoint]))
        try:
            wait_for(lambda: any(r.online and r.catalog for r in station.robots()), 8.0)
            yield station
        finally:
            station.close()


@pytest.fixture
def session(station: Station) -> Iterator[TeleopSession]:
    session = TeleopSession(station)
    session.select("rover-1")
    try:
        yield session
    finally:
        session.close()


@pytest.fixture
def pad(session: TeleopSession) -> Iterator[VirtualGamepad]:
    gamepad = Gamepad(session.set_input)
    gamepad.start()
    virtual = VirtualGamepad("Operator pad")
    try:
        wait_for(lambda: session.status().teleop.device == "Operator pad", 5.0)
        wait_for(lambda: session.status().link.live, 8.0)
        yield virtual
    finally:
        if virtual.plugged:
            virtual.unplug()
        gamepad.stop()


def velocity(motion: Latest, after: float) -> dict[str, float]:
    return motion.after(after)["motion"]["velocity"]


def wait_held(session: TeleopSession, pad: VirtualGamepad, predicate: Callable[[], object],
              timeout: float) -> None:
    """Waits for ``predicate`` as an operator holding the deadman would: a moment that
    forbade driving while it was held (a link blip, a loaded machine's late tick) asks for
    it to be released and pressed again, and they do so."""
    def check() -> object:
        if session.status().teleop.reason == LATCHED:
            pad.release("leftshoulder")
            wait_for(lambda: session.status().teleop.reason != LATCHED, 1.0)
            pad.press("leftshoulder")
        return predicate()

    status = session.status
    wait_for(check, timeout, why=lambda: f"{status().teleop.state.value}: "
                                         f"{status().teleop.reason}")


def drive(session: TeleopSession, pad: VirtualGamepad) -> None:
    pad.set_axis("lefty", -1.0)  # stick up: forward
    pad.set_axis("rightx", -0.6)  # right stick left: turn left
    pad.press("leftshoulder")  # the deadman
    wait_held(session, pad, lambda: session.status().teleop.state is Arming.ARMED, 8.0)


def test_stick_drives_the_rover_forward_and_left_and_release_stops_it(
        station: Station, session: TeleopSession, pad: VirtualGamepad) -> None:
    motion = Latest(station.bus, "fleet/rover-1/uplink/motion")
    pad.set_axis("lefty", -1.0)
    time.sleep(0.3)
    assert session.status().teleop.state is not Arming.ARMED  # no deadman: no motion
    assert velocity(motion, time.time())["linearMps"] == 0.0
    drive(session, pad)
    # forward and CCW: the rover's own report, once it has picked up speed
    motion.first(time.time(), lambda m: m["motion"]["velocity"]["linearMps"] > 0.2
                 and m["motion"]["velocity"]["angularRps"] > 0.1)
    pad.release("leftshoulder")
    released = time.time()
    wait_for(lambda: session.status().teleop.state is not Arming.ARMED, 1.0)
    assert velocity(motion, released + 0.15) == {"linearMps": 0.0, "angularRps": 0.0}
    assert "deadman" in session.status().teleop.reason


def test_unplugging_the_controller_stops_the_rover(station: Station, session: TeleopSession,
                                                    pad: VirtualGamepad) -> None:
    motion = Latest(station.bus, "fleet/rover-1/uplink/motion")
    drive(session, pad)
    motion.first(time.time(), lambda m: m["motion"]["velocity"]["linearMps"] > 0.2)
    pad.unplug()
    unplugged = time.time()
    wait_for(lambda: session.status().teleop.state is not Arming.ARMED, 1.0)
    assert velocity(motion, unplugged + 0.15) == {"linearMps": 0.0, "angularRps": 0.0}
    assert "unplugged" in session.status().teleop.reason


def test_the_e_stop_is_reported_back_by_the_rover_and_blocks_driving(
        station: Station, session: TeleopSession, pad: VirtualGamepad) -> None:
    drive(session, pad)
    session.engage_estop()
    wait_for(lambda: session.status().teleop.state is Arming.ESTOP, 1.0)
    wait_for(lambda: (s := session.status().estop) is not None and s.confirmed, 5.0)
    vitals = station.vitals.snapshot()["rover-1"]
    assert vitals.status is not None and vitals.status.estop
    session.release_estop()
    wait_for(lambda: not station.vitals.snapshot()["rover-1"].status.estop, 5.0)


class Sent:
    """What leaves the app: every teleop message the session hands its wire, decoded."""

    def __init__(self, session: TeleopSession) -> None:
        self.items: list[tuple[float, float, float]] = []  # (monotonic, linear, angular)
        wire = session._outbox
        original = wire.send

        def send(outgoing):  # type: ignore[no-untyped-def]
            for item in outgoing:
                if item.key.endswith("/command/teleop"):
                    twist = decode(f"application/capnp;{item.type_name}", item.payload,
                                   None).root.teleop
                    self.items.append((time.monotonic(), twist.linearMps, twist.angularRps))
            return original(outgoing)

        wire.send = send  # type: ignore[method-assign]


@pytest.fixture
def fleet_station(free_endpoint: str) -> Iterator[tuple[SimFleet, Station]]:
    fleet = SimFleet(["rover"], listen=[free_endpoint], points=2_000)
    fleet.start()
    station = Station(BusConfig(mode="peer", connect=[free_endpoint]))
    try:
        wait_for(lambda: any(r.online and r.catalog for r in station.robots()), 8.0)
        yield fleet, station
    finally:
        station.close()
        fleet.stop()


@contextlib.contextmanager
def driving_rover(station: Station) -> Iterator[tuple[TeleopSession, Sent]]:
    """A teleop session on rover-1 from a (virtual) game controller, armed and driving."""
    session = TeleopSession(station)
    session.select("rover-1")
    gamepad = Gamepad(session.set_input)
    gamepad.start()
    pad = VirtualGamepad("Operator pad")
    sent = Sent(session)
    try:
        wait_for(lambda: session.status().link.live, 8.0)
        drive(session, pad)
        wait_for(lambda: any(linear > 0 for _, linear, _ in sent.items), 2.0)
        yield session, sent
    finally:
        pad.unplug()
        gamepad.stop()
        session.close()



@pytest.mark.parametrize("loss", ["robot killed", "router stopped"])
def test_losing_the_robot_or_the_router_ends_in_zero_commands(
        fleet_station: tuple[SimFleet, Station], loss: str) -> None:
    fleet, station = fleet_station
    with driving_rover(station) as (session, sent):
        if loss == "robot killed":
            fleet.robots[0].stop()
        else:
            assert fleet.hub is not None
            fleet.hub.close()
        lost_at = time.monotonic()
        wait_for(lambda: session.status().teleop.state is not Arming.ARMED, 3.0)
        time.sleep(0.6)  # the stop burst, then silence
        after = [s for s in sent.items if s[0] > lost_at]
        last_moving = max((t for t, linear, _ in sent.items if linear != 0), default=0.0)
        stops = [s for s in after if s[0] > last_moving]
        assert stops and all((linear, angular) == (0.0, 0.0) for _, linear, angular in stops)
        assert last_moving - lost_at < 1.1  # the link limit, then no more motion
        assert time.monotonic() - sent.items[-1][0] > 0.3  # and then nothing is sent
        reason = session.status().teleop.reason
        assert "offline" in reason or "no data" in reason or "link" in reason, reason


@contextlib.contextmanager
def driving(kind: str, endpoint: str) -> Iterator[tuple[Station, TeleopSession, VirtualGamepad]]:
    """One simulated robot, a station, a session on it and a virtual controller plugged."""
    with one_robot(kind, endpoint):
        station = Station(BusConfig(mode="peer", connect=[endpoint]))
        session = TeleopSession(station)
        gamepad = Gamepad(session.set_input)
        try:
            wait_for(lambda: any(r.online and r.catalog for r in station.robots()), 8.0)
            robot_id = next(r.robot_id for r in station.robots() if r.online)
            session.select(robot_id)
            gamepad.start()
            pad = VirtualGamepad("Operator pad")
            wait_for(lambda: session.status().link.live, 8.0)
            yield station, session, pad
            pad.unplug()
        finally:
            gamepad.stop()
            session.close()
            station.close()


def test_the_humanoid_walks_and_its_hand_closes_from_the_triggers(free_endpoint: str) -> None:
    from tests.teleop.test_outputs_e2e import closure, joint_positions

    with driving("humanoid", free_endpoint) as (station, session, pad):
        proprio = Latest(station.bus, "fleet/humanoid-1/proprioception")
        pad.set_axis("lefty", -1.0)
        pad.press("leftshoulder")
        wait_held(session, pad, lambda: session.status().teleop.state is Arming.ARMED, 8.0)
        # Its hand's state is not reported as percentages: the triggers move it only once a
        # preset has set a target (d-pad up: open).
        assert session.status().teleop.hand_note
        pad.press("dpup")  # held: a preset applies while driving (a late tick may latch)
        wait_held(session, pad, lambda: session.status().teleop.hand is not None, 3.0)
        pad.release("dpup")
        pad.set_axis("righttrigger", 1.0)  # close the hand...
        time.sleep(0.5)
        pad.set_axis("righttrigger", 0.0)  # ...about half way
        time.sleep(0.3)
        walked = time.time()
        pad.release("leftshoulder")
        wait_for(lambda: session.status().teleop.state is not Arming.ARMED, 1.0)
        hand = session.status().teleop.hand
        assert hand is not None and 20.0 < hand[1] < 90.0
        legs = [joint_positions(p)["left_hip_pitch"] for p in proprio.between(walked - 0.6,
                                                                              walked)]
        assert max(legs) - min(legs) > 0.1  # it walked
        grip = joint_positions(proprio.after(time.time() + 0.6))  # the hand held on the stop
        assert closure("right_index_pip", grip["right_index_pip"]) == \
            pytest.approx(hand[1] / 100, abs=0.03)


def test_the_car_drives_in_drive_and_backs_up_in_reverse(free_endpoint: str) -> None:
    with driving("car", free_endpoint) as (station, session, pad):
        ego = Latest(station.bus, "fleet/car-1/entities/car-1")

        def speed() -> float:
            return ego.after(time.time())["actionStatus"]["twist"]["linear"]["x"]

        def held(predicate: Callable[[], object], timeout: float) -> None:
            wait_held(session, pad, predicate, timeout)

        pad.press("leftshoulder")
        pad.press("y")  # drive
        held(lambda: session.status().teleop.state is Arming.ARMED, 3.0)
        pad.release("y")
        pad.set_axis("lefty", -1.0)
        held(lambda: speed() > 1.0, 5.0)
        pad.set_axis("lefty", 0.0)
        held(lambda: abs(speed()) < 0.05, 6.0)
        pad.press("a")  # reverse, taken only at standstill
        held(lambda: session.status().teleop.gear is Gear.REVERSE, 3.0)
        pad.release("a")
        pad.set_axis("lefty", -1.0)
        held(lambda: speed() < -1.0, 6.0)  # backing up
        pad.release("leftshoulder")
        wait_for(lambda: abs(speed()) < 0.05, 6.0)
        assert session.status().teleop.gear is Gear.REVERSE  # a stop keeps the gear
