"""Hidden panels cost nothing: a 1M-point cloud nobody wants is not even sent to the station."""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest

from app.bus.config import BusConfig
from app.sim.fleet import SimFleet
from app.station.station import Station
from tests.bus.helpers import wait_for
from tests.conftest import free_port

CLOUD = "fleet/rover-1/lidar/points"
STATUS = "fleet/rover-1/uplink/motion"


@dataclass
class Cost:
    cpu_per_s: float  # the station's own work: zenoh callback, lanes, worker
    copied: int  # bytes of the cloud taken out of zenoh
    received: int  # bytes of the cloud that arrived at the station


def own_cpu(station: Station) -> float:
    return station.callback_cpu_s() + station.worker_cpu_s + station.feeds.cpu_s()


def cost_with_cloud_of(points: int, seconds: float = 3.0) -> Cost:
    endpoint = f"tcp/127.0.0.1:{free_port()}"
    station = Station(BusConfig(mode="peer", connect=[endpoint]))
    try:
        with SimFleet(["rover"], listen=[endpoint], points=points):
            wait_for(lambda: station.topics().get(STATUS) and
                     station.topics()[STATUS].count >= 10 and CLOUD in station.topics(),
                     timeout=30)
            # Until the robot's catalog came, the station heard the robot whole, as the
            # contract has it (a cloud may have come then): measured from here on.
            start = station.topics()[CLOUD]
            before, started = own_cpu(station), time.monotonic()
            time.sleep(seconds)
            cpu = (own_cpu(station) - before) / (time.monotonic() - started)
            stats = station.topics()[CLOUD]
            assert not stats.listening
            return Cost(cpu, stats.copied_bytes - start.copied_bytes, stats.bytes - start.bytes)
    finally:
        station.close()


@pytest.mark.slow
def test_a_big_cloud_nobody_wants_costs_what_a_tiny_one_does() -> None:
    big = cost_with_cloud_of(1_000_000)
    tiny = cost_with_cloud_of(1)
    assert big.received == 0  # the 16 MB cloud (5 Hz in the sim) stayed on the robot
    assert big.copied == 0
    # Copying 16 MB costs ~1-2 ms: at 5 Hz that alone would add ~0.005-0.01 s of CPU a second.
    assert big.cpu_per_s <= tiny.cpu_per_s * 1.5 + 0.005, (big, tiny)
