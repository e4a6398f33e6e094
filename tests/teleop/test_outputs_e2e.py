"""The adapters' output at 20 Hz over real zenoh to the real simulated robots, and the
e-stop and link monitor through a real Station: what the operator would see the robot do."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.bus import catalog as catalog_mod
from app.bus.config import BusConfig
from app.bus.outbox import Outbox
from app.bus.session import BusSession
from app.bus.subscription import Subscription
from app.codec.fields import plain
from app.sim.humanoid_body import JOINTS
from app.station.commands import next_seq
from app.station.station import Station
from app.teleop.adapters import (
    BowAdapter,
    CarAdapter,
    OutputAdapter,
    TwistAdapter,
    adapter_for,
)
from app.teleop.estop import EStopSender
from app.teleop.link import LinkMonitor
from app.teleop.model import Gear, Motion
from tests.bus.helpers import wait_for, wait_until_heard
from tests.sim.running import one_robot

pytestmark = pytest.mark.slow
PERIOD_S = 0.05  # 20 Hz
STOPS = 3  # zero commands sent on a stop, for lossy links


class Driver:
    """Streams an adapter's output at 20 Hz on the key the robot's catalog names."""

    def __init__(self, bus: BusSession, robot_id: str, **options: Any) -> None:
        listed = wait_for(lambda: catalog_mod.fetch(bus, robot_id, timeout_s=1.0), 5.0)
        adapter = adapter_for(robot_id, listed, **options)
        assert adapter is not None
        self.adapter: OutputAdapter = adapter
        self.wire = Outbox(lambda: bus)
        self.sent: list[tuple[float, int]] = []  # (monotonic, seq)
        wait_until_heard(bus, adapter.key)

    def drive(self, motion: Motion, seconds: float) -> float:
        """Returns when (unix s) the last message was sent."""
        end = time.monotonic() + seconds
        while True:
            self._send(lambda seq, now: self.adapter.messages(motion, seq, now))
            last = time.time()
            if time.monotonic() >= end:
                return last
            time.sleep(PERIOD_S)

    def stop(self) -> float:
        """Returns when (unix s) the first zero command was sent."""
        first = time.time()
        for _ in range(STOPS):
            self._send(self.adapter.stop)
            time.sleep(PERIOD_S)
        return first

    def _send(self, make: Callable[[int, float], Any]) -> None:
        seq, now = next_seq(), time.monotonic()
        assert self.wire.send(make(seq, now))
        self.sent.append((now, seq))


class Latest:
    """The newest samples on a key, decoded to plain data on demand, stamped with the time
    the robot gave them (unix s: the fleet envelope's, else the zenoh timestamp)."""

    def __init__(self, bus: BusSession, key: str) -> None:
        self.sub = Subscription(bus, key, depth=4096)
        self.seen: list[tuple[float, Any]] = []
        wait_for(lambda: self.poll(), 5.0)

    def poll(self) -> list[tuple[float, Any]]:
        for sample in self.sub.take():
            assert sample.source_time is not None
            self.seen.append((sample.source_time, sample))
        return self.seen

    def value(self, index: int = -1) -> tuple[float, dict[str, Any]]:
        stamp, sample = self.poll()[index]
        return stamp, plain(self.sub.decode(sample).root)

    def after(self, unix_s: float, timeout: float = 5.0) -> dict[str, Any]:
        """The first sample stamped after ``unix_s``, once it has arrived."""
        found = wait_for(lambda: next((s for t, s in self.poll() if t > unix_s), None),
                         timeout)
        return plain(self.sub.decode(found).root)

    def first(self, since: float, accept: Callable[[dict[str, Any]], bool],
              timeout: float = 5.0) -> dict[str, Any]:
        """The first sample stamped after ``since`` that ``accept`` takes, once it came."""
        def found() -> dict[str, Any] | None:
            for stamp, sample in self.poll():
                if stamp > since and accept(value := plain(self.sub.decode(sample).root)):
                    return value
            return None
        result: dict[str, Any] = wait_for(found, timeout)
        return result

    def between(self, since: float, until: float) -> list[dict[str, Any]]:
        self.after(until)
        return [plain(self.sub.decode(s).root) for t, s in self.poll() if since <= t <= until]


def yaw_of(pose3: dict[str, float]) -> float:
    return 2 * math.atan2(pose3["qz"], pose3["qw"])


# -- rover -------------------------------------------------------------------------------------
@pytest.fixture
def rover_endpoint(free_endpoint: str) -> Iterator[str]:
    with one_robot("rover", free_endpoint, points=2_000):
        yield free_endpoint


@pytest.fixture
def station(rover_endpoint: str) -> Iterator[Station]:
    station = Station(BusConfig(mode="peer", connect=[rover_endpoint]))
    try:
        wait_for(lambda: any(r.online and r.catalog for r in station.robots()), 8.0)
        yield station
    finally:
        station.close()


def test_rover_drives_forward_turns_left_and_stops_on_zeros(station: Station) -> None:
    bus = station.bus
    assert bus is not None
    driver = Driver(bus, "rover-1")
    assert isinstance(driver.adapter, TwistAdapter)
    link = LinkMonitor(station)
    link.select("rover-1")
    motion = Latest(bus, "fleet/rover-1/uplink/motion")
    start = motion.value()[1]["motion"]
    first = time.time()
    last = driver.drive(Motion(linear=0.8, angular=0.5), 1.5)
    for at, seq in driver.sent:
        link.sent(seq, at)
    stopped_at = driver.stop()

    moving = [m["motion"] for m in motion.between(first + 0.3, last)]
    assert moving and all(m["velocity"]["linearMps"] == pytest.approx(0.8) for m in moving)
    assert all(m["velocity"]["angularRps"] == 0.5 for m in moving)
    after = motion.after(stopped_at + 0.2)["motion"]
    # stopped by our zeros, well before the rover's own half-second timeout
    assert after["velocity"] == {"linearMps": 0.0, "angularRps": 0.0}
    turned = math.remainder(yaw_of(after["localPose"]) - yaw_of(start["localPose"]), math.tau)
    assert turned == pytest.approx(0.5 * (stopped_at - first), abs=0.2)  # counter-clockwise
    heading = yaw_of(start["localPose"])
    ahead = ((after["localPose"]["x"] - start["localPose"]["x"]) * math.cos(heading)
             + (after["localPose"]["y"] - start["localPose"]["y"]) * math.sin(heading))
    assert ahead > 0.5  # forward, along the heading it started with

    wait_for(lambda: link.check(time.monotonic()).round_trip_s is not None, 3.0)
    state = link.check(time.monotonic())
    assert state.live and state.online and state.data_age_s is not None
    assert state.round_trip_s is not None
    assert 0.0 < state.round_trip_s < 1.0  # the status echo comes at 2 Hz: an upper bound
    assert state.latency_s is not None and abs(state.latency_s) < 1.0


def test_rover_estop_is_reported_and_released(station: Station) -> None:
    bus = station.bus
    assert bus is not None
    estop = EStopSender.for_station(station, "rover-1")
    estop_heard = Subscription(bus, "fleet/rover-1/command/estop", depth=1024)
    try:
        estop.engage("e2e")
        wait_for(lambda: estop.status().confirmed, 3.0)
        vitals = station.vitals.get("rover-1")
        assert vitals is not None and vitals.status is not None
        assert vitals.status.estop and vitals.status.estop_reason == "e2e"
        state = estop.status()
        assert state.engaged and not state.sending and state.sent >= 1
        estop_heard.take()
        time.sleep(0.4)
        assert estop_heard.take() == []  # reported: no more repeats

        # teleop is refused while the e-stop holds
        driver = Driver(bus, "rover-1")
        motion = Latest(bus, "fleet/rover-1/uplink/motion")
        last = driver.drive(Motion(linear=0.8), 0.5)
        assert motion.after(last)["motion"]["velocity"]["linearMps"] == 0.0

        estop.release()
        wait_for(lambda: estop.status().confirmed, 3.0)
        state = estop.status()
        assert not state.engaged and state.reason == "released: reported by the robot"
        vitals = station.vitals.get("rover-1")
        assert vitals is not None and vitals.status is not None and not vitals.status.estop
    finally:
        estop.close()


# -- humanoid ------------------------------------------------------------------------------------
@pytest.fixture
def humanoid_bus(free_endpoint: str, app_bus: BusSession) -> Iterator[BusSession]:
    with one_robot("humanoid", free_endpoint):
        yield app_bus


def joint_positions(proprioception: dict[str, Any]) -> dict[str, float]:
    return {j["name"]: j["position"] for j in proprioception["rawJoints"]}


def closure(joint: str, position: float) -> float:
    spec = next(j for j in JOINTS if j.name == joint)
    return (position - spec.lower) / (spec.upper - spec.lower)


def test_humanoid_walks_turns_left_and_closes_its_hand_to_the_percentages(
        humanoid_bus: BusSession) -> None:
    driver = Driver(humanoid_bus, "humanoid-1")
    assert isinstance(driver.adapter, BowAdapter)
    extero = Latest(humanoid_bus, "fleet/humanoid-1/exteroception")
    proprio = Latest(humanoid_bus, "fleet/humanoid-1/proprioception")
    start = extero.value()[1]["imu"][0]["orientation"]["y"]
    hand = (60.0, 80.0, 40.0, 100.0, 20.0, 100.0, 0.0)
    first = time.time()
    last = driver.drive(Motion(linear=0.5, angular=0.6, hand=hand), 2.0)
    stopped_at = driver.stop()

    walking = [e["imu"][0]["gyro"]["y"] for e in extero.between(first + 0.8, last)]
    # left-handed seed axes: counter-clockwise is negative about +Y
    assert sum(walking) / len(walking) == pytest.approx(-0.6, abs=0.08)
    turned = math.remainder(extero.after(last)["imu"][0]["orientation"]["y"] - start, math.tau)
    assert turned < -0.5  # heading (clockwise) fell: it turned left
    legs = [joint_positions(p)["left_hip_pitch"] for p in proprio.between(first + 0.8, last)]
    assert max(legs) - min(legs) > 0.2  # it walks

    settled = extero.after(stopped_at + 0.6)["imu"][0]
    assert abs(settled["gyro"]["y"]) < 0.05  # stopped turning
    grip = joint_positions(proprio.after(stopped_at + 0.6))
    for joint, percent in (("right_thumb_ip", 60.0), ("right_index_pip", 80.0),
                           ("right_middle_pip", 40.0), ("right_ring_pip", 100.0),
                           ("right_pinky_pip", 20.0)):
        assert closure(joint, grip[joint]) == pytest.approx(percent / 100, abs=0.02), joint
    assert closure("right_index_abduction", grip["right_index_abduction"]) == \
        pytest.approx(0.0, abs=0.02)  # fingerAdduction 100 %: fingers together


# -- car -------------------------------------------------------------------------------------------
@pytest.fixture
def car_bus(free_endpoint: str, app_bus: BusSession) -> Iterator[BusSession]:
    with one_robot("car", free_endpoint):
        yield app_bus


def test_car_drives_forward_in_drive_and_backward_in_reverse(car_bus: BusSession) -> None:
    driver = Driver(car_bus, "car-1", accel_mps2=3.0)
    assert isinstance(driver.adapter, CarAdapter)
    ego = Latest(car_bus, "fleet/car-1/entities/car-1")

    def state(status: dict[str, Any]) -> tuple[float, float]:
        return (status["pose"]["position"]["x"],
                status["actionStatus"]["twist"]["linear"]["x"])

    start_x, _ = state(ego.value()[1])
    forward = driver.drive(Motion(speed=3.0, gear=Gear.DRIVE), 1.5)
    x, speed = state(ego.after(forward))
    assert speed > 2.0 and x - start_x > 1.0

    shifted_at = None
    end = time.monotonic() + 3.0
    while time.monotonic() < end:  # asked for reverse at once: braking in drive comes first
        out = driver.adapter.messages(Motion(speed=2.0, gear=Gear.REVERSE), next_seq(),
                                      time.monotonic())
        driver.wire.send(out)
        if shifted_at is None and driver.adapter.gear is Gear.REVERSE:
            shifted_at = time.time()
        time.sleep(PERIOD_S)
    assert shifted_at is not None
    assert abs(state(ego.after(shifted_at - 0.05))[1]) < 0.05  # it had stopped before
    back_x, back_speed = state(ego.after(time.time() - 0.1))
    assert back_speed < -1.0 and back_x < x
    driver.stop()
    assert driver.adapter.gear is Gear.REVERSE  # a stop keeps the gear
