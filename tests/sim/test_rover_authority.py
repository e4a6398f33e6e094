"""The simulated rover enforces command authority on the wire: while a station holds its
control, only that station's commands count; anyone's e-stop engages it; the release is the
holder's; with nobody in control, anyone's commands count again."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.bus.config import BusConfig
from app.bus.control import issuer_attachment
from app.bus.keys import command_key
from app.bus.publisher import Publisher, Traffic
from app.bus.session import BusSession
from app.codec.registry import registry
from app.sim.rover import SimRover
from app.station.identity import StationIdentity
from app.station.station import Station
from tests.bus.helpers import wait_for
from tests.sim.test_rover import ROBOT, Uplinks, _moved

TRAFFIC = {"teleop": Traffic.TELEOP, "estop": Traffic.ESTOP}


class Sender:
    """Commands as a station sends them: each names its issuer in the attachment."""

    def __init__(self, put: Callable[[str, Any, Traffic, bytes | None], None],
                 issuer: str) -> None:
        self.put, self.issuer, self.seq = put, issuer, 0

    def send(self, member: str, fill: Callable[[Any], None]) -> None:
        self.seq += 1
        command = registry().struct("fleet.Command").new_message(
            robotId=ROBOT, unixTimeMs=time.time_ns() // 1_000_000, seq=self.seq)
        fill(command.init(member))
        self.put(command_key(ROBOT, member), command, TRAFFIC.get(member, Traffic.COMMAND),
                 issuer_attachment(self.issuer))

    def teleop(self, linear: float, seconds: float) -> float:
        end = time.monotonic() + seconds
        while True:
            def fill(twist: Any) -> None:
                twist.linearMps, twist.angularRps = linear, 0.0
            self.send("teleop", fill)
            if time.monotonic() >= end:
                return time.time()
            time.sleep(0.05)

    def estop(self, engage: bool) -> None:
        def fill(estop: Any) -> None:
            estop.engage, estop.reason = engage, "test"
        self.send("estop", fill)


def raw_put(bus: BusSession) -> Callable[[str, Any, Traffic, bytes | None], None]:
    publishers: dict[str, Publisher] = {}

    def put(key: str, message: Any, traffic: Traffic, attachment: bytes | None) -> None:
        if key not in publishers:
            publishers[key] = Publisher(bus, key, "fleet.Command", traffic)
        publishers[key].put(message, attachment)
    return put


def through_outbox(station: Station) -> Callable[[str, Any, Traffic, bytes | None], None]:
    def put(key: str, message: Any, traffic: Traffic, attachment: bytes | None) -> None:
        assert station.outbox.put(key, "fleet.Command", traffic, message)
    return put


@pytest.fixture
def rover(free_endpoint: str) -> Iterator[SimRover]:
    from tests.sim.running import one_robot

    with one_robot("rover", free_endpoint, points=2_000) as robot:
        assert isinstance(robot, SimRover)
        yield robot


def test_only_the_station_in_control_drives_it_and_anyone_stops_it(
        rover: SimRover, app_bus: BusSession, free_endpoint: str) -> None:
    uplinks = Uplinks(app_bus)
    uplinks.wait(lambda: bool(uplinks.seen["motion"]), 3.0, "motion")
    ana = Station(BusConfig(mode="peer", connect=[free_endpoint]),
                  identity=StationIdentity.new("Ana"))
    try:
        wait_for(lambda: ana.bus is not None, 5)
        assert ana.authority.take(ROBOT) == ""
        assert rover.claims is not None
        wait_for(lambda: (h := rover.claims.holder(ROBOT)) is not None and h.name == "Ana", 5)
        other = Sender(raw_put(app_bus), "b0b")
        start = uplinks.latest("motion")
        last = other.teleop(1.0, 0.6)
        wait_for(lambda: rover.ignored_not_in_control >= 10, 3)
        assert _moved(uplinks.at("motion", last + 0.1), start) == (0.0, 0.0)
        said = "command from station b0b ignored: Ana (operator) is in control"
        uplinks.wait(lambda: any(m["text"] == said for m in uplinks.values("message")), 3.0,
                     "the rover saying why")

        mine = Sender(through_outbox(ana), ana.identity.station_id)
        last = mine.teleop(1.0, 0.6)
        driven = uplinks.at("motion", last)
        assert _moved(driven, start)[0] > 0.2

        other.estop(True)  # anyone's e-stop counts
        uplinks.wait(lambda: uplinks.latest("status")["estop"] is True, 2.0, "the e-stop")
        ignored = rover.ignored_not_in_control
        other.estop(False)  # but not anyone's release
        wait_for(lambda: rover.ignored_not_in_control > ignored, 3)
        assert uplinks.at("status", time.time() + 0.6)["estop"] is True
        mine.estop(False)
        uplinks.wait(lambda: uplinks.latest("status")["estop"] is False, 2.0, "the release")

        ana.authority.release(ROBOT)  # nobody in control: anyone's commands count again
        wait_for(lambda: rover.claims is not None and rover.claims.holder(ROBOT) is None, 5)
        before = uplinks.latest("motion")
        last = other.teleop(1.0, 0.6)
        assert _moved(uplinks.at("motion", last), before)[0] > 0.2
    finally:
        ana.close()
