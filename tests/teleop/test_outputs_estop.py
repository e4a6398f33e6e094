"""The e-stop sender on a real zenoh session, against a robot status the test controls."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.bus.outbox import Outbox
from app.bus.session import BusSession
from app.bus.subscription import Subscription
from app.codec.fields import plain
from app.station.vitals import RobotVitals, Status
from app.teleop.estop import EStopSender
from tests.bus.helpers import wait_for

KEY = "fleet/rover-1/command/estop"


class Vitals:
    """The robot's status as the station would have it; ``report`` is a status arriving."""

    def __init__(self) -> None:
        self.vitals: RobotVitals | None = None

    def get(self, robot_id: str) -> RobotVitals | None:
        return self.vitals if robot_id == "rover-1" else None

    def report(self, estop: bool) -> None:
        status = Status("idle", estop, "", 1.0, 0, None, time.monotonic())
        self.vitals = dataclasses.replace(self.vitals or RobotVitals("rover-1"), status=status)


@pytest.fixture
def bus(open_session: Callable[..., BusSession]) -> BusSession:
    return open_session(mode="peer", listen=[], connect=[])


@pytest.fixture
def heard(bus: BusSession) -> Subscription:
    """What the session publishes on the e-stop key (zenoh delivers it locally too)."""
    return Subscription(bus, KEY, depth=1024)


@pytest.fixture
def sender(bus: BusSession) -> Iterator[tuple[EStopSender, Vitals]]:
    vitals = Vitals()
    sender = EStopSender(Outbox(lambda: bus), vitals, "rover-1", repeat_s=0.05)
    try:
        yield sender, vitals
    finally:
        sender.close()


def commands(sub: Subscription) -> list[dict[str, Any]]:
    out = []
    for sample in sub.take():
        message = sub.decode(sample)
        assert message.type_name == "fleet.Command"
        out.append(plain(message.root))
    return out


def test_engage_repeats_until_reported_then_stops(
        sender: tuple[EStopSender, Vitals], heard: Subscription) -> None:
    estop, vitals = sender
    vitals.report(False)  # a status from before the e-stop confirms nothing
    estop.engage("test")
    sent: list[dict] = []  # what the robot side heard (the last repeat may be on the wire)
    wait_for(lambda: sent.extend(commands(heard)) or len(sent) >= 5, 3.0)
    assert {(c["robotId"], c["estop"]["engage"], c["estop"]["reason"]) for c in sent} == \
        {("rover-1", True, "test")}
    seqs = [c["seq"] for c in sent]
    assert seqs == sorted(set(seqs))  # each repeat is a new, increasing command
    state = estop.status()
    assert state.engaged and state.sending and not state.confirmed

    vitals.report(True)
    wait_for(lambda: estop.status().confirmed, 2.0)
    commands(heard)
    time.sleep(0.3)
    assert commands(heard) == []  # reported: no more repeats
    state = estop.status()
    assert state.engaged and not state.sending and state.reason == "engaged: reported by the robot"


def test_engaged_but_reported_released_is_sent_again(
        sender: tuple[EStopSender, Vitals], heard: Subscription) -> None:
    estop, vitals = sender
    estop.engage()
    vitals.report(True)
    wait_for(lambda: estop.status().confirmed, 2.0)
    commands(heard)
    vitals.report(False)  # the robot rebooted, say
    wait_for(lambda: len(commands(heard)) > 0, 2.0)
    assert estop.status().sending and estop.status().engaged


def test_release_repeats_until_reported_and_gives_up_in_time(
        bus: BusSession, heard: Subscription) -> None:
    vitals = Vitals()
    estop = EStopSender(Outbox(lambda: bus), vitals, "rover-1", repeat_s=0.05,
                        release_timeout_s=0.5)
    try:
        estop.engage()
        vitals.report(True)
        wait_for(lambda: estop.status().confirmed, 2.0)
        commands(heard)
        estop.release()
        wait_for(lambda: estop.status().sent >= 3, 2.0)
        assert {c["estop"]["engage"] for c in commands(heard)} == {False}
        wait_for(lambda: not estop.status().sending, 2.0)  # the robot never reported it
        state = estop.status()
        assert not state.confirmed and state.reason == "release not reported in 0.5 s"
        commands(heard)
        time.sleep(0.2)
        assert commands(heard) == []

        estop.release()  # asked again: the robot reports it this time
        vitals.report(False)
        wait_for(lambda: estop.status().confirmed, 2.0)
        assert not estop.status().engaged
    finally:
        estop.close()


def test_not_connected_keeps_trying_without_failing() -> None:
    vitals = Vitals()
    estop = EStopSender(Outbox(lambda: None), vitals, "rover-1", repeat_s=0.02)
    try:
        estop.engage()
        wait_for(lambda: "not connected" in estop.status().reason, 2.0)
        state = estop.status()
        assert state.sending and state.sent == 0 and state.engaged
    finally:
        estop.close()
