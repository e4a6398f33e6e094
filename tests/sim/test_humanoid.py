"""The simulated bow humanoid on a real zenoh session: what an operator would see and do."""

from __future__ import annotations

import itertools
import math
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

import cv2
import numpy as np
import pytest

from app.bus import catalog as catalog_mod
from app.bus.publisher import Publisher, Traffic
from app.bus.session import BusSession
from app.bus.subscription import RawSample, Subscription
from app.codec.decode import decode, encoding_for
from app.codec.fields import plain
from app.codec.registry import registry
from app.convert.camera.video import VideoDecoder
from app.sim.humanoid import SimHumanoid
from app.sim.humanoid_body import JOINTS
from app.sim.humanoid_health import FaultSchedule
from app.sim.kinematics import local_from_geodetic
from tests.sim.running import one_robot

ROBOT = "humanoid-1"
PREFIX = f"fleet/{ROBOT}"
TOPICS = {
    "vision": ("bow.ImageSamples", 10.0),
    "proprioception": ("bow.ProprioceptionSample", 30.0),
    "exteroception": ("bow.ExteroceptionSample", 50.0),
    "interoception": ("bow.InteroceptionSample", 1.0),
}
HAND = ("thumb", "index", "middle", "ring", "pinky", "fingerAdduction", "thumbOpposition")


@pytest.fixture
def humanoid(free_endpoint: str) -> Iterator[SimHumanoid]:
    def no_faults(robot: SimHumanoid) -> None:
        robot.faults = FaultSchedule(first_s=math.inf)  # a test that wants one schedules it

    with one_robot("humanoid", free_endpoint, no_faults) as robot:
        assert isinstance(robot, SimHumanoid) and robot.robot_id == ROBOT
        yield robot


@pytest.fixture
def bus(humanoid: SimHumanoid, app_bus: BusSession) -> BusSession:
    """The app session, opened once the humanoid's router listens."""
    return app_bus


