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
from app.bus.subscription import RawSample, Subscription
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

    stamp: float  # unix s: the car's tick it describes (its zenoh timestamp)
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


def stamp(sample: RawSample) -> float:
    assert sample.source_time is not None, "the car stamps what it publishes"
    return sample.source_time


def decoded(sub: Subscription, since: float, until: float) -> list[dict]:
    """As plain data, what the car published from ``since`` until ``until`` (unix s, on the
    car's clock: its zenoh timestamps), once all of it has arrived; a fixed sleep would not
    do, as a loaded machine may deliver it later."""
    samples: list[RawSample] = []
    deadline = time.monotonic() + (until - time.time()) + 5.0
    while not samples or stamp(samples[-1]) < until:
        assert time.monotonic() < deadline, f"nothing stamped after {until}"
        time.sleep(0.02)
        samples += sub.take()
    return [plain(sub.decode(s).root) for s in samples if since <= stamp(s) < until]


class Ego:
    """The ego car's EntityStatus, as the app receives it."""

    def __init__(self, bus: BusSession) -> None:
        self.sub = subscribe(bus, f"entities/{ROBOT}")
        self.seen: list[Snapshot] = []

    def poll(self) -> list[Snapshot]:
        for sample in self.sub.take():
            message = self.sub.decode(sample)
            assert message.type_name == ENTITY_STATUS
            status = plain(message.root)
            position, q = status["pose"]["position"], status["pose"]["orientation"]
            self.seen.append(Snapshot(
                stamp(sample), status["time"], position["x"], position["y"],
                2 * math.atan2(q["z"], q["w"]), status["actionStatus"]["twist"]["linear"]["x"],
                status["actionStatus"]["currentAction"]))
        return self.seen

    def latest(self) -> Snapshot:
        return self.poll()[-1]

    def at(self, unix_s: float, timeout: float = 5.0) -> Snapshot:
        """The car as it reported itself at ``unix_s`` (its first status since then), once
        that has arrived."""
        deadline = time.monotonic() + timeout
        while True:
            found = next((s for s in self.poll() if s.stamp >= unix_s), None)
            if found is not None:
                return found
            assert time.monotonic() < deadline, f"no status of the car after {unix_s}"
            time.sleep(0.01)

    def since(self, unix_s: float) -> list[Snapshot]:
        return [s for s in self.poll() if s.stamp >= unix_s]


@pytest.fixture
def drive(car: SimCar, app_bus: BusSession) -> Iterator[Callable[..., float]]:
    """Streams VehicleCommands at 20 Hz to the key the car's catalog lists."""
    listed = catalog.fetch(app_bus, ROBOT, timeout_s=3.0)
    assert listed is not None
    key = listed.command_key(VEHICLE_COMMAND)
    assert key == f"fleet/{ROBOT}/vehicle_command"
    publisher = Publisher(app_bus, key, VEHICLE_COMMAND, Traffic.TELEOP)

    def send(gear: str, speed: float, steer: float, seconds: float) -> float:
        """Streams the command without a break for ``seconds``; returns when (unix s) the
        last one was sent. A break longer than half the car's timeout (this thread starved on
        a loaded machine) may have let the car stop, so the stream starts over after it."""
        command = {
            "ackermannControlCommand": {
                "lateral": {"steeringTireAngle": steer},
                "longitudinal": {"speed": speed},
            },
            "gearCommand": {"command": gear},
        }
        end = time.monotonic() + seconds
        sent = -math.inf
        while True:
            if time.monotonic() - sent > car.car.timeout_s / 2:
                end = max(end, time.monotonic() + seconds)
            publisher.put(registry().struct(VEHICLE_COMMAND).new_message(**command))
            sent, last = time.monotonic(), time.time()
            if sent >= end:
                return last
            time.sleep(0.05)

    try:
        yield send
    finally:
        publisher.close()


def test_catalog_lists_frames_and_full_keys(car: SimCar, app_bus: BusSession) -> None:
    """These autoware types have no header: the catalog names their frame."""
    listed = catalog.fetch(app_bus, ROBOT, timeout_s=3.0)
    assert listed is not None
    prefix = f"fleet/{ROBOT}/"
    assert all(t.key.startswith(prefix) for t in listed.topics + listed.commands)
    frames = {t.key.removeprefix(prefix): t.frame_id for t in listed.topics}
    assert frames[f"entities/{ROBOT}"] == "map"
    assert set(frames.values()) == {"map"}
    assert {"entity_status", "traffic_lights"} <= frames.keys()
    assert [(c.key, c.frame_id) for c in listed.commands] == [
        (f"{prefix}vehicle_command", "base_link")
    ]


