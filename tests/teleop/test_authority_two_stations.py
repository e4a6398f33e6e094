"""Command authority between two stations in two processes, on real zenoh with the
simulated rover: Ana's station takes control and drives; Bo's sees who holds it, its
controller sends nothing, its e-stop works; Ana's process is killed while driving: the
rover stops by its own watchdog, and Bo sees control released and takes it; the same when
Ana's link to the router is cut instead."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.bus.config import LEASE_MS, BusConfig
from app.sim.fleet import SimFleet
from app.station.identity import StationIdentity
from app.station.station import Station
from app.teleop.arming import Arming
from app.teleop.session import TeleopSession
from tests.bus.helpers import wait_for
from tests.teleop.frozen_link import FreezableLink
from tests.teleop.heard import Pad
from tests.teleop.test_outputs_e2e import Latest

pytestmark = pytest.mark.slow
ROVER = "rover-1"
ROOT = Path(__file__).resolve().parents[2]


class Lines:
    """What a process prints, line by line, read on a thread."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.items: list[str] = []
        assert process.stdout is not None
        self._stdout = process.stdout
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self._stdout:
            self.items.append(line.strip())


@pytest.fixture
def fleet(free_endpoint: str) -> Iterator[SimFleet]:
    with SimFleet(["rover"], listen=[free_endpoint], points=2_000) as fleet:
        yield fleet


def start_ana(endpoint: str, answer: str = "decline") -> tuple[subprocess.Popen[str], Lines]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.teleop.driving_station", endpoint, "Ana", ROVER, answer],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy"})
    return process, Lines(process)


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.kill()
    process.wait(10)


@pytest.fixture
def ana(fleet: SimFleet, free_endpoint: str) -> Iterator[tuple[subprocess.Popen[str], Lines]]:
    process, said = start_ana(free_endpoint)
    try:
        yield process, said
    finally:
        stop(process)


def test_one_drives_the_other_watches_and_e_stops_and_takes_over_when_it_dies(
        fleet: SimFleet, ana: tuple[subprocess.Popen[str], Lines], free_endpoint: str
) -> None:
    process, said = ana
    bo = Station(BusConfig(mode="client", connect=[free_endpoint]),
                 identity=StationIdentity.new("Bo"))
    session = TeleopSession(bo, focus_disarms=False)
    pad = Pad(session, regrip=True)
    try:
        motion = Latest(bo.bus or wait_for(lambda: bo.bus, 5), f"fleet/{ROVER}/uplink/motion")
        wait_for(lambda: "driving" in said.items, 20, why=lambda: said.items)
        wait_for(lambda: motion.after(time.time())["motion"]["velocity"]["linearMps"] > 0.1,
                 5)
        robot = wait_for(lambda: bo.robot(ROVER), 5)
        wait_for(lambda: (r := bo.robot(ROVER)) is not None and r.controlled_by == \
                 "Ana (operator)", 5, why=lambda: bo.robot(ROVER))
        assert not robot.controlled_here

        session.select(ROVER)  # Bo's controller, deadman held: view only
        pad.deadman = True
        wait_for(lambda: session.status().teleop.reason == "controlled by Ana (operator)", 5,
                 why=lambda: session.status().teleop.reason)
        assert session.status().teleop.state is Arming.DISARMED
        assert session.status().teleop.sent == 0
        assert session.estop_release_refusal(ROVER) == \
            "releasing the e-stop needs control: controlled by Ana (operator)"

        session.engage_estop()  # everyone's
        wait_for(lambda: motion.after(time.time())["motion"]["velocity"]["linearMps"] == 0.0,
                 3)
        wait_for(lambda: (v := bo.vitals.snapshot().get(ROVER)) is not None
                 and v.status is not None and v.status.estop, 5)
        assert not session.release_estop(ROVER)  # the release is the holder's

        pad.deadman = False
        killed = time.monotonic()
        process.send_signal(signal.SIGKILL)
        wait_for(lambda: (h := bo.authority.control(ROVER).holder) is None or h.name == "Bo",
                 5)
        released_after = time.monotonic() - killed
        assert released_after < 3.0  # the zenoh lease (a dead process's link ends at once)
        pad.deadman = True  # Bo presses to drive: control is taken with it, nobody holds it
        wait_for(lambda: (r := bo.robot(ROVER)) is not None and r.controlled_here, 5)
        assert session.release_estop(ROVER)
        wait_for(lambda: (v := bo.vitals.snapshot().get(ROVER)) is not None
                 and v.status is not None and not v.status.estop, 5)
        wait_for(lambda: motion.after(time.time())["motion"]["velocity"]["linearMps"] > 0.1,
                 5, why=lambda: session.status().teleop.reason)
    finally:
        pad.close()
        session.close()
        bo.close()