class Watch:
    """Every bow sample the app receives from the humanoid, with the time the humanoid
    stamped on it (its zenoh timestamp: the robot tick the sample describes, in unix
    seconds). Timings are measured on that clock, against the wall-clock times the operator
    sent its commands, so a loaded machine delaying delivery or the test's own sleeps does
    not move them. Samples are decoded to plain data when asked for, not as they arrive: a
    proprioception sample takes ~20 ms of Python to convert, and this process also runs the
    robot, which must keep its rates meanwhile."""

    def __init__(self, bus: BusSession) -> None:
        self.sub = Subscription(bus, f"{PREFIX}/*", depth=8192)
        self.seen: dict[str, list[tuple[float, RawSample]]] = defaultdict(list)
        self._plain: dict[int, dict[str, Any]] = {}  # by sample seq

    def poll(self) -> None:
        for sample in self.sub.take():
            topic = sample.key.rsplit("/", 1)[1]
            if topic not in TOPICS:
                continue  # our own motor commands
            assert sample.encoding == encoding_for(TOPICS[topic][0])
            assert sample.source_time is not None, "the humanoid stamps what it publishes"
            self.seen[topic].append((sample.source_time, sample))

    def _plain_value(self, topic: str, sample: RawSample) -> dict[str, Any]:
        value = self._plain.get(sample.seq)
        if value is None:
            message = self.sub.decode(sample)
            assert message.type_name == TOPICS[topic][0]
            value = plain(message.root)
            if topic == "vision":
                value["jpeg"] = bytes(message.root.samples[0].data)
            self._plain[sample.seq] = value
        return value

    def wait(self, until: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.poll()
            if until():
                return
            time.sleep(0.02)
        raise AssertionError(f"timed out after {timeout} s waiting for {what}")

    def wait_streams(self) -> None:
        """Until vision, proprioception and exteroception have each arrived."""
        streams = [topic for topic, (_, rate) in TOPICS.items() if rate > 1.0]
        self.wait(lambda: all(self.seen[topic] for topic in streams), 5.0, ", ".join(streams))

    def until(self, unix_s: float, timeout: float = 5.0) -> None:
        """Until the humanoid has reported its state at ``unix_s`` on every stream (a fixed
        sleep would not do: a loaded machine may deliver it later)."""
        streams = [topic for topic, (_, rate) in TOPICS.items() if rate > 1.0]
        self.wait(lambda: all(self.seen[topic] and self.seen[topic][-1][0] >= unix_s
                              for topic in streams), timeout, f"the state at {unix_s:.2f}")

    def values(self, topic: str, since: float = 0.0, until: float = math.inf) -> list[Any]:
        return [v for _, v in self.timed(topic, since, until)]

    def timed(self, topic: str, since: float = 0.0,
              until: float = math.inf) -> list[tuple[float, Any]]:
        self.poll()
        return [(t, self._plain_value(topic, s)) for t, s in self.seen[topic]
                if since <= t <= until]

    def latest(self, topic: str) -> dict[str, Any]:
        self.poll()
        assert self.seen[topic], f"no {topic} received"
        return self._plain_value(topic, self.seen[topic][-1][1])

    def joint(self, name: str) -> float:
        """The position of a joint in the latest proprioception (cheap enough to poll)."""
        self.poll()
        assert self.seen["proprioception"], "no proprioception received"
        message = self.sub.decode(self.seen["proprioception"][-1][1])
        return next(j.position for j in message.root.rawJoints if j.name == name)

    def rate(self, topic: str, since: float) -> float:
        """The rate the humanoid stamped its samples at: by the median spacing, as a loaded
        machine may hold up its loop now and then (CI saw a mean of 20 Hz of 30)."""
        times = [t for t, _ in self.seen[topic] if t >= since]
        return 1.0 / statistics.median(b - a for a, b in itertools.pairwise(times))


BREAK_S = 0.3  # a pause in a stream of 20 Hz commands that breaks it (the timeout: 0.5 s)


class Operator:
    """Sends bow.MotorSample the way the app's teleop does: streamed at 20 Hz."""

    def __init__(self, bus: BusSession) -> None:
        catalog = catalog_mod.fetch(bus, ROBOT, timeout_s=2.0)
        assert catalog is not None
        key = catalog.command_key("bow.MotorSample")
        assert key == f"{PREFIX}/motor"
        self.publisher = Publisher(bus, key, "bow.MotorSample", Traffic.TELEOP)
        self.broken = False  # the last walk's stream broke

    def send(self, forward: float | None = None, turn_right: float = 0.0,
             hand: dict[str, float] | None = None) -> None:
        msg = registry().struct("bow.MotorSample").new_message()
        if forward is not None:
            locomotion = msg.init("locomotion")
            locomotion.translationalVelocity.z = forward
            locomotion.rotationalVelocity.y = turn_right
        if hand is not None:
            gripper = msg.init("gripperObjective")
            gripper.gripperControlMode = "percentageMode"
            for digit, value in hand.items():
                setattr(gripper.handMapPercentage, digit, value)
        self.publisher.put(msg)

    def walk(self, forward: float, turn_right: float, seconds: float) -> tuple[float, float]:
        """Streams locomotion at 20 Hz; returns when (unix s) the first and the last
        command were sent. ``broken`` says whether the stream broke for longer than
        BREAK_S (this thread starved on a loaded machine): the humanoid may have slowed."""
        first = time.time()
        end = time.monotonic() + seconds
        sent = time.monotonic()
        self.broken = False
        while True:
            self.broken |= time.monotonic() - sent > BREAK_S
            self.send(forward, turn_right)
            sent, last = time.monotonic(), time.time()
            if sent >= end:
                return first, last
            time.sleep(0.05)

    def walk_unbroken(self, watch: Watch, forward: float, turn_right: float,
                      seconds: float) -> tuple[dict[str, Any], float, float]:
        """Walks as :meth:`walk` until a stream goes unbroken, each try from a standstill;
        returns the exteroception before it, and when its first and last commands went."""
        for _ in range(3):
            before = watch.latest("exteroception")
            first, last = self.walk(forward, turn_right, seconds)
            if not self.broken:
                return before, first, last
            watch.until(last + 1.7)  # stopped by then
        raise AssertionError("every stream of commands broke: the machine is starved")

    def hand(self, values: dict[str, float], repeat: int = 3) -> float:
        """Sends a hand map a few times; returns when (unix s) the first one was sent."""
        first = time.time()
        for _ in range(repeat):
            self.send(hand=values)
            time.sleep(0.03)
        return first


def joints(proprioception: dict[str, Any]) -> dict[str, float]:
    return {j["name"]: j["position"] for j in proprioception["rawJoints"]}


def effectors(proprioception: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["effectorLinkName"]: e for e in proprioception["effectors"]}


def position(transform: dict[str, Any]) -> np.ndarray:
    p = transform["position"]
    return np.array([p["x"], p["y"], p["z"]])


def decode_jpeg(vision: dict[str, Any]) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(vision["jpeg"], np.uint8), cv2.IMREAD_COLOR)