def test_entities_have_sane_boxes_and_npcs_move(car: SimCar, app_bus: BusSession) -> None:
    entities = subscribe(app_bus, "entities/**")
    together = subscribe(app_bus, "entity_status")
    begin = time.time()
    statuses = decoded(entities, begin, begin + 1.2)
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

    listed = decoded(together, begin, begin + 1.2)[-1]["status"]
    assert sorted(s["name"] for s in listed) == sorted([ROBOT, *NPCS])


# A 3.1 s cycle: green, amber and red each outlast the 0.5 s between samples.
# Each colour lasts at least two of the lights' 0.5 s reports: one late report (a loaded
# machine) cannot hide it. One cycle: 4.6 s.
FAST_SIGNALS = SignalPlan(green_s=1.2, amber_s=1.2, clearance_s=0.3, walk_s=1.2, flash_s=0.4)


@pytest.mark.parametrize("car", [FAST_SIGNALS], indirect=True)
def test_traffic_lights_cycle_green_amber_red(car: SimCar, app_bus: BusSession) -> None:
    lights = subscribe(app_bus, "traffic_lights")
    assert lights.decode(lights.take()[0]).type_name == TRAFFIC_LIGHTS
    begin = time.time()
    samples = decoded(lights, begin, begin + FAST_SIGNALS.cycle_s + 0.2)
    assert 8 <= len(samples) <= 12  # ~2 Hz

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


def test_drive_forward_steering_left(drive: Callable[..., float], app_bus: BusSession) -> None:
    status = Ego(app_bus)
    start = status.latest()
    now = status.at(drive("drive", 3.0, 0.3, seconds=1.5))  # when the last command was sent
    assert now.action == "teleop"
    assert now.speed > 1.0
    assert now.x - start.x > 1.0
    assert now.yaw > start.yaw + 0.05  # positive tire angle turns left
    assert now.y > start.y


def test_park_holds_still_and_reverse_backs_up(
    drive: Callable[..., float], app_bus: BusSession
) -> None:
    status = Ego(app_bus)
    start = status.latest()
    parked = status.at(drive("park", 3.0, 0.3, seconds=0.6))
    assert parked.action == "teleop"
    assert (parked.x, parked.y, parked.speed) == (start.x, start.y, 0.0)

    # the speed's sign follows the gear
    backing = status.at(drive("reverse", 2.0, 0.0, seconds=1.0))
    assert backing.speed < -0.5
    assert backing.x - start.x < -0.3
    # Straight back, but for the few cm while the wheels return from the 0.3 rad set in park.
    assert backing.yaw == pytest.approx(start.yaw, abs=0.02)


def test_stops_by_itself_half_a_second_after_the_last_command(
    drive: Callable[..., float], app_bus: BusSession
) -> None:
    status = Ego(app_bus)
    last = drive("drive", 2.0, 0.0, seconds=1.3)
    status.at(last + 2.0)
    after = status.since(last)
    # still obeying the last command: no braking before the 0.5 s timeout...
    assert all(s.speed > 1.5 and s.action == "teleop" for s in after if s.stamp < last + 0.45)
    assert max(s.stamp for s in after if s.speed > 1.5) > last + 0.3
    # ...then braking at 4 m/s² from 2 m/s, to a standstill it keeps
    stopped = next(s for s in after if s.speed == 0.0)
    assert stopped.stamp < last + 1.6
    assert stopped.action == "idle"
    held = [s for s in after if s.stamp > stopped.stamp]
    assert held[-1].stamp > stopped.stamp + 0.3
    assert all((s.x, s.speed, s.action) == (stopped.x, 0.0, "idle") for s in held)


def test_nan_command_is_a_stop(drive: Callable[..., float], app_bus: BusSession) -> None:
    status = Ego(app_bus)
    assert status.at(drive("drive", 2.0, 0.0, seconds=0.8)).speed > 1.0
    # a stream of bad commands, never applied
    stopped = status.at(drive("drive", NAN, 0.4, seconds=1.0))
    assert stopped.speed == 0.0
    assert stopped.yaw == pytest.approx(0.0, abs=1e-6)  # its steering was not applied either
    after = status.at(drive("drive", 2.0, NAN, seconds=0.4))
    assert after.speed == 0.0
    assert math.isfinite(after.x)


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
