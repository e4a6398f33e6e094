"""A light depot (``fieldstation sim --fleet N --light``): the depot's mix on a few shared
sessions, every robot still its own token, catalog and keys to a station."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator

import pytest

from app.bus.config import BusConfig
from app.bus.keys import command_key
from app.bus.publisher import Publisher, Traffic
from app.bus.session import BusSession
from app.codec.decode import decode, encoding_for
from app.codec.registry import registry
from app.sim.fleet import SimFleet, depot_robots
from app.sim.kinematics import Pose2D
from app.sim.light_depot import LightRover, light_depot_robots
from app.sim.robot import SimRobot
from app.station.station import Station
from tests.bus.helpers import wait_for, wait_until_heard
from tests.cli.test_cli import FIELDSTATION, REPO

ROBOTS = 40
PER_SESSION = 15  # three sessions for the 40, the last one partly filled


def test_light_robots_keep_the_depot_mix_names_and_places() -> None:
    light, full = light_depot_robots(12), depot_robots(12, heavy=0)
    assert [(r.robot_id, r.model) for r in light] == [(r.robot_id, r.model) for r in full]
    for light_robot, full_robot in zip(light, full, strict=True):
        if full_robot.model != "sim-car":
            assert light_robot.base.pose == full_robot.base.pose  # type: ignore[attr-defined]


def test_light_robots_list_their_small_topics_and_only_the_commands_they_obey() -> None:
    rover, humanoid, _, car = light_depot_robots(4)
    for robot in (rover, humanoid, car):
        robot.setup()
    assert {t.key: t.type for t in rover.catalog().topics} == {
        f"fleet/rover-1/uplink/{s}": "fleet.Uplink"
        for s in ("status", "motion", "battery", "fault")}
    assert [c.key for c in rover.catalog().commands] == [
        "fleet/rover-1/command/teleop", "fleet/rover-1/command/estop"]
    assert [t.type_name for t in humanoid.topics] == [
        "bow.ExteroceptionSample", "bow.InteroceptionSample"]
    assert [c.key for c in humanoid.commands] == ["fleet/humanoid-1/motor"]
    assert [t.key for t in car.topics] == ["fleet/car-1/entities/car-1"]
    assert [c.key for c in car.commands] == ["fleet/car-1/vehicle_command"]
    # every published message builds (the shared per-kind fillers)
    for robot in (rover, humanoid, car):
        for topic in robot.topics:
            if topic.rate_hz > 0:
                assert topic.produce(1.0).to_bytes()


@pytest.fixture
def light_depot(free_endpoint: str) -> Iterator[tuple[SimFleet, str]]:
    fleet = SimFleet([], listen=[free_endpoint], robots=light_depot_robots(ROBOTS),
                     robots_per_session=PER_SESSION, tick_hz=5.0)
    fleet.start()
    try:
        yield fleet, free_endpoint
    finally:
        fleet.stop()


def _robot(fleet: SimFleet, robot_id: str) -> SimRobot:
    return next(r for r in fleet.robots if r.robot_id == robot_id)


def test_a_station_sees_every_light_robot_with_its_catalog_and_battery_until_it_stops(
        light_depot: tuple[SimFleet, str]) -> None:
    fleet, endpoint = light_depot
    assert len(fleet.shared) == 3
    station = Station(BusConfig(mode="client", connect=[endpoint]))
    try:
        wait_for(lambda: sum(1 for r in station.robots() if r.online and r.catalog
                             and not r.catalog.discovered) == ROBOTS, timeout=30)
        robots = {r.robot_id: r for r in station.robots()}
        assert set(robots) == {r.robot_id for r in fleet.robots}
        assert robots["humanoid-3"].catalog is not None
        assert robots["humanoid-3"].catalog.model == "sim-humanoid"
        # rovers and humanoids report their battery (cars have none), every robot streams
        with_battery = {r.robot_id for r in fleet.robots if r.model != "sim-car"}
        wait_for(lambda: all(r.battery_pct is not None for r in station.robots()
                             if r.robot_id in with_battery), timeout=15)
        wait_for(lambda: all(r.last_data is not None for r in station.robots()), timeout=15)
        fleet.stop()
        wait_for(lambda: not any(r.online for r in station.robots()), timeout=10)
    finally:
        station.close()


def _command(robot_id: str, member: str, seq: int, **fields: float | bool | str) -> bytes:
    message = registry().struct("fleet.Command").new_message()
    message.robotId, message.seq = robot_id, seq
    body = message.init(member)
    for name, value in fields.items():
        setattr(body, name, value)
    return message.to_bytes()


def test_a_light_rover_obeys_teleop_and_estop_sent_to_its_keys(
        light_depot: tuple[SimFleet, str]) -> None:
    fleet, endpoint = light_depot
    rover = _robot(fleet, "rover-2")
    assert isinstance(rover, LightRover)
    with BusSession(BusConfig(mode="client", connect=[endpoint])) as operator:
        teleop_key = command_key("rover-2", "teleop")
        estop_key = command_key("rover-2", "estop")
        teleop = Publisher(operator, teleop_key, "fleet.Command", Traffic.TELEOP)
        estop = Publisher(operator, estop_key, "fleet.Command", Traffic.ESTOP)
        wait_until_heard(operator, teleop_key)
        wait_until_heard(operator, estop_key)

        command = _command("rover-2", "teleop", 1, linearMps=1.0, angularRps=0.0)
        # held like a stick, until it drives (a loaded machine may miss a moment's drive)
        wait_for(lambda: (teleop.put(command), rover.base.linear == 1.0
                          and not rover.patrolling)[1])
        wait_for(lambda: rover.base.linear == 0.0)  # no more commands: it stops by itself
        assert rover.last_seq == 1

        estop.put(_command("rover-2", "estop", 2, engage=True, reason="test"))
        wait_for(lambda: rover.estop and rover.last_seq == 2)
        assert rover.estop_reason == "test"


def test_a_light_rover_on_estop_refuses_teleop_and_stays_still_when_released() -> None:
    rover = LightRover("rover-1", Pose2D())
    rover.setup()
    obey = {c.key.rsplit("/", 1)[1]: c.handle for c in rover.commands}
    encoding = encoding_for("fleet.Command")
    now = time.monotonic()
    rover.step(now, 0.2)
    assert rover.patrolling and rover.base.moving
    obey["estop"](decode(encoding, _command("rover-1", "estop", 1, engage=True)))
    assert rover.estop and not rover.base.moving
    obey["teleop"](decode(encoding, _command("rover-1", "teleop", 2, linearMps=1.0)))
    assert not rover.base.moving and rover.last_seq == 1  # refused
    obey["estop"](decode(encoding, _command("rover-1", "estop", 3, engage=False)))
    rover.step(now + 0.2, 0.2)
    assert not rover.estop and not rover.base.moving and rover.last_seq == 3
    obey["teleop"](decode(encoding, _command("rover-2", "teleop", 4, linearMps=1.0)))
    assert not rover.base.moving and rover.rejected_commands == 1  # not addressed to it


@pytest.mark.slow
def test_sim_fleet_light_starts_the_depot_and_its_robots_go_offline_when_it_ends(
        free_endpoint: str) -> None:
    proc = subprocess.Popen([*FIELDSTATION, "sim", "--fleet", str(ROBOTS), "--light",
                             "--listen", free_endpoint, "--exit-with-stdin"],
                            cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    station = None
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert f"simulated fleet on {free_endpoint}: {ROBOTS} robots (20 sim-rover, " \
               "10 sim-humanoid, 10 sim-car)" in line
        station = Station(BusConfig(mode="client", connect=[free_endpoint]))
        wait_for(lambda: sum(1 for r in station.robots() if r.online and r.catalog)
                 == ROBOTS, timeout=30)
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=20) == 0
        wait_for(lambda: not any(r.online for r in station.robots()), timeout=10)
    finally:
        if station is not None:
            station.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