def local(exteroception: dict[str, Any]) -> np.ndarray:
    gps = exteroception["gps"]
    return np.array(local_from_geodetic(gps["latitude"], gps["longitude"]))


def test_modalities_decode_at_their_rates(humanoid: SimHumanoid, bus: BusSession) -> None:
    catalog = catalog_mod.fetch(bus, ROBOT, timeout_s=2.0)
    assert catalog is not None
    assert (catalog.model, catalog.families) == ("sim-humanoid", ["bow"])
    # bow samples carry no frame: the catalog names the humanoid's base frame, "base"
    assert {(t.key, t.type, t.rate_hz, t.frame_id) for t in catalog.topics} == {
        (f"{PREFIX}/{topic}", type_name, rate, "base")
        for topic, (type_name, rate) in TOPICS.items()
    }
    assert [(c.key, c.type, c.frame_id) for c in catalog.commands] == [
        (f"{PREFIX}/motor", "bow.MotorSample", "base")
    ]

    watch = Watch(bus)
    watch.wait_streams()
    start = time.time()
    # a fault from now on for 1.5 s: interoception (1 Hz) shows it, then its clearing
    humanoid.faults = FaultSchedule(first_s=humanoid.uptime + 0.1, duration_s=1.5)
    watch.wait(lambda: any(i["error"] for i in watch.values("interoception"))
               and not watch.latest("interoception")["error"], 5.0, "a fault to come and go")
    watch.until(start + 2.0)
    for topic, (_, rate) in TOPICS.items():
        if rate > 1.0:
            assert watch.rate(topic, start) == pytest.approx(rate, rel=0.3), topic

    intero = watch.values("interoception")
    errors = [i["error"] for i in intero if i["error"]]
    assert errors[0] == ["E201 left_knee: motor over temperature"]
    battery = intero[-1]["battery"]
    assert 0.0 < battery["percentage"] <= 100.0 and battery["present"]
    assert battery["supplyStatus"] == "discharging"
    assert 42.0 < battery["voltage"] < 50.4 and 0.0 < battery["current"] < 4.0
    assert battery["charge"] == pytest.approx(15.0 * battery["percentage"] / 100, rel=1e-3)

    vision = watch.latest("vision")["samples"][0]
    assert vision["source"] == "head_camera" and vision["compression"] == "jpg"
    assert vision["imageType"] == "rgb" and vision["dataShape"] == [320, 240, 3]
    image = decode_jpeg(watch.latest("vision"))
    assert image.shape == (240, 320, 3)  # dataShape is [width, height, channels]
    assert image[:40].mean() > image[-40:].mean()  # sky above, grass below
    assert vision["hfov"] == pytest.approx(90.0) and vision["vfov"] == pytest.approx(73.74, 0.01)
    frames = [v["samples"][0]["frameNumber"] for v in watch.values("vision")]
    assert frames == sorted(frames) and len(set(frames)) == len(frames)
    assert 1.4 < vision["transform"]["position"]["y"] < 1.7  # eye height, metres

    proprio = watch.latest("proprioception")
    parts = {p["name"]: p for p in proprio["parts"]}
    assert set(parts) == {"pelvis", "torso", "head", "left_arm", "right_arm", "right_gripper",
                          "left_leg", "right_leg"}
    assert all(p["parent"] in parts for p in parts.values() if p["type"] != "root")
    assert parts["right_gripper"]["type"] == "gripper" and parts["right_gripper"]["parent"] \
        == "right_arm"
    raw = joints(proprio)
    assert len(raw) == len(proprio["rawJoints"]) == 46
    for effector in proprio["effectors"]:
        for joint in effector["jointArray"]:  # the same joint reads the same everywhere
            assert joint["position"] == raw[joint["name"]]
            assert joint["min"] <= joint["position"] <= joint["max"]
    ends = {name: position(e["endTransform"]) for name, e in effectors(proprio).items()}
    assert 1.4 < ends["head_camera"][1] < 1.7
    assert ends["left_hand"][0] < 0 < ends["right_hand"][0]  # X is right
    assert ends["left_sole"][1] == pytest.approx(0.0, abs=0.05)  # on the floor
    assert ends["right_sole"][1] < ends["right_hand"][1] < ends["head_camera"][1]
    assert ends["right_index_tip"][1] < ends["right_hand"][1]
    controllable = {e["effectorLinkName"]: e["availableActions"] for e in proprio["effectors"]
                    if e["isControllable"]}  # only the hand map is obeyed
    assert controllable == {f"right_{d}_tip": ["grasp"] for d in HAND[:5]}
    assert [j["name"] for j in effectors(proprio)["left_sole"]["jointArray"]] == [
        f"left_{j}" for j in ("hip_yaw", "hip_roll", "hip_pitch", "knee", "ankle_pitch",
                              "ankle_roll")]
    knees = [next(j for j in p["rawJoints"] if j["name"] == "left_knee")
             for p in watch.values("proprioception")]
    assert any(not k["healthy"] and k["temperature"] == 78.0 for k in knees)  # the fault...
    assert knees[-1]["healthy"] and knees[-1]["temperature"] < 40.0  # ...has cleared

    extero = watch.latest("exteroception")
    imu = extero["imu"][0]
    assert imu["hasAcc"] and imu["hasGyro"]
    assert imu["acc"]["y"] == pytest.approx(9.81, abs=0.2)  # gravity's reaction on Y (up)
    assert abs(imu["acc"]["x"]) < 0.2 and abs(imu["acc"]["z"]) < 0.2
    assert all(abs(imu["gyro"][axis]) < 0.05 for axis in "xyz")
    assert imu["orientation"]["y"] == pytest.approx(math.pi / 2, abs=1e-3)  # facing east
    assert np.hypot(*local(extero)) < 0.5  # at the datum
    assert extero["gps"]["elevation"] == pytest.approx(409.6, abs=0.1)


