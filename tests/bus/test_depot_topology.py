"""The depot topology of README.md, run from the shipped samples (resources/zenoh/depot/) on
loopback: two sites, each a router with its robots as clients, both linked to the depot's
core router; a station at one site hears the other site's robots through the routers, and a
site whose router dies goes offline without taking the other site with it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.bus.config import BusConfig
from app.bus.session import BusSession
from app.sim.fleet import SimFleet
from app.station.station import Station
from tests.bus.helpers import wait_for
from tests.conftest import free_port

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "zenoh" / "depot"
SITE_PORT, CORE_PORT = "7447", "7450"
PORTS = {"core-router": (CORE_PORT,), "site-router": (SITE_PORT, CORE_PORT),
         "robot": (SITE_PORT,), "station": (SITE_PORT,)}


def sample(folder: Path, role: str, name: str, site: int, core: int) -> str:
    """The shipped sample of ``role`` with the site's and the core's ports; its path."""
    text = (SAMPLES / f"{role}.json5").read_text()
    for port in PORTS[role]:
        assert f":{port}\"" in text, f"the {role} sample no longer uses port {port}"
    text = text.replace("0.0.0.0:", "127.0.0.1:")
    text = text.replace(f":{SITE_PORT}\"", f":{site}\"").replace(f":{CORE_PORT}\"", f":{core}\"")
    path = folder / f"{name}.json5"
    path.write_text(text)
    return str(path)


@pytest.fixture
def depot(tmp_path: Path) -> Iterator[tuple[SimFleet, SimFleet, Station]]:
    core_port, north_port, south_port = free_port(), free_port(), free_port()
    core = BusSession(BusConfig(config_file=sample(tmp_path, "core-router", "core", 0,
                                                   core_port)))
    sites = []
    try:
        for name, port, kind in (("north", north_port, "rover"), ("south", south_port, "car")):
            site = SimFleet([kind], listen=[], points=2_000,
                            config_file=sample(tmp_path, "site-router", name, port, core_port),
                            robot_config_file=sample(tmp_path, "robot", f"{name}-robot", port,
                                                     core_port))
            site.start()
            sites.append(site)
        station = Station(BusConfig(config_file=sample(tmp_path, "station", "station",
                                                       south_port, core_port)))
        try:
            yield sites[0], sites[1], station
        finally:
            station.close()
    finally:
        for site in sites:
            site.stop()
        core.close()


@pytest.mark.slow
def test_a_station_at_one_site_hears_every_site_and_a_dead_site_router_costs_only_its_site(
        depot: tuple[SimFleet, SimFleet, Station]) -> None:
    north, _south, station = depot

    def streaming(robot_id: str) -> bool:
        robot = next((r for r in station.robots() if r.robot_id == robot_id), None)
        return bool(robot and robot.online and robot.catalog and robot.last_data
                    and time.monotonic() - robot.last_data < 1.0)

    wait_for(lambda: streaming("rover-1") and streaming("car-1"), timeout=20)
    assert north.hub is not None
    north.hub.close()  # the north site's router dies; its robots are cut off
    north.hub = None
    died = time.monotonic()
    wait_for(lambda: not next(r for r in station.robots() if r.robot_id == "rover-1").online,
             timeout=5)
    assert time.monotonic() - died < 2.0
    assert streaming("car-1")  # the south site goes on
