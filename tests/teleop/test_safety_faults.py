"""A critical fault blocks driving until the robot says it is gone: it is kept over the
station's reconnect (the robot need not repeat it at once) until the robot repeats or
clears it, and a bow robot's error that opens with "critical" or "fatal" is critical.
Real capnp bytes; the reconnect on real zenoh with the simulated rover."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from app.bus.config import BusConfig
from app.bus.publisher import Publisher, Traffic
from app.codec.decode import decode, encoding_for
from app.codec.registry import registry
from app.sim.fleet import SimFleet
from app.station.station import Station
from app.station.vitals import CARRIED_FAULT_S, VitalsBook
from app.teleop.session import TeleopSession
from tests.bus.helpers import wait_for

ROVER = "rover-1"
UPLINK = "fleet.Uplink"
INTEROCEPTION = "bow.InteroceptionSample"


def fault_bytes(code: str, severity: str, active: bool, robot: str = ROVER) -> bytes:
    message = registry().struct(UPLINK).new_message(robotId=robot,
                                                    unixTimeMs=time.time_ns() // 10**6)
    fault = message.init("fault")
    fault.code, fault.severity, fault.message = code, severity, f"{code} happened"
    fault.active, fault.source, fault.raisedUnixTimeMs = active, "test", 1_000
    return bytes(message.to_bytes())


def status_bytes(robot: str = ROVER) -> bytes:
    message = registry().struct(UPLINK).new_message(robotId=robot, unixTimeMs=1)
    message.init("status")
    return bytes(message.to_bytes())


def errors_bytes(*errors: str) -> bytes:
    message = registry().struct(INTEROCEPTION).new_message()
    message.error = list(errors)
    return bytes(message.to_bytes())


def offer(book: VitalsBook, type_name: str, payload: bytes, at: float,
          robot: str = ROVER) -> None:
    decoded = decode(encoding_for(type_name), payload, None)
    assert book.offer(robot, decoded.type_name, decoded.root, at)


def active(book: VitalsBook, robot: str = ROVER) -> dict[str, Any]:
    vitals = book.get(robot)
    return {} if vitals is None else {f.code: f for f in vitals.faults}


def test_a_critical_fault_is_kept_over_a_reconnect_until_the_robot_repeats_or_clears_it(
        ) -> None:
    book = VitalsBook()
    offer(book, UPLINK, fault_bytes("TILT", "critical", True), 1.0)
    offer(book, UPLINK, fault_bytes("RTK", "major", True), 1.0)
    book.forget(keep_critical=True)
    kept = active(book)
    assert set(kept) == {"TILT"} and kept["TILT"].carried
    offer(book, UPLINK, status_bytes(), 2.0)  # the robot back, not saying it yet
    assert active(book)["TILT"].carried
    offer(book, UPLINK, fault_bytes("TILT", "critical", True), 3.0)  # repeated: its own
    assert not active(book)["TILT"].carried

    book.forget(keep_critical=True)
    offer(book, UPLINK, fault_bytes("TILT", "critical", False), 4.0)  # cleared
    assert active(book) == {}
    history = book.get(ROVER).history  # type: ignore[union-attr]
    assert history[0].code == "TILT" and not history[0].active


def test_a_carried_fault_the_robot_does_not_repeat_goes_after_a_while() -> None:
    book = VitalsBook()
    offer(book, UPLINK, fault_bytes("TILT", "critical", True), 1.0)
    book.forget(keep_critical=True)
    offer(book, UPLINK, status_bytes(), 100.0)
    offer(book, UPLINK, status_bytes(), 100.0 + CARRIED_FAULT_S)
    assert "TILT" in active(book)
    offer(book, UPLINK, status_bytes(), 100.5 + CARRIED_FAULT_S)
    assert active(book) == {}


def test_the_old_sessions_fault_still_queued_after_a_reconnect_is_not_taken_as_repeated(
        ) -> None:
    book = VitalsBook()
    offer(book, UPLINK, fault_bytes("TILT", "critical", True), 1.0)
    book.forget(keep_critical=True, since=2.0)
    offer(book, UPLINK, fault_bytes("TILT", "critical", True), 1.5)  # heard before: old
    assert active(book)["TILT"].carried
    offer(book, UPLINK, fault_bytes("TILT", "critical", True), 2.5)
    assert not active(book)["TILT"].carried


def test_a_new_session_that_is_not_a_reconnect_starts_afresh() -> None:
    book = VitalsBook()
    offer(book, UPLINK, fault_bytes("TILT", "critical", True), 1.0)
    book.forget()
    assert book.get(ROVER) is None


def test_bow_errors_opening_with_critical_or_fatal_are_critical() -> None:
    book = VitalsBook()
    offer(book, INTEROCEPTION, errors_bytes(
        "CRITICAL: left_knee motor over temperature", "[fatal] power board",
        "E310 head_camera: auto-exposure lost"), 1.0, robot="humanoid-1")
    severities = {code: f.severity for code, f in active(book, "humanoid-1").items()}
    assert severities == {"CRITICAL: left_knee motor over temperature": "critical",
                          "[fatal] power board": "critical",
                          "E310 head_camera: auto-exposure lost": "major"}
    book.forget(keep_critical=True)
    assert set(active(book, "humanoid-1")) == {"CRITICAL: left_knee motor over temperature",
                                               "[fatal] power board"}
    offer(book, INTEROCEPTION, errors_bytes(), 2.0, robot="humanoid-1")  # all gone
    assert active(book, "humanoid-1") == {}


@pytest.fixture
def fleet(free_endpoint: str) -> Iterator[SimFleet]:
    with SimFleet(["rover"], listen=[free_endpoint], points=2_000) as fleet:
        yield fleet


@pytest.mark.slow
def test_driving_stays_blocked_over_a_reconnect_until_the_rover_clears_its_fault(
        fleet: SimFleet, free_endpoint: str) -> None:
    assert fleet.hub is not None
    faults = Publisher(fleet.hub, f"fleet/{ROVER}/uplink/fault", UPLINK, Traffic.TELEMETRY)
    station = Station(BusConfig(mode="peer", connect=[free_endpoint]))
    session = TeleopSession(station, focus_disarms=False)
    try:
        wait_for(lambda: any(r.online and r.catalog for r in station.robots()), 15)
        session.select(ROVER)

        def reason() -> str:
            return session.status().teleop.reason

        wait_for(lambda: session.status().link.live, 8)
        wait_for(lambda: (faults.put(fault_bytes("TILT", "critical", True)),
                          "critical fault: TILT" in reason())[1], 5)
        old_bus = station.bus
        station.reconnect(BusConfig(mode="peer", connect=[free_endpoint]))
        wait_for(lambda: station.bus is not None and station.bus is not old_bus, 5)
        wait_for(lambda: session.status().link.live, 8)  # the rover heard again...
        assert "critical fault: TILT" in reason()  # ...its fault not forgotten
        assert "before the reconnect" in reason()
        wait_for(lambda: (faults.put(fault_bytes("TILT", "critical", False)),
                          "critical fault" not in reason())[1], 5)
    finally:
        session.close()
        station.close()