def test_walking_moves_it_and_it_stops_by_itself(humanoid: SimHumanoid, bus: BusSession) -> None:
    watch = Watch(bus)
    watch.wait_streams()
    before, first, last = Operator(bus).walk_unbroken(watch, 0.6, 0.0, 1.5)
    origin = local(before)
    watch.until(last + 1.7)

    track = watch.timed("exteroception", first)
    moved = local(track[-1][1]) - origin
    # 0.6 m/s from the first command until half a second after the last (the ramps cancel)
    assert np.hypot(*moved) == pytest.approx(0.6 * (last - first + 0.5), abs=0.25)
    assert abs(moved[1]) < 0.1 and moved[0] > 0  # it faces east: forward is east
    when_last_sent = local([v for t, v in track if t <= last][-1])
    # still walking: half a second at 0.6 m/s after the last command, then the 0.4 s ramp
    # down (0.42 m); stopping at once would have left only the ramp's 0.12 m
    assert local(track[-1][1])[0] - when_last_sent[0] > 0.25
    imu = [v["imu"][0] for t, v in track]
    assert all(abs(i["gyro"]["y"]) < 0.05 for i in imu)
    # The IMU shows the speed ramps (the bow GPS, Float32 degrees, moves in 7 cm steps): up
    # to speed, and down to a stop once no command came for half a second.
    assert max(i["acc"]["z"] for i in imu) > 1.0
    slowing = [t for t, v in track if v["imu"][0]["acc"]["z"] < -1.0]
    assert slowing and last + 0.45 < slowing[0]  # still walking shortly after the last command
    stopped = slowing[-1]
    assert stopped < last + 1.5  # ...then it stops by itself
    at_rest = {tuple(local(v)) for t, v in track if t > stopped + 0.1}
    assert at_rest == {tuple(local(track[-1][1]))}  # and stays where it stopped

    def hip(since: float, until: float) -> list[float]:
        return [joints(p)["left_hip_pitch"] for p in watch.values("proprioception", since, until)]

    walking = hip(first + 0.8, last)
    watch.until(stopped + 0.9)
    standing = hip(stopped + 0.6, math.inf)  # a moment after its base stopped
    assert max(walking) - min(walking) > 0.4  # the legs swing...
    assert len(standing) > 5 and max(standing) - min(standing) < 0.01  # ...and come to rest
    # it walks until at least half a second after the last command
    currents = [i["battery"]["current"]
                for i in watch.values("interoception", first + 0.8, last + 0.5)]
    assert currents and min(currents) > 6.0  # walking draws far more than standing


