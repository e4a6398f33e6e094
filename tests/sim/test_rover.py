"""The simulated rover's fleet family on a real zenoh session: what an operator would see."""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.bus import catalog as catalog_mod
from app.bus.keys import command_key, uplink_key
from app.bus.publisher import Publisher, Traffic
from app.bus.session import BusSession
from app.bus.subscription import Subscription
from app.codec.decode import decode, encoding_for
from app.codec.fields import plain
from app.codec.registry import registry
from app.sim.kinematics import Pose2D
from app.sim.rover import SimRover
from tests.sim.running import one_robot

ROBOT = "rover-1"
POINTS = 2_000  # the lidar is not under test here: keep it cheap
TRAFFIC = {"teleop": Traffic.TELEOP, "estop": Traffic.ESTOP}


@pytest.fixture
def rover(free_endpoint: str) -> Iterator[SimRover]:
    with one_robot("rover", free_endpoint, points=POINTS) as robot:
        assert isinstance(robot, SimRover) and robot.robot_id == ROBOT
        yield robot


@pytest.fixture
def bus(rover: SimRover, app_bus: BusSession) -> BusSession:
    """The app session, opened once the rover's router listens."""
    return app_bus


class Uplinks:
    """Every fleet.Uplink the app receives from the rover, decoded to plain data, with the
    time the rover stamped on it (unix s). Timings are measured on that clock, against the
    wall-clock times the operator sent its commands, so a loaded machine delaying delivery
    or the test's own sleeps does not move them."""

    def __init__(self, bus: BusSession) -> None:
        self.sub = Subscription(bus, f"fleet/{ROBOT}/uplink/**", depth=4096)
        self.seen: dict[str, list[tuple[float, dict[str, Any]]]] = defaultdict(list)
        self.keys: dict[str, set[str]] = defaultdict(set)

    def poll(self) -> None:
        for sample in self.sub.take():
            message = self.sub.decode(sample)
            assert message.type_name == "fleet.Uplink"
            root = message.root
            assert root.robotId == ROBOT
            assert abs(root.unixTimeMs / 1000 - time.time()) < 5
            member = root.which()
            self.keys[member].add(sample.key)
            self.seen[member].append((root.unixTimeMs / 1000, plain(getattr(root, member))))

    def wait(self, until: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.poll()
            if until():
                return
            time.sleep(0.02)
        raise AssertionError(f"timed out after {timeout} s waiting for {what}")

    def values(self, member: str, since: float = 0.0) -> list[dict[str, Any]]:
        self.poll()
        return [v for t, v in self.seen[member] if t >= since]

    def latest(self, member: str) -> dict[str, Any]:
        values = self.values(member)
        assert values, f"no {member} received"
        return values[-1]

    def texts(self) -> list[str]:
        return [m["text"] for m in self.values("message")]

    def until(self, unix_s: float, timeout: float = 5.0) -> None:
        """Until the rover has reported its state at ``unix_s`` (motion comes at 10 Hz; the
        uplinks arrive in the order they were published)."""
        self.wait(lambda: any(t >= unix_s for t, _ in self.seen["motion"][-1:]), timeout,
                  f"the rover's state at {unix_s:.2f}")

    def at(self, member: str, unix_s: float) -> dict[str, Any]:
        """The latest ``member`` the rover had reported by ``unix_s``."""
        self.until(unix_s)
        return [v for t, v in self.seen[member] if t <= unix_s][-1]


class Operator:
    """Sends fleet.Command envelopes the way the app does."""

    def __init__(self, bus: BusSession) -> None:
        self.bus = bus
        self.seq = 0
        self.publishers: dict[str, Publisher] = {}

    def send(self, member: str, fill: Callable[[Any], None], robot_id: str = ROBOT) -> int:
        publisher = self.publishers.get(member)
        if publisher is None:
            traffic = TRAFFIC.get(member, Traffic.COMMAND)
            publisher = Publisher(self.bus, command_key(ROBOT, member), "fleet.Command", traffic)
            self.publishers[member] = publisher
        self.seq += 1
        command = registry().struct("fleet.Command").new_message(
            robotId=robot_id, unixTimeMs=time.time_ns() // 1_000_000, seq=self.seq
        )
        body = command.init(member)
        fill(body)
        publisher.put(command)
        return self.seq

    def teleop(self, linear: float, angular: float, seconds: float,
               robot_id: str = ROBOT) -> float:
        """Streams teleop at 20 Hz; returns when (unix s) the last command was sent."""
        end = time.monotonic() + seconds
        while True:
            def fill(twist: Any) -> None:
                twist.linearMps, twist.angularRps = linear, angular
            self.send("teleop", fill, robot_id)
            sent = time.time()
            if time.monotonic() >= end:
                return sent
            time.sleep(0.05)

    def estop(self, engage: bool, reason: str = "") -> int:
        def fill(estop: Any) -> None:
            estop.engage, estop.reason = engage, reason
        return self.send("estop", fill)

    def setting(self, key: str, kind: str, value: Any) -> int:
        def fill(update: Any) -> None:
            update.key = key
            setattr(update.value, kind, value)
        return self.send("setting", fill)

    def service(self, name: str, set_bool: bool | None = None) -> int:
        def fill(call: Any) -> None:
            call.name = name
            if set_bool is None:
                call.trigger = None
            else:
                call.setBool = set_bool
        return self.send("service", fill)


def _moved(motion: dict[str, Any], start: dict[str, Any]) -> tuple[float, float]:
    return (motion["localPose"]["x"] - start["localPose"]["x"],
            motion["localPose"]["y"] - start["localPose"]["y"])


def _rate(uplinks: Uplinks, member: str, since: float) -> float:
    times = [t for t, _ in uplinks.seen[member] if t >= since]
    return (len(times) - 1) / (times[-1] - times[0])


def test_uplink_streams_and_catalog(rover: SimRover, bus: BusSession) -> None:
    rover.faults.period_s = 1.0  # all four faults within the test
    rover.battery.speedup, rover.battery.charge_delay_s = 300.0, 0.5
    uplinks = Uplinks(bus)
    uplinks.wait(lambda: bool(uplinks.seen["status"]), 3.0, "the first status")
    start = time.time()
    Operator(bus).teleop(1.0, 0.0, 2.0)  # battery: drain while moving...
    uplinks.wait(lambda: bool(uplinks.seen["capabilities"]), 6.0, "periodic capabilities")
    uplinks.until(start + 5.5)  # ...and charge at rest

    assert _rate(uplinks, "status", start) == pytest.approx(2.0, abs=0.6)
    assert _rate(uplinks, "motion", start) == pytest.approx(10.0, abs=2.0)
    assert _rate(uplinks, "battery", start) == pytest.approx(1.0, abs=0.4)

    status = uplinks.latest("status")
    assert status["mode"] == "idle" and status["estop"] is False
    assert 4.0 < status["uptimeS"] < 30.0

    motion = uplinks.latest("motion")
    assert motion["hasPose"] and motion["hasLocalPose"] and motion["localFrameId"] == "world"
    lat, lon = Pose2D(motion["localPose"]["x"], motion["localPose"]["y"]).geodetic()
    assert motion["pose"]["latDeg"] == pytest.approx(lat, abs=1e-9)
    assert motion["pose"]["lonDeg"] == pytest.approx(lon, abs=1e-9)
    assert motion["gpsSource"] == "simulated"
    fixes = {m["gpsFixType"] for m in uplinks.values("motion")}
    assert "dgps" in fixes and fixes <= {"fixedRtk", "floatRtk", "dgps"}  # dgps: RTK lost

    battery = uplinks.values("battery")
    drive = [i for i, b in enumerate(battery)
             if b["status"] == "discharging" and b["currentA"] < -5.0]
    driving = [battery[i] for i in drive]
    compared = [i for i in drive if i > 0]  # each driving sample against the one before
    assert compared, battery
    assert all(battery[i]["percentage"] < battery[i - 1]["percentage"] for i in compared)
    charging = [b for b in battery[drive[-1] + 1:] if b["status"] == "charging"]
    assert len(charging) >= 2, battery
    assert charging[-1]["percentage"] > charging[0]["percentage"]
    assert all(b["hasRuntimeRemainingS"] and b["runtimeRemainingS"] > 0 for b in driving)
    assert all(b["currentA"] > 0 and not b["hasRuntimeRemainingS"] for b in charging)
    assert charging[0]["voltageV"] > driving[-1]["voltageV"]  # no load sag while charging
    assert battery[-1]["technology"] == "liIon" and battery[-1]["health"] == "good"

    caps = uplinks.latest("capabilities")
    assert {s["dangerLevel"] for s in caps["services"]} == {"normal", "warning", "critical"}
    assert {s["type"] for s in caps["services"]} == {"trigger", "setBool"}
    hints = {s["hint"]: s for s in caps["sensors"]}
    assert set(hints) == {"none", "onOff", "gauge", "text", "online", "warningLight",
                          "temperature", "progress"}
    assert hints["onOff"]["label"] == "Lights" and hints["onOff"]["value"] == {"bool": False}
    assert hints["text"]["value"] == {"string": "rover-fw 2.4.1"}
    assert hints["none"]["value"]["number"] > 1.0  # the odometer counted the drive
    settings = {s["valueType"]: s for s in caps["settings"]}
    assert set(settings) == {"string", "int", "number", "bool", "enum"}
    assert settings["enum"]["options"] and settings["enum"]["value"]["enum"] in \
        settings["enum"]["options"]

    faults = uplinks.values("fault")
    raised = {f["severity"] for f in faults if f["active"]}
    assert raised == {"info", "minor", "major", "critical"}
    assert any(not f["active"] for f in faults)
    assert all(f["code"] and f["message"] and f["source"] for f in faults)
    assert any("fault" in t for t in uplinks.texts())
    assert uplinks.keys["status"] == {uplink_key(ROBOT, "status")}
    assert uplinks.keys["capabilities"] == {uplink_key(ROBOT, "capabilities")}

    catalog = catalog_mod.fetch(bus, ROBOT, timeout_s=2.0)
    assert catalog is not None and catalog.model == "sim-rover"
    assert catalog.families == ["fleet", "isaac", "foxglove"]
    rates = {t.key: t.rate_hz for t in catalog.topics}
    assert rates[uplink_key(ROBOT, "status")] == 2.0
    assert rates[uplink_key(ROBOT, "motion")] == 10.0
    assert rates[uplink_key(ROBOT, "fault")] == 0.0
    assert rates[uplink_key(ROBOT, "message")] == 0.0
    commands = {c.key for c in catalog.commands}
    assert {command_key(ROBOT, m) for m in ("teleop", "goTo", "estop", "setting")} <= commands


def test_catalog_frames_and_full_keys(rover: SimRover, bus: BusSession) -> None:
    """Isaac types carry no frame: the catalog names it (PROTOCOL.md "Keys"); foxglove and
    fleet types name their own, so theirs is empty. Every key is a full key."""
    catalog = catalog_mod.fetch(bus, ROBOT, timeout_s=2.0)
    assert catalog is not None
    prefix = f"fleet/{ROBOT}/"
    assert all(t.key.startswith(prefix) for t in catalog.topics + catalog.commands)
    frames = {t.key.removeprefix(prefix): t.frame_id for t in catalog.topics}
    assert frames["lidar/points"] == "lidar"
    assert {k: f for k, f in frames.items() if f} == {
        "lidar/points": "lidar",
        "camera/image": "camera",
        "camera/detections": "camera",
        "camera/skeletons": "camera",
        "lidar/detections": "base_link",
    }
    types = {t.key.removeprefix(prefix): t.type for t in catalog.topics}
    assert all(types[k].startswith("isaac.") for k, f in frames.items() if f)
    assert all(frames[k] == "" for k, t in types.items() if not t.startswith("isaac."))
    assert {c.frame_id for c in catalog.commands} == {""}  # fleet.Command
    assert uplink_key(ROBOT, "motion") in {t.key for t in catalog.topics}
    assert command_key(ROBOT, "teleop") in {c.key for c in catalog.commands}


def test_teleop_moves_it_and_it_stops_by_itself(rover: SimRover, bus: BusSession) -> None:
    uplinks = Uplinks(bus)
    uplinks.wait(lambda: bool(uplinks.seen["motion"]), 3.0, "motion")
    start = uplinks.latest("motion")
    assert start["velocity"] == {"linearMps": 0.0, "angularRps": 0.0}
    operator = Operator(bus)
    operator.teleop(1.0, 0.0, 0.3, robot_id="rover-2")  # not for this robot
    garbage = bus.zenoh.declare_publisher(command_key(ROBOT, "teleop"),
                                          encoding="application/capnp;fleet.Command")
    garbage.put(b"\x00\x01 not capnp")
    uplinks.wait(lambda: rover.ignored_commands >= 5 and rover.rejected_commands == 1, 2.0,
                 "the rover to drain those commands")
    garbage.undeclare()
    assert _moved(uplinks.at("motion", time.time()), start) == (0.0, 0.0)
    assert rover.ignored_commands >= 5 and rover.rejected_commands == 1

    first_seq = operator.seq + 1
    last = operator.teleop(1.0, 0.0, 1.0)
    driving = uplinks.at("motion", last)
    dx, dy = _moved(driving, start)
    assert dx > 0.8 and abs(dy) < 0.05  # it faces east (heading 90°) and drove forward
    assert driving["velocity"]["linearMps"] == pytest.approx(1.0)
    assert driving["pose"]["headingDeg"] == pytest.approx(90.0)
    status = uplinks.at("status", last)
    assert status["mode"] == "teleop"
    assert first_seq <= status["lastCommandSeq"] <= operator.seq

    uplinks.until(last + 1.0)
    stopped_at = next(t for t, m in uplinks.seen["motion"]
                      if t > last and m["velocity"]["linearMps"] == 0.0)
    # the 0.5 s teleop timeout, plus up to one 10 Hz period and a late tick
    assert 0.35 < stopped_at - last < 1.0
    uplinks.until(stopped_at + 0.3)
    still = [m["localPose"]["x"] for m in uplinks.values("motion", since=stopped_at)]
    assert len(still) >= 3 and max(still) - min(still) < 1e-9
    assert uplinks.latest("status")["mode"] == "idle"

    last = operator.teleop(0.0, 1.0, 0.5)  # turning left on the spot
    assert uplinks.at("motion", last)["pose"]["headingDeg"] < 80.0


def test_estop_halts_blocks_teleop_and_releases(rover: SimRover, bus: BusSession) -> None:
    uplinks = Uplinks(bus)
    operator = Operator(bus)
    operator.teleop(1.0, 0.0, 0.3)
    seq = operator.estop(True, "test stop")
    sent = time.time()
    uplinks.wait(lambda: any(s["estop"] for s in uplinks.values("status")), 1.0, "estop status")
    reported, status = next((t, s) for t, s in uplinks.seen["status"] if s["estop"])
    assert status["estopReason"] == "test stop" and status["lastCommandSeq"] == seq
    assert reported - sent < 0.3  # reported immediately, not at 2 Hz
    halted = uplinks.at("motion", reported + 0.15)
    assert halted["velocity"]["linearMps"] == 0.0

    last = operator.teleop(1.0, 0.0, 0.6)
    assert _moved(uplinks.at("motion", last + 0.15), halted) == (0.0, 0.0)
    status = uplinks.at("status", last + 0.15)
    assert status["estop"] is True
    assert status["lastCommandSeq"] == seq  # ignored teleop is not accepted
    assert any(m["level"] == "error" and "E-stop" in m["text"]
               for m in uplinks.values("message"))

    operator.estop(False)
    uplinks.wait(lambda: uplinks.latest("status")["estop"] is False, 1.0, "estop release")
    assert uplinks.latest("status")["estopReason"] == ""
    last = operator.teleop(1.0, 0.0, 0.5)
    assert _moved(uplinks.at("motion", last), halted)[0] > 0.3


def test_go_to_reaches_the_target_with_mission_feedback(
    rover: SimRover, bus: BusSession
) -> None:
    uplinks = Uplinks(bus)
    operator = Operator(bus)
    lat, lon = Pose2D(2.0, -2.0).geodetic()

    def fill(goal: Any) -> None:
        goal.pose.latDeg, goal.pose.lonDeg = lat, lon
    seq = operator.send("goTo", fill)

    def done() -> bool:
        return any(m["status"] == "complete" for m in uplinks.values("mission"))
    uplinks.wait(done, 8.0, "mission complete")
    statuses = [m["status"] for m in uplinks.values("mission")]
    first = {s: statuses.index(s) for s in ("starting", "running", "complete")}
    assert first["starting"] < first["running"] < first["complete"]
    feedback = uplinks.values("mission")
    assert all(m["missionId"] == f"goto-{seq}" and m["hasTarget"] for m in feedback)
    assert feedback[-1]["progress"] == 1.0
    assert feedback[-1]["target"]["latDeg"] == pytest.approx(lat)
    progress = [m["progress"] for m in feedback if m["status"] == "running"]
    assert progress == sorted(progress)
    assert any(s["mode"] == "auto" and s["activeMissionId"] == f"goto-{seq}"
               for s in uplinks.values("status"))

    completed = next(t for t, m in uplinks.seen["mission"] if m["status"] == "complete")
    motion = uplinks.at("motion", completed + 0.25)
    assert math.dist((motion["localPose"]["x"], motion["localPose"]["y"]), (2.0, -2.0)) < 0.3
    assert motion["velocity"]["linearMps"] == 0.0
    status = uplinks.latest("status")
    assert status["mode"] == "idle" and not status["hasActiveMission"]
    assert any("goal reached" in t for t in uplinks.texts())


def test_settings_and_services_change_what_it_reports(
    rover: SimRover, bus: BusSession
) -> None:
    uplinks = Uplinks(bus)
    operator = Operator(bus)

    def caps_with(check: Callable[[dict[str, Any]], bool]) -> Callable[[], bool]:
        return lambda: any(check(c) for c in uplinks.values("capabilities"))

    def setting(caps: dict[str, Any], key: str) -> dict[str, Any]:
        return next(s["value"] for s in caps["settings"] if s["key"] == key)

    def sensor(caps: dict[str, Any], key: str) -> dict[str, Any]:
        return next(s["value"] for s in caps["sensors"] if s["key"] == key)

    operator.setting("maxSpeed", "number", 0.5)
    uplinks.wait(caps_with(lambda c: setting(c, "maxSpeed") == {"number": 0.5}), 1.0,
                 "capabilities with maxSpeed 0.5")
    last = operator.teleop(2.0, 0.0, 0.5)
    assert uplinks.at("motion", last)["velocity"]["linearMps"] == pytest.approx(0.5)

    operator.setting("gnssCorrections", "enum", "sbas")
    operator.setting("maxSpeed", "number", 9.0)  # out of range: refused
    uplinks.wait(caps_with(lambda c: setting(c, "gnssCorrections") == {"enum": "sbas"}), 1.0,
                 "the enum setting")
    applied = next(t for t, c in uplinks.seen["capabilities"]
                   if setting(c, "gnssCorrections") == {"enum": "sbas"})
    uplinks.until(applied + 0.3)
    assert setting(uplinks.latest("capabilities"), "maxSpeed") == {"number": 0.5}
    assert uplinks.at("motion", applied + 0.3)["gpsFixType"] == "sbas"
    assert any("Setting refused" in t for t in uplinks.texts())

    operator.service("lights", set_bool=True)
    uplinks.wait(caps_with(lambda c: sensor(c, "lights") == {"bool": True}), 1.0,
                 "the Lights sensor on")
    lights = next(s for s in uplinks.latest("capabilities")["services"] if s["name"] == "lights")
    assert lights["state"] is True
    operator.service("horn")
    uplinks.wait(lambda: "Horn sounded" in uplinks.texts(), 1.0, "the horn message")



class Offline:
    """Runs a rover's fleet part on simulated time, without a session: steps its physics
    and produces its uplinks when due, as the base loop would."""

    def __init__(self, rover: SimRover) -> None:
        rover.setup()
        self.rover = rover
        self.now = time.monotonic()
        self.handlers = {c.key: c.handle for c in rover.commands}
        self.uplinks = [t for t in rover.topics if "/uplink/" in t.key]
        self.seen: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.seq = 0

    def command(self, member: str, fill: Callable[[Any], None]) -> None:
        self.seq += 1
        command = registry().struct("fleet.Command").new_message(robotId=ROBOT, seq=self.seq)
        fill(command.init(member))
        message = decode(encoding_for("fleet.Command"), command.to_bytes())
        self.handlers[command_key(ROBOT, member)](message)

    def run(self, seconds: float) -> None:
        for _ in range(round(seconds * 100)):
            self.now += 0.01
            self.rover.step(self.now, 0.01)
            for topic in self.uplinks:
                if topic.due(self.now):
                    produced = topic.produce(self.now)
                    if produced is not None:
                        uplink = decode(encoding_for("fleet.Uplink"), produced.to_bytes()).root
                        self.seen[uplink.which()].append(plain(getattr(uplink, uplink.which())))

    def mission(self, action: str, steps: list[tuple[float, float]] = ()) -> None:
        def fill(order: Any) -> None:
            order.missionId, order.name, order.action = "m-1", "Patrol", action
            items = order.init("steps", len(steps))
            for item, (x, y) in zip(items, steps, strict=True):
                lat, lon = Pose2D(x, y).geodetic()
                point = item.feature.init("shape").data.init("point")
                point.lat, point.lon = lat, lon
        self.command("mission", fill)

    def statuses(self) -> list[str]:
        return [m["status"] for m in self.seen["mission"]]


def test_mission_command_lifecycle() -> None:
    sim = Offline(SimRover(ROBOT, points=POINTS))
    sim.mission("start", [(3.0, 0.0), (3.0, 3.0)])
    sim.run(1.0)
    assert sim.statuses()[:2] == ["starting", "running"]
    running = sim.seen["mission"][-1]
    assert running["stepCount"] == 2 and running["stepIndex"] == 0 and running["progress"] > 0
    sim.mission("pause")
    sim.run(1.0)
    paused_at = sim.seen["motion"][-1]["localPose"]
    assert sim.statuses()[-1] == "paused" and sim.seen["status"][-1]["mode"] == "idle"
    assert sim.seen["motion"][-1]["velocity"]["linearMps"] == 0.0
    sim.mission("resume")
    sim.run(8.0)
    assert paused_at != sim.seen["motion"][-1]["localPose"]
    assert sim.statuses()[-1] == "complete"
    assert sim.seen["mission"][-1]["stepIndex"] == 1
    end = sim.seen["motion"][-1]["localPose"]
    assert math.dist((end["x"], end["y"]), (3.0, 3.0)) < 0.3
    sim.run(4.0)  # the finished mission is reported a while, then no more
    count = len(sim.seen["mission"])
    sim.run(2.0)
    assert len(sim.seen["mission"]) == count

    sim.mission("start", [(0.0, 0.0)])
    sim.run(0.5)

    def fill(twist: Any) -> None:
        twist.linearMps = 0.5
    sim.command("teleop", fill)  # the operator takes over: the mission pauses
    sim.run(0.2)
    assert sim.statuses()[-1] == "paused" and sim.seen["status"][-1]["mode"] == "teleop"
    sim.mission("abort")
    sim.run(0.2)
    assert sim.statuses()[-1] == "aborted"
    assert any("aborted" in m["text"] for m in sim.seen["message"])
