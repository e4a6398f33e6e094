"""A depot's fleet: ``fieldstation sim --fleet N`` — the mix, the few heavy robots, each
robot a participant of its own, reached through the one router."""

from __future__ import annotations

import math
import subprocess
import time

import pytest

from app.bus.config import BusConfig
from app.sim.fleet import DEPOT_MAX_RATE_HZ, depot_robots
from app.station.listening import is_heavy
from app.station.station import Station
from tests.bus.helpers import wait_for
from tests.cli.test_cli import FIELDSTATION, REPO


def test_a_depot_mixes_kinds_with_full_sensors_only_on_the_first_of_each() -> None:
    robots = depot_robots(12, heavy=1, points=1000)
    for robot in robots:
        robot.setup()
    ids = [r.robot_id for r in robots]
    assert ids[:4] == ["rover-1", "humanoid-1", "rover-2", "car-1"]
    assert len(set(ids)) == 12
    assert [r.model for r in robots].count("sim-rover") == 6
    heavy = {r.robot_id for r in robots if any(is_heavy(t.type_name) for t in r.topics)}
    assert heavy == {"rover-1", "humanoid-1"}  # the car has no heavy sensor to carry
    light = [r for r in robots if r.robot_id not in ("rover-1", "humanoid-1", "car-1")]
    assert all(0 < t.rate_hz <= DEPOT_MAX_RATE_HZ for r in light for t in r.topics
               if t.rate_hz > 0)
    # the catalog tells the rates the robot really publishes at
    assert all(t.rate_hz <= DEPOT_MAX_RATE_HZ for r in light for t in r.catalog().topics)


def test_depot_rovers_and_humanoids_stand_apart() -> None:
    robots = [r for r in depot_robots(40, heavy=0) if r.model != "sim-car"]
    places = [(r.base.pose.x, r.base.pose.y) for r in robots]  # type: ignore[attr-defined]
    assert all(math.dist(a, b) >= 20.0 for i, a in enumerate(places) for b in places[i + 1:])


@pytest.mark.slow
def test_sim_fleet_brings_every_robot_online_with_its_catalog(free_endpoint: str) -> None:
    proc = subprocess.Popen([*FIELDSTATION, "sim", "--fleet", "16", "--points", "2000",
                             "--listen", free_endpoint, "--exit-with-stdin"],
                            cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    station = None
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert f"simulated fleet on {free_endpoint}: 16 robots (8 sim-rover, 4 sim-humanoid, " \
               "4 sim-car)" in line
        station = Station(BusConfig(mode="client", connect=[free_endpoint]))
        wait_for(lambda: sum(1 for r in station.robots() if r.online and r.catalog) == 16,
                 timeout=30)
        robots = {r.robot_id: r for r in station.robots()}
        assert set(robots) == {*(f"rover-{i}" for i in range(1, 9)),
                               *(f"humanoid-{i}" for i in range(1, 5)),
                               *(f"car-{i}" for i in range(1, 5))}
        # every robot streams: data from each within a few seconds
        wait_for(lambda: all(r.last_data is not None and time.monotonic() - r.last_data < 3
                             for r in station.robots()), timeout=15)
    finally:
        if station is not None:
            station.close()
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=20)


def test_bad_fleet_sizes_are_one_line(capsys) -> None:
    from app.cli import main

    assert main(["sim", "--fleet", "0", "--listen", "tcp/127.0.0.1:0"]) == 1
    assert "--fleet must be 1 to 1000 robots" in capsys.readouterr().err
    assert main(["sim", "--fleet", "3", "--heavy", "-1", "--listen", "tcp/127.0.0.1:0"]) == 1
    assert "--heavy must be 0 or more" in capsys.readouterr().err