def test_turning_right_shows_in_gyro_heading_and_head(humanoid: SimHumanoid,
                                                       bus: BusSession) -> None:
    watch = Watch(bus)
    watch.wait_streams()
    watch.wait(lambda: len(watch.values("vision")) >= 2, 2.0, "two frames standing still")
    still = [decode_jpeg(v) for v in watch.values("vision")[-2:]]
    operator = Operator(bus)
    before, first, last = operator.walk_unbroken(watch, 0.0, 0.8, 1.5)
    origin, heading = local(before), before["imu"][0]["orientation"]["y"]
    watch.until(last)
    turning = watch.values("exteroception", first + 0.8, last)
    assert np.mean([v["imu"][0]["gyro"]["y"] for v in turning]) == pytest.approx(0.8, abs=0.05)
    neck = [joints(p)["neck_yaw"] for p in watch.values("proprioception", first + 0.8, last)]
    assert min(neck) > 0.1  # the head looks into the turn
    watch.until(last + 1.5)  # the contract: stopped by then
    final = watch.latest("exteroception")
    assert abs(final["imu"][0]["gyro"]["y"]) < 0.05
    # 0.8 rad/s from the first command until half a second after the last
    turned = math.remainder(final["imu"][0]["orientation"]["y"] - heading, 2 * math.pi)
    assert turned == pytest.approx(0.8 * (last - first + 0.5), abs=0.25)
    assert np.hypot(*(local(final) - origin)) < 0.2  # turning on the spot
    view_after = decode_jpeg(watch.latest("vision"))

    def difference(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.abs(a.astype(int) - b).mean())

    # the head camera turned: the view changed far more than between two frames standing
    # still (only the frame number in the caption changes); turns like this one give 8 to 13
    assert difference(view_after, still[-1]) > max(5.0, 10 * difference(*still))


def test_the_head_camera_h264_stream_shows_what_its_jpeg_shows(humanoid: SimHumanoid,
                                                               bus: BusSession) -> None:
    watch = Watch(bus)
    watch.wait_streams()
    operator = Operator(bus)
    operator.walk(0.0, 0.8, 2.5)  # turning: each picture differs from the one before
    watch.wait(lambda: len(watch.seen["vision"]) >= 25, 5.0, "25 vision samples")
    decoder = VideoDecoder("h264")
    pairs = []
    for _, raw in watch.seen["vision"]:
        still, video = watch.sub.decode(raw).root.samples
        assert (video.source, video.compression) == ("head_camera_h264", "h264")
        assert list(video.dataShape) == [320, 240, 3]
        assert video.frameNumber == still.frameNumber
        frame = decoder.decode(bytes(video.data))
        if frame is not None:
            jpeg = cv2.imdecode(np.frombuffer(bytes(still.data), np.uint8), cv2.IMREAD_COLOR)
            pairs.append((frame.image, jpeg[:, :, ::-1]))  # BGR -> RGB
    # a key frame every 1.5 s: the stream was joined within the first 15 samples
    assert len(pairs) >= 10 and decoder.status == "" and decoder.errors == 0
    for picture, jpeg in pairs:
        assert picture.shape == jpeg.shape == (240, 320, 3)
        colour = picture.reshape(-1, 3).mean(axis=0) - jpeg.reshape(-1, 3).mean(axis=0)
        assert np.abs(colour).max() < 3.0
        assert np.abs(picture.astype(int) - jpeg).mean() < 6.0
    # and each is its own message's picture, not a neighbour's
    assert np.abs(pairs[-1][0].astype(int) - pairs[-4][1]).mean() > 2 * np.abs(
        pairs[-1][0].astype(int) - pairs[-1][1]).mean()


