"""The simulated car on a real zenoh session: entities, traffic lights and VehicleCommand."""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from app.bus import catalog
from app.bus.publisher import Publisher, Traffic
from app.bus.session import BusSession
from app.bus.subscription import Subscription
from app.codec.fields import plain
from app.codec.registry import registry
from app.sim.car import ENTITY_STATUS, TRAFFIC_LIGHTS, VEHICLE_COMMAND, SimCar
from app.sim.street import SignalPlan, Street
from tests.sim.running import one_robot

ROBOT = "car-1"
NPCS = {
    "npc-car": ("vehicle", "car"),
    "npc-truck": ("vehicle", "truck"),
    "npc-bus": ("vehicle", "bus"),
    "pedestrian-1": ("pedestrian", "pedestrian"),
    "pedestrian-2": ("pedestrian", "pedestrian"),
}
NAN = float("nan")


@dataclass
class Snapshot:
    """One ego EntityStatus as the app sees it."""

    time: float
    x: float
    y: float
    yaw: float
    speed: float
    action: str


@pytest.fixture
def car(free_endpoint: str, request: pytest.FixtureRequest) -> Iterator[SimCar]:
    """A one-car fleet listening on the free endpoint; parametrize it (indirect) with a
    SignalPlan to change the signal timing. Ask for it before ``app_bus``, so the app's
    session finds the fleet already listening."""
    def timing(robot: SimCar) -> None:
        robot.street.signals = getattr(request, "param", robot.street.signals)

    with one_robot("car", free_endpoint, timing) as robot:
        assert isinstance(robot, SimCar)
        yield robot


def subscribe(bus: BusSession, suffix: str) -> Subscription:
    sub = Subscription(bus, f"fleet/{ROBOT}/{suffix}", depth=512)
    deadline = time.monotonic() + 5.0
    while sub.latest() is None:
        assert time.monotonic() < deadline, f"nothing on {suffix}"
        time.sleep(0.02)
    return sub


def decoded(sub: Subscription) -> list[dict]:
    """Every sample since the last call, as plain data."""
    return [plain(sub.decode(sample).root) for sample in sub.take()]


def ego(sub: Subscription) -> Snapshot:
    sample = sub.latest()
    assert sample is not None
    message = sub.decode(sample)
    assert message.type_name == ENTITY_STATUS
    status = plain(message.root)
    position, q = status["pose"]["position"], status["pose"]["orientation"]
    yaw = 2 * math.atan2(q["z"], q["w"])
    return Snapshot(status["time"], position["x"], position["y"], yaw,
                    status["actionStatus"]["twist"]["linear"]["x"],
                    status["actionStatus"]["currentAction"])


@pytest.fixture
def drive(car: SimCar, app_bus: BusSession) -> Iterator[Callable[..., None]]:
    """Streams VehicleCommands at 20 Hz to the key the car's catalog lists."""
    listed = catalog.fetch(app_bus, ROBOT, timeout_s=3.0)
    assert listed is not None
    key = listed.command_key(VEHICLE_COMMAND)
    assert key == f"fleet/{ROBOT}/vehicle_command"
    publisher = Publisher(app_bus, key, VEHICLE_COMMAND, Traffic.TELEOP)

    def send(gear: str, speed: float, steer: float, seconds: float) -> None:
        command = {
            "ackermannControlCommand": {
                "lateral": {"steeringTireAngle": steer},
                "longitudinal": {"speed": speed},
            },
            "gearCommand": {"command": gear},
        }
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            publisher.put(registry().struct(VEHICLE_COMMAND).new_message(**command))
            time.sleep(0.05)

    try:
        yield send
    finally:
        publisher.close()


def test_entities_have_sane_boxes_and_npcs_move(car: SimCar, app_bus: BusSession) -> None:
    entities = subscribe(app_bus, "entities/**")
    together = subscribe(app_bus, "entity_status")
    decoded(entities)
    time.sleep(1.2)
    statuses = decoded(entities)
    by_name: dict[str, list[dict]] = {}
    for status in statuses:
        by_name.setdefault(status["name"], []).append(status)

    assert set(by_name) == {ROBOT, *NPCS}
    assert by_name[ROBOT][-1]["type"]["type"] == "ego"
    assert by_name[ROBOT][-1]["subtype"]["value"] == "car"
    assert by_name[ROBOT][-1]["boundingBox"]["dimensions"] == {"x": 4.5, "y": 1.8, "z": 1.5}
    assert 18 <= len(by_name[ROBOT]) <= 30  # ~20 Hz
    for name, (kind, subtype) in NPCS.items():
        first, last = by_name[name][0], by_name[name][-1]
        assert (last["type"]["type"], last["subtype"]["value"]) == (kind, subtype)
        assert 8 <= len(by_name[name]) <= 16  # ~10 Hz
        dims = last["boundingBox"]["dimensions"]
        if kind == "pedestrian":
            assert max(dims["x"], dims["y"]) < 1.0 and 1.5 < dims["z"] < 2.0
        else:
            assert 4.0 <= dims["x"] <= 13.0 and 1.6 <= dims["y"] <= 2.6 and dims["x"] > dims["y"]
            # The signal starts green: every vehicle drives, as fast as its twist says.
            a, b = first["pose"]["position"], last["pose"]["position"]
            moved = math.dist((a["x"], a["y"]), (b["x"], b["y"]))
            elapsed = last["time"] - first["time"]
            mean_speed = (first["actionStatus"]["twist"]["linear"]["x"]
                          + last["actionStatus"]["twist"]["linear"]["x"]) / 2
            assert moved > 2.5
            assert moved / elapsed == pytest.approx(mean_speed, rel=0.15)

    listed = decoded(together)[-1]["status"]
    assert sorted(s["name"] for s in listed) == sorted([ROBOT, *NPCS])


