"""The station model on a real session: connection state, robots, feeds."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from app.bus.config import BusConfig
from app.bus.session import BusSession
from app.sim.fleet import SimFleet
from app.station.interests import Latest, Series
from app.station.station import Station
from tests.bus.helpers import wait_for


@pytest.fixture
def station(free_endpoint: str) -> Iterator[Station]:
    station = Station(BusConfig(mode="peer", connect=[free_endpoint]))
    try:
        yield station
    finally:
        station.close()


def test_connection_goes_offline_and_recovers_by_itself(free_endpoint, station) -> None:
    router = BusSession(BusConfig(mode="router", listen=[free_endpoint]))
    try:
        wait_for(lambda: station.status.session == "online", timeout=10)
        router.close()
        wait_for(lambda: station.status.session == "offline", timeout=5)
        assert free_endpoint in station.status.detail
        router = BusSession(BusConfig(mode="router", listen=[free_endpoint]))
        wait_for(lambda: station.status.session == "online", timeout=15)
    finally:
        router.close()


def test_a_client_started_before_its_router_connects_once_the_router_is_up(
        free_endpoint) -> None:
    station = Station(BusConfig(mode="client", connect=[free_endpoint]))
    router = None
    try:
        wait_for(lambda: station.status.session == "error")
        assert "trying again" in station.status.detail  # said, not left for a click
        router = BusSession(BusConfig(mode="router", listen=[free_endpoint]))
        with SimFleet(["rover"], connect=[free_endpoint], points=2_000):
            wait_for(lambda: station.status.session == "online", timeout=15)
            wait_for(lambda: (r := station.robot("rover-1")) is not None and r.online, 15)
    finally:
        station.close()
        if router is not None:
            router.close()


def test_unusable_config_is_a_visible_error(tmp_path) -> None:
    station = Station(BusConfig(config_file=str(tmp_path / "missing.json5")))
    try:
        wait_for(lambda: station.status.session == "error")
        assert "not found" in station.status.detail
    finally:
        station.close()


def test_robots_with_catalogs_and_vitals(free_endpoint, station) -> None:
    with SimFleet(["rover", "humanoid"], listen=[free_endpoint], points=2_000) as fleet:
        def ready() -> bool:
            robots = {r.robot_id: r for r in station.robots()}
            return (set(robots) == {"rover-1", "humanoid-1"}
                    and all(r.catalog and r.battery_pct is not None for r in robots.values())
                    and robots["rover-1"].mode != "")

        wait_for(ready, timeout=15)
        robots = {r.robot_id: r for r in station.robots()}
        assert robots["rover-1"].model == "sim-rover"
        assert robots["rover-1"].families == ["fleet", "isaac", "foxglove"]
        assert robots["rover-1"].mode == "idle"
        assert 0 < robots["humanoid-1"].battery_pct <= 100
        assert station.status.robots_online == 2
        one = station.robot("rover-1")  # one robot, reading only its own topics
        assert one is not None and one.last_data is not None
        assert (one.robot_id, one.online, one.model, one.catalog) == \
            ("rover-1", True, "sim-rover", robots["rover-1"].catalog)
        assert one.last_data >= robots["rover-1"].last_data  # type: ignore[operator]
        assert station.robot("nobody") is None
        fleet.robots[1].stop()
        wait_for(lambda: not {r.robot_id: r for r in station.robots()}["humanoid-1"].online,
                 timeout=2)


def test_feeds_decode_only_what_is_wanted(free_endpoint, station) -> None:
    with SimFleet(["rover"], listen=[free_endpoint], points=2_000):
        wait_for(lambda: "fleet/rover-1/uplink/motion" in station.topics(), timeout=10)
        time.sleep(0.5)
        assert station.feeds.latest == {}  # nobody asked: nothing decoded
        motion = Series("fleet/rover-1/uplink/motion", "motion.pose.latDeg")
        station.set_interests({Latest("fleet/rover-1/uplink/motion"), motion})
        latest = wait_for(lambda: station.feeds.latest.get("fleet/rover-1/uplink/motion"))
        assert latest.type_name == "fleet.Uplink"
        assert latest.tree["motion"]["gpsSource"] == "simulated"
        wait_for(lambda: len(station.feeds.series[motion]) >= 10, timeout=5)
        t, y = station.feeds.series[motion].arrays()
        assert (t[1:] >= t[:-1]).all() and y.min() > 47 and y.max() < 48
        station.set_interests(set())
        assert station.feeds.latest == {} and station.feeds.series == {}


def test_a_series_on_a_missing_field_reports_why(free_endpoint, station) -> None:
    with SimFleet(["rover"], listen=[free_endpoint], points=2_000):
        bad = Series("fleet/rover-1/uplink/motion", "motion.noSuchField")
        station.set_interests({bad})
        buffer = station.feeds.series[bad]
        wait_for(lambda: buffer.error, timeout=10)
        assert "noSuchField" in buffer.error and len(buffer) == 0


def test_a_closed_or_reconnected_station_leaves_no_receiving_thread_behind(
        free_endpoint) -> None:
    """Each session's drain thread wakes every few milliseconds: a station that left them
    behind at each reconnect would slow the whole machine down."""
    import threading

    def drains() -> int:
        return sum(1 for t in threading.enumerate() if t.name == "subscription drain")

    before = drains()
    station = Station(BusConfig(mode="peer", connect=[free_endpoint]))
    try:
        wait_for(lambda: drains() == before + 1)
        for _ in range(3):
            old = station.bus
            station.reconnect(BusConfig(mode="peer", connect=[free_endpoint]))
            wait_for(lambda o=old: station.bus is not None and station.bus is not o)
        wait_for(lambda: drains() == before + 1)
    finally:
        station.close()
    wait_for(lambda: drains() == before)