def test_hand_map_closes_and_reopens_the_fingers(humanoid: SimHumanoid, bus: BusSession) -> None:
    watch = Watch(bus)
    watch.wait_streams()
    before = watch.latest("proprioception")
    assert joints(before)["right_index_pip"] == 0.0 and joints(before)["right_thumb_ip"] == 0.0
    origin = local(watch.latest("exteroception"))
    operator = Operator(bus)

    sent = operator.hand(dict.fromkeys(HAND, 1.0))
    watch.wait(lambda: watch.joint("right_index_pip") == 1.75, 2.0,
               "the index finger to close")
    closing = [joints(p)["right_index_pip"] for p in watch.values("proprioception", sent)]
    assert any(0.2 < pip < 1.5 for pip in closing)  # it moves there at a finite rate
    closed = watch.latest("proprioception")
    grip = joints(closed)
    assert grip["right_thumb_ip"] == pytest.approx(1.3) and grip["right_pinky_mcp"] == \
        pytest.approx(1.57)
    assert grip["right_index_abduction"] == 0.0  # fingerAdduction 1: fingers together
    tips = {k: position(e["endTransform"]) for k, e in effectors(closed).items()}
    open_tips = {k: position(e["endTransform"]) for k, e in effectors(before).items()}
    assert np.linalg.norm(tips["right_thumb_tip"] - tips["right_index_tip"]) < 0.04 < \
        np.linalg.norm(open_tips["right_thumb_tip"] - open_tips["right_index_tip"])
    index = next(e for e in closed["effectors"] if e["effectorLinkName"] == "right_index_tip")
    assert [j["name"] for j in index["jointArray"]] == [
        "right_index_abduction", "right_index_mcp", "right_index_pip", "right_index_dip"]

    operator.hand(dict.fromkeys(HAND, 0.0))
    watch.wait(lambda: watch.joint("right_index_pip") == 0.0, 2.0,
               "the index finger to reopen")
    assert joints(watch.latest("proprioception"))["right_index_abduction"] == \
        pytest.approx(0.25)  # fingerAdduction 0: spread
    assert np.hypot(*(local(watch.latest("exteroception")) - origin)) < 0.05  # it did not walk


def test_nan_and_inf_commands_are_never_applied(humanoid: SimHumanoid, bus: BusSession) -> None:
    watch = Watch(bus)
    watch.wait_streams()
    origin = local(watch.latest("exteroception"))
    operator = Operator(bus)
    begin = time.time()
    for _ in range(15):
        operator.send(math.nan, math.inf, hand=dict.fromkeys(HAND, math.nan))
        operator.send(math.inf, -math.inf, hand=dict.fromkeys(HAND, -math.inf))
        time.sleep(0.05)
    # a sound digit next to a NaN one: the sound one is applied, the NaN one ignored
    sent = operator.hand({"index": 1.0, "thumb": math.nan})
    watch.wait(lambda: watch.joint("right_index_pip") == 1.75, 2.0,
               "the index finger to close")
    watch.until(sent + 0.9)  # long enough for a bad command applied to show
    extero = watch.values("exteroception", begin)
    assert all(abs(v["imu"][0]["gyro"]["y"]) < 0.05 for v in extero)
    assert all(abs(v["imu"][0]["acc"]["z"]) < 0.2 for v in extero)
    assert np.hypot(*(local(extero[-1]) - origin)) < 0.01
    for proprio in watch.values("proprioception", begin):
        assert all(math.isfinite(j["position"]) for j in proprio["rawJoints"])
        assert joints(proprio)["left_hip_pitch"] == 0.0
    final = joints(watch.latest("proprioception"))
    assert final["right_index_pip"] == pytest.approx(1.75) and final["right_thumb_ip"] == 0.0
    assert humanoid.rejected_commands == 0  # well-formed samples, unusable values


def test_battery_drains_faster_when_walking() -> None:
    robot = SimHumanoid("bench-humanoid")
    motor = registry().struct("bow.MotorSample").new_message()
    motor.init("locomotion").translationalVelocity.z = 0.8
    now = 0.0

    def run(seconds: float, walk: bool) -> float:
        nonlocal now
        charge = robot.battery.charge_ah
        for _ in range(int(seconds * 100)):
            now += 0.01
            if walk:
                robot.apply_motor(motor, now)
            robot.step(now, 0.01)
        return charge - robot.battery.charge_ah

    robot.step(now, 0.0)
    standing = run(60.0, walk=False)
    walking = run(60.0, walk=True)
    assert standing > 0 and walking > 3 * standing
    assert robot.base.pose.x == pytest.approx(0.8 * 60, rel=0.02)


