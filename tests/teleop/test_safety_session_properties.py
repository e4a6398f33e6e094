"""Properties of the teleop session, not only of its arming machine: a session on a real
station, connected over loopback to a simulated rover and humanoid, its command clock
ticked by the test, takes random sequences of robot switches, e-stops engaged and
released, and readings. Whatever the sequence:

- nothing that moves goes to a robot that is not the one selected, nor to a robot whose
  e-stop is engaged here;
- after a switch the old robot's last messages are stops (heard by the robot);
- an engaged e-stop keeps being sent to every robot it was meant for until that robot
  reports it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.bus.config import BusConfig
from app.bus.publisher import Traffic
from app.codec.decode import decode, encoding_for
from app.inputs.model import InputState
from app.sim.fleet import SimFleet
from app.station.station import Station
from app.teleop.clock import Tick
from app.teleop.session import TeleopSession
from tests.bus.helpers import wait_for
from tests.conftest import free_port
from tests.teleop.heard import Heard, motion_of

pytestmark = pytest.mark.slow
ROBOTS = ("rover-1", "humanoid-1")
PERIOD_S = 0.05


@dataclass(frozen=True)
class Sent:
    robot: str
    moving: bool
    traffic: Traffic
    selected: str | None  # the robot selected when it left
    engaged: frozenset[str]  # the robots e-stopped here when it left


@pytest.fixture(scope="module")
def fleet() -> Iterator[tuple[SimFleet, Station]]:
    endpoint = f"tcp/127.0.0.1:{free_port()}"
    with SimFleet(["rover", "humanoid"], listen=[endpoint], points=2_000) as fleet:
        station = Station(BusConfig(mode="peer", connect=[endpoint]))
        try:
            wait_for(lambda: sum(bool(r.online and r.catalog) for r in station.robots()) == 2,
                     15)
            yield fleet, station
        finally:
            station.close()


class Driver:
    """A session whose clock the test ticks, and the model of what the operator did."""

    def __init__(self, station: Station) -> None:
        self.session = TeleopSession(station, focus_disarms=False)
        self.session.controller._clock.stop()  # the test ticks it
        self.selected: str | None = None
        self.engaged: set[str] = set()
        self.sent: list[Sent] = []
        self._lock = threading.Lock()
        wire = self.session._outbox
        send = wire.send

        def recorded(outgoing: list[Any]) -> bool:
            for out in outgoing:
                if out.traffic is Traffic.ESTOP:  # the e-stop senders share the outbox
                    continue
                message = decode(encoding_for(out.type_name), out.payload, None)
                with self._lock:
                    self.sent.append(Sent(out.key.split("/")[1],
                                          motion_of(message.type_name, message.root)[1],
                                          out.traffic, self.selected,
                                          frozenset(self.engaged)))
            return send(outgoing)

        wire.send = recorded  # type: ignore[method-assign]
        self._last_tick = time.monotonic()

    def do(self, action: tuple[Any, ...]) -> None:
        kind = action[0]
        if kind == "select":
            self.selected = action[1]
            self.session.select(action[1])
        elif kind == "estop":
            self.engaged |= {self.selected} if self.selected else set(ROBOTS)
            self.session.engage_estop()
        elif kind == "release":
            self.engaged.discard(action[1])
            self.session.release_estop(action[1])
        elif kind == "input":
            self.read(deadman=action[1], push=action[2])
        elif kind == "drive":  # what an operator does: the deadman up, then held, pushing
            self.read(deadman=False, push=0.0)
            self.tick()
            self.read(deadman=True, push=1.0)
        for _ in range(action[-1] if kind in ("tick", "drive") else 1):
            self.tick()

    def read(self, deadman: bool, push: float) -> None:
        self.session.set_input(InputState(
            axes={"lefty": -push}, buttons=frozenset({"leftshoulder"} if deadman else ()),
            read_at=time.monotonic(), device="pad", device_id="pad"))

    def tick(self) -> None:
        now = time.monotonic()
        self.session.controller.tick(Tick(now, 0.0, False, now - self._last_tick))
        self._last_tick = now

    def sent_to(self, robot: str) -> list[Sent]:
        with self._lock:
            return [s for s in self.sent if s.robot == robot]


robots = st.sampled_from(ROBOTS)
drive = st.tuples(st.just("drive"), st.integers(1, 4))
actions = st.lists(st.one_of(
    drive, drive, drive,
    st.tuples(st.just("select"), st.one_of(st.none(), robots)),
    st.tuples(st.just("estop")),
    st.tuples(st.just("release"), robots),
    st.tuples(st.just("input"), st.booleans(), st.sampled_from([0.0, 1.0])),
    st.tuples(st.just("tick"), st.integers(1, 4)),
), min_size=1, max_size=25)


def release_all(driver: Driver, station: Station) -> None:
    for robot in ROBOTS:
        driver.session.release_estop(robot)
    wait_for(lambda: not any((v := station.vitals.get(r)) is not None and v.status is not None
                             and v.status.estop for r in ROBOTS), 5)


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=actions)
def test_whatever_the_operator_does_the_session_keeps_the_safety_rules(
        fleet: tuple[SimFleet, Station], steps: list[tuple[Any, ...]]) -> None:
    hub_fleet, station = fleet
    heard = Heard(hub_fleet)
    driver = Driver(station)
    try:
        driver.do(("select", "rover-1"))
        wait_for(lambda: driver.session.status().link.live, 5)
        for step in steps:
            driver.do(step)
        assert driver.session.flush()
        ended = time.monotonic()

        for sent in driver.sent:
            if sent.moving:
                assert sent.robot == sent.selected  # only the robot selected moves...
                assert sent.robot not in sent.engaged  # ...and never one e-stopped here
                assert sent.traffic is Traffic.TELEOP

        for robot in ROBOTS:
            to_robot = driver.sent_to(robot)
            if robot != driver.selected and to_robot:
                # the old robot's last word is a stop, one the station never drops
                assert not to_robot[-1].moving and to_robot[-1].traffic is Traffic.STOP

        for robot in driver.engaged:
            assert driver.session.estops()[robot].engaged
            # still being sent after all the switching, until the robot reports it
            wait_for(lambda r=robot: driver.session.estops()[r].confirmed or any(
                c.what == "estop" for c in heard.of(r, ended)), 2)
        statuses = driver.session.estops()
        for robot in set(ROBOTS) - driver.engaged:
            assert robot not in statuses or not statuses[robot].engaged
        driver.tick()
        shown = driver.session.controller.status()
        assert shown.estop == (driver.selected in driver.engaged if driver.selected
                               else bool(driver.engaged))
    finally:
        release_all(driver, station)
        driver.session.close()