def test_a_driving_station_killed_leaves_the_rover_stopping_by_itself(
        fleet: SimFleet, ana: tuple[subprocess.Popen[str], Lines], free_endpoint: str
) -> None:
    process, said = ana
    watcher = Station(BusConfig(mode="client", connect=[free_endpoint]))
    try:
        motion = Latest(wait_for(lambda: watcher.bus, 5), f"fleet/{ROVER}/uplink/motion")
        wait_for(lambda: "driving" in said.items, 20, why=lambda: said.items)
        wait_for(lambda: motion.after(time.time())["motion"]["velocity"]["linearMps"] > 0.1,
                 5)
        process.send_signal(signal.SIGKILL)
        killed = time.time()
        process.wait(5)
        stopped = motion.after(killed + 0.5 + 0.15)  # its watchdog, and a report after
        assert stopped["motion"]["velocity"]["linearMps"] == 0.0
    finally:
        watcher.close()


def test_a_driving_station_cut_off_from_the_router_loses_control_and_the_rover_stops(
        fleet: SimFleet, free_endpoint: str) -> None:
    link = FreezableLink(int(free_endpoint.rsplit(":", 1)[1]))
    process, said = start_ana(link.endpoint)
    bo = Station(BusConfig(mode="client", connect=[free_endpoint]),
                 identity=StationIdentity.new("Bo"))
    try:
        motion = Latest(wait_for(lambda: bo.bus, 5), f"fleet/{ROVER}/uplink/motion")
        wait_for(lambda: "driving" in said.items, 20, why=lambda: said.items)
        wait_for(lambda: motion.after(time.time())["motion"]["velocity"]["linearMps"] > 0.1,
                 5)
        wait_for(lambda: (h := bo.authority.control(ROVER).holder) is not None
                 and h.name == "Ana", 5)
        link.freeze()
        cut = time.time()
        cut_at = time.monotonic()
        stopped = motion.after(cut + 0.5 + 0.15)  # its watchdog, and a report after
        assert stopped["motion"]["velocity"]["linearMps"] == 0.0
        wait_for(lambda: bo.authority.control(ROVER).holder is None, LEASE_MS / 1000 + 3)
        assert time.monotonic() - cut_at < LEASE_MS / 1000 + 1.5  # within the lease
        assert bo.authority.take(ROVER) == ""
    finally:
        bo.close()
        stop(process)
        link.close()


@pytest.mark.parametrize("answer", ["grant", "decline"])
def test_asked_for_control_the_driving_station_grants_it_or_declines(
        fleet: SimFleet, free_endpoint: str, answer: str) -> None:
    process, said = start_ana(free_endpoint, answer)
    bo = Station(BusConfig(mode="client", connect=[free_endpoint]),
                 identity=StationIdentity.new("Bo"))
    try:
        wait_for(lambda: bo.bus, 5)
        wait_for(lambda: "driving" in said.items, 20, why=lambda: said.items)
        wait_for(lambda: (h := bo.authority.control(ROVER).holder) is not None
                 and h.name == "Ana", 5)
        result = bo.authority.request(ROVER, timeout_s=5)
        wait_for(lambda: "asked by Bo (operator)" in said.items, 5, why=lambda: said.items)
        if answer == "grant":
            assert result == ""
            assert bo.authority.control(ROVER).mine
            wait_for(lambda: "control: controlled by Bo (operator)" in said.items, 5,
                     why=lambda: said.items)
        else:
            assert result == "Ana (operator) declined"
            assert not bo.authority.control(ROVER).mine
    finally:
        bo.close()
        stop(process)
