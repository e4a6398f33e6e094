"""On a real simulated rover over zenoh: its point cloud and camera reach the station only
while something wants them; its status always does."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from app.bus.config import BusConfig
from app.sim.fleet import SimFleet
from app.station.interests import Latest
from app.station.station import Station
from tests.bus.helpers import wait_for

CLOUD = "fleet/rover-1/lidar/points"
IMAGE = "fleet/rover-1/camera/compressed"
STATUS = "fleet/rover-1/uplink/status"


@pytest.fixture
def station(free_endpoint: str) -> Iterator[Station]:
    with SimFleet(["rover"], listen=[free_endpoint], points=2_000):
        station = Station(BusConfig(mode="client", connect=[free_endpoint]))
        try:
            wait_for(lambda: any(r.catalog for r in station.robots()), timeout=15)
            yield station
        finally:
            station.close()


def count(station: Station, key: str) -> int:
    stats = station.topics().get(key)
    return stats.count if stats is not None else -1


def test_heavy_topics_are_heard_only_while_wanted(station: Station) -> None:
    wait_for(lambda: count(station, STATUS) >= 2, timeout=10)
    time.sleep(0.3)  # until its catalog was in, the robot was heard whole
    heard = count(station, CLOUD), count(station, IMAGE)
    time.sleep(1.0)  # the rover's cloud (5 Hz) and camera (10 Hz) would have come by now
    topics = station.topics()
    assert not topics[CLOUD].listening and not topics[IMAGE].listening
    assert (topics[CLOUD].count, topics[IMAGE].count) == heard
    assert topics[STATUS].listening and topics[STATUS].count > 2

    station.set_interests({Latest(CLOUD)})
    wait_for(lambda: count(station, CLOUD) >= heard[0] + 3, timeout=10)
    assert station.topics()[CLOUD].listening
    assert count(station, IMAGE) == heard[1]
    wait_for(lambda: station.feeds.latest.get(CLOUD) is not None, timeout=5)

    station.set_interests(set())
    wait_for(lambda: not station.topics()[CLOUD].listening, timeout=5)
    time.sleep(0.3)  # samples already on their way
    settled = count(station, CLOUD)
    time.sleep(1.0)
    assert count(station, CLOUD) == settled, "the cloud kept coming after nobody wanted it"