# A 3.1 s cycle: green, amber and red each outlast the 0.5 s between samples.
FAST_SIGNALS = SignalPlan(green_s=0.7, amber_s=0.6, clearance_s=0.3, walk_s=0.8, flash_s=0.4)


@pytest.mark.parametrize("car", [FAST_SIGNALS], indirect=True)
def test_traffic_lights_cycle_green_amber_red(car: SimCar, app_bus: BusSession) -> None:
    lights = subscribe(app_bus, "traffic_lights")
    assert lights.decode(lights.take()[0]).type_name == TRAFFIC_LIGHTS
    time.sleep(3.2)
    samples = decoded(lights)
    assert 5 <= len(samples) <= 8  # ~2 Hz

    road, walk = [], []
    for sample in samples:
        signals = {s["id"]: s["trafficLightStatus"][0] for s in sample["states"]}
        road.append(signals[101]["color"])
        walk.append(signals[102]["color"])
        assert signals[101]["shape"] == "circle" and signals[101]["confidence"] == 1.0
        assert not (signals[101]["color"] == "green" and signals[102]["color"] == "green")
    assert set(road) == {"green", "amber", "red"}
    follows = {"green": "amber", "amber": "red", "red": "green"}
    assert all(follows[a] == b for a, b in itertools.pairwise(road) if a != b), road
    assert "green" in walk and "red" in walk


def test_drive_forward_steering_left(drive: Callable[..., None], app_bus: BusSession) -> None:
    status = subscribe(app_bus, f"entities/{ROBOT}")
    start = ego(status)
    drive("drive", 3.0, 0.3, seconds=1.5)
    now = ego(status)
    assert now.action == "teleop"
    assert now.speed > 1.0
    assert now.x - start.x > 1.0
    assert now.yaw > start.yaw + 0.05  # positive tire angle turns left
    assert now.y > start.y


def test_park_holds_still_and_reverse_backs_up(
    drive: Callable[..., None], app_bus: BusSession
) -> None:
    status = subscribe(app_bus, f"entities/{ROBOT}")
    start = ego(status)
    drive("park", 3.0, 0.3, seconds=0.6)
    parked = ego(status)
    assert parked.action == "teleop"
    assert (parked.x, parked.y, parked.speed) == (start.x, start.y, 0.0)

    drive("reverse", 2.0, 0.0, seconds=1.0)  # the speed's sign follows the gear
    backing = ego(status)
    assert backing.speed < -0.5
    assert backing.x - start.x < -0.3
    # Straight back, but for the few cm while the wheels return from the 0.3 rad set in park.
    assert backing.yaw == pytest.approx(start.yaw, abs=0.02)


def test_stops_by_itself_half_a_second_after_the_last_command(
    drive: Callable[..., None], app_bus: BusSession
) -> None:
    status = subscribe(app_bus, f"entities/{ROBOT}")
    drive("drive", 2.0, 0.0, seconds=1.3)
    time.sleep(0.3)
    assert ego(status).speed > 1.5  # still obeying the last command
    time.sleep(1.3)  # the 0.5 s timeout, then braking at 4 m/s² from 2 m/s
    stopped = ego(status)
    assert stopped.speed == 0.0
    assert stopped.action == "idle"
    time.sleep(0.3)
    assert ego(status).x == stopped.x


def test_nan_command_is_a_stop(drive: Callable[..., None], app_bus: BusSession) -> None:
    status = subscribe(app_bus, f"entities/{ROBOT}")
    drive("drive", 2.0, 0.0, seconds=0.8)
    assert ego(status).speed > 1.0
    drive("drive", NAN, 0.4, seconds=1.0)  # a stream of bad commands, never applied
    stopped = ego(status)
    assert stopped.speed == 0.0
    assert stopped.yaw == pytest.approx(0.0, abs=1e-6)  # its steering was not applied either
    drive("drive", 2.0, NAN, seconds=0.4)
    assert ego(status).speed == 0.0
    assert math.isfinite(ego(status).x)


def test_street_traffic_obeys_the_signals() -> None:
    """Two minutes of the default street, without zenoh: vehicles keep their distance and
    never enter the crosswalk while a pedestrian is on the road; pedestrians cross on green."""
    street = Street()
    road, lap = street.road, street.road.length
    crossings = 0
    dt = 0.01
    for i in range(12_000):
        t = i * dt
        was_crossing = [p.crossing for p in street.pedestrians]
        street.step(t, dt)
        for pedestrian, before in zip(street.pedestrians, was_crossing, strict=True):
            if pedestrian.crossing and not before:
                assert street.signals.pedestrian(t).color == "green"
                crossings += 1
        for vehicle in street.vehicles:
            ahead = min((v for v in street.vehicles if v is not vehicle),
                        key=lambda v: (v.s - vehicle.s) % lap)
            gap = (ahead.s - ahead.body.rear_overhang - vehicle.s - vehicle.body.front) % lap
            assert gap > 1.0, (t, vehicle.name, gap)
        on_road = any(abs(p.motion.pose.y - road.south_y) < road.half_width
                      for p in street.pedestrians)
        if on_road:
            for vehicle in street.vehicles:
                pose = vehicle.motion.pose
                if abs(pose.y - road.south_y) < 0.01:  # on the south straight
                    rear, front = pose.x - vehicle.body.rear_overhang, pose.x + vehicle.body.front
                    assert front < -2.5 or rear > 2.5, (t, vehicle.name)
    assert crossings >= 6  # both pedestrians, every cycle