def test_joints_keep_within_their_limits_through_walking_turning_and_gripping() -> None:
    robot = SimHumanoid("bench-humanoid")

    def motor(forward: float, turn_right: float, closure: float) -> Any:
        msg = registry().struct("bow.MotorSample").new_message()
        locomotion = msg.init("locomotion")
        locomotion.translationalVelocity.z = forward
        locomotion.rotationalVelocity.y = turn_right
        hand = msg.init("gripperObjective").handMapPercentage
        for digit in HAND:
            setattr(hand, digit, closure)
        return msg

    lower = np.array([j.lower for j in JOINTS])
    upper = np.array([j.upper for j in JOINTS])
    max_velocity = np.array([j.max_velocity for j in JOINTS])
    max_acceleration = np.array([j.max_acceleration for j in JOINTS])
    now = 0.0
    robot.step(now, 0.0)
    plan = [(3.0, motor(0.8, 1.0, 1.0)), (2.0, motor(-0.8, -1.0, 0.0)),
            (1.0, motor(0.3, 0.0, 0.5)), (3.0, None)]
    for seconds, command in plan:
        for _ in range(int(seconds * 100)):
            now += 0.01
            if command is not None:
                robot.apply_motor(command, now)
            robot.step(now, 0.01)
            assert np.all((lower - 1e-9 <= robot.q) & (robot.q <= upper + 1e-9))
            assert np.all(np.abs(robot.qd) <= max_velocity)
            assert np.all(np.abs(robot.qdd) <= max_acceleration)
    assert robot.base.linear == 0.0 and robot.gait.amplitude < 1e-3
    assert robot.hand.closure == pytest.approx(np.full(len(HAND), 0.5))


def test_the_skeleton_moves_as_it_walks() -> None:
    """The 3D view draws the body from its effectors' root and end transforms (the
    skeleton of a ProprioceptionSample): walking swings the feet and hands back and forth,
    in turn, and standing still holds them."""
    robot = SimHumanoid("bench-humanoid")
    walk = registry().struct("bow.MotorSample").new_message()
    walk.init("locomotion").translationalVelocity.z = 0.6
    now = 0.0
    robot.step(now, 0.0)

    def links(seconds: float, command: Any) -> list[dict[str, np.ndarray]]:
        """Every 50 ms: each effector's end position (root position under "<name>/root")."""
        nonlocal now
        seen = []
        for tick in range(int(seconds * 100)):
            now += 0.01
            if command is not None:
                robot.apply_motor(command, now)
            robot.step(now, 0.01)
            if tick % 5 == 0:
                built = robot._proprioception(now)
                sample = plain(decode(encoding_for("bow.ProprioceptionSample"),
                                      built.to_bytes()).root)
                ends = {e["effectorLinkName"]: position(e["endTransform"])
                        for e in sample["effectors"]}
                roots = {f"{e['effectorLinkName']}/root": position(e["rootTransform"])
                         for e in sample["effectors"]}
                seen.append(ends | roots)
        return seen

    links(1.0, walk)  # up to speed
    walking = links(2.0, walk)
    links(2.0, None)  # it stops half a second after the last command, then the legs settle
    standing = links(1.0, None)

    def forward(samples: list[dict[str, np.ndarray]], link: str) -> np.ndarray:
        return np.array([s[link][2] for s in samples])  # bow Z is forward

    for link in ("left_sole", "right_sole", "left_hand", "right_hand"):
        swing = forward(walking, link)
        assert np.ptp(swing) > 0.1, link  # the feet and hands swing while it walks...
        still = np.array([s[link] for s in standing])
        assert np.ptp(still, axis=0).max() < 1e-3, link  # ...and hold still when it stands
    left, right = forward(walking, "left_sole"), forward(walking, "right_sole")
    assert np.corrcoef(left, right)[0, 1] < -0.5  # one foot forward while the other is back
    left_hand = forward(walking, "left_hand")
    assert np.corrcoef(left, left_hand)[0, 1] < -0.5  # the arms swing against the legs
    heights = np.array([s["left_sole/root"][1] for s in walking])
    assert heights.min() > 0.5  # every effector's root link is placed, above the floor
