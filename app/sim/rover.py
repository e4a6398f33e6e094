"""The simulated field rover: fleet telemetry and commands (this module), plus the lidar,
camera and map topics of app.sim.rover_sensors, and the tracked objects, planned path and
field rules (``spatial_directives``) of app.sim.rover_map.

Its fleet topics and commands list no catalog ``frameId``: the fleet family places its poses
itself (geodetic poses; ``motion.localFrameId`` names the local frame, ``world``). The isaac
sensor topics list theirs (app.sim.rover_sensors)."""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from functools import partial
from typing import Any

import capnp

from app.bus.keys import DEFAULT_ROOT, command_keys, robot_key, uplink_key
from app.codec.decode import DecodedMessage
from app.codec.fields import enum_value
from app.codec.registry import registry
from app.sim.kinematics import Pose2D, Unicycle
from app.sim.robot import TELEOP_TIMEOUT_S, SimRobot, Topic
from app.sim.rover_controls import SERVICES, SETTINGS, RoverControls
from app.sim.rover_health import RTK_LOST, TILT, FaultCycle, FaultEvent, FaultFeed, GnssFix
from app.sim.rover_map import ALTITUDE_M, XY, RoverMap
from app.sim.rover_mission import (
    MissionRun,
    waypoint_from_pose,
    waypoint_from_pose3,
    waypoints_of_steps,
)
from app.sim.rover_power import Battery
from app.sim.rover_sensors import CAMERA_SIZE, LIDAR_HZ, RoverSensors
from app.sim.scene import SyntheticScene

log = logging.getLogger(__name__)

COMMAND = "fleet.Command"
UPLINK = "fleet.Uplink"
# The field rules the rover holds, as bare fleet.SpatialDirectiveOp roots (app.sim.rover_map;
# an addition to PROTOCOL.md's keys, schemas/README.md).
DIRECTIVES_SUFFIX = "spatial_directives"
LOCAL_FRAME = "world"  # the frame of rover_sensors (kinematics local frame)
FIRMWARE = "rover-fw 2.4.1"
FAULT_PERIOD_S = 30.0  # each fault in turn: raised for 12-18 s of its 30 s slot
FAULT_REPUBLISH_S = 3.0  # active faults are repeated so late joiners see them
MISSION_LINGER_S = 3.0  # a finished mission's final state keeps being reported this long
MOTOR_AMBIENT_C = 24.0
MOTOR_TAU_S = 30.0
FAULT_LEVELS = {"info": "info", "minor": "warn", "major": "error", "critical": "error"}
_SERVICES = {s.name: s for s in SERVICES}
_SETTING_LABELS = {s.key: s.label for s in SETTINGS}


def _unix_ms() -> int:
    return time.time_ns() // 1_000_000


def new_uplink(robot_id: str, member: str) -> tuple[Any, Any]:
    """A fresh fleet.Uplink of ``robot_id`` stamped now, and its ``member`` to fill."""
    message = registry().struct(UPLINK).new_message()
    message.robotId, message.unixTimeMs = robot_id, _unix_ms()
    return message, message.init(member)


def fill_motion(motion: Any, base: Unicycle, gps_fix_type: str) -> None:
    """A MotionTelemetry of the base: its geodetic and local pose, its velocity."""
    pose = base.pose
    lat, lon = pose.geodetic()
    geo = motion.pose
    geo.latDeg, geo.lonDeg, geo.altitudeM = lat, lon, ALTITUDE_M
    geo.headingDeg = pose.heading_deg()
    motion.hasPose = True
    local = motion.localPose
    local.x, local.y, local.z = pose.x, pose.y, 0.0
    local.qx, local.qy, local.qz, local.qw = pose.quaternion()
    motion.hasLocalPose = True
    motion.velocity.linearMps = base.linear
    motion.velocity.angularRps = base.angular
    motion.gpsFixType = gps_fix_type
    motion.gpsSource = "simulated"
    motion.localFrameId = LOCAL_FRAME


def fill_battery(battery: Any, b: Battery) -> None:
    """A BatteryStatus of the pack."""
    battery.percentage, battery.voltageV = b.percentage, b.voltage_v
    battery.currentA, battery.temperatureC = b.current_a, b.temperature_c
    battery.status, battery.health, battery.technology = b.status, b.health, "liIon"
    runtime = b.runtime_remaining_s()
    if runtime is not None:
        battery.runtimeRemainingS, battery.hasRuntimeRemainingS = runtime, True


def fill_fault(fault: Any, event: FaultEvent) -> None:
    """A Fault raised or cleared."""
    spec = event.spec
    fault.code, fault.severity, fault.message = spec.code, spec.severity, spec.message
    fault.active, fault.source = event.active, spec.source
    fault.raisedUnixTimeMs = event.raised_unix_ms


class SimRover(SimRobot):
    """Tests may speed it up before start: ``battery.speedup``, ``battery.charge_delay_s``,
    ``faults.period_s``."""

    model = "sim-rover"
    families = ("fleet", "isaac", "foxglove")

    def __init__(
        self,
        robot_id: str,
        points: int = 200_000,
        name: str = "Field rover",
        root: str = DEFAULT_ROOT,
        lidar_hz: float = LIDAR_HZ,
        camera_size: tuple[int, int] = CAMERA_SIZE,
        sensors: bool = True,
        start: Pose2D | None = None,
    ) -> None:
        """``sensors=False``: no lidar, camera, transforms or scene (a depot's light
        rover); ``start``: where it stands in its ``world`` frame (default the datum)."""
        super().__init__(robot_id, name, root)
        self.points = points
        self.lidar_hz = lidar_hz
        self.camera_size = camera_size
        self.sensors = sensors
        self.base = Unicycle(start or Pose2D())
        self.controls = RoverControls()
        self.battery = Battery()
        booted = time.monotonic()
        self.faults = FaultCycle(FAULT_PERIOD_S, robot_id, booted)
        self.gnss = GnssFix(robot_id, booted)
        self.estop = False
        self.estop_reason = ""
        self.last_seq = 0
        self.run: MissionRun | None = None
        self.ignored_commands = 0  # addressed to another robot
        self.odometer_m = 0.0
        self.motor_load = 0.0  # 0..1
        self.motor_temp_c = MOTOR_AMBIENT_C
        self._boot = booted
        self._now = booted  # the loop's clock, for commands (drained between steps)
        self._teleop_at = -math.inf
        self._fault_feed = FaultFeed(self.faults, FAULT_REPUBLISH_S, booted)
        self._messages: deque[tuple[str, str]] = deque(maxlen=32)
        self._status_now = False
        self._caps_now = False
        self._reported_status: tuple[Any, ...] = ()
        self._reported_mission: tuple[str, str] = ("", "")  # (mission id, status)
        self._apply_settings()

    # -- wiring -----------------------------------------------------------------------
    def setup(self) -> None:
        self._status = self._uplink_topic("status", 2.0, self._produce_status)
        self._uplink_topic("motion", 10.0, self._produce_motion)
        self._uplink_topic("battery", 1.0, self._produce_battery)
        self._uplink_topic("fault", 0.0, self._produce_fault)
        self._mission = self._uplink_topic("mission", 1.0, self._produce_mission)
        self._caps = self._uplink_topic("capabilities", 0.2, self._produce_capabilities)
        self._uplink_topic("message", 0.0, self._produce_message)
        for member in ("teleop", "goTo", "estop", "mission", "setting", "service"):
            for key in command_keys(self.robot_id, member, self.root):  # each role's key
                self.add_command(self._suffix(key), COMMAND, partial(self._on_command, member))
        self.scene = SyntheticScene()
        self.map = RoverMap(self.robot_id, self.scene, lambda: self.base.pose,
                            self._mission_path)
        self.map.register(
            self, self._suffix(uplink_key(self.robot_id, "object", self.root)),
            self._suffix(uplink_key(self.robot_id, "reportedShape", self.root)),
            DIRECTIVES_SUFFIX,
        )
        if not self.sensors:
            return
        width, height = self.camera_size
        RoverSensors(self.scene, self.points, width, height, lidar_hz=self.lidar_hz).register(
            self, lambda: self.base.pose)

    def _suffix(self, key: str) -> str:
        return key.removeprefix(robot_key(self.robot_id, self.root) + "/")

    def _uplink_topic(self, member: str, rate_hz: float, produce: Any) -> Topic:
        return self.add_topic(self._suffix(uplink_key(self.robot_id, member, self.root)),
                              UPLINK, rate_hz, produce)

    def _uplink(self, member: str) -> tuple[Any, Any]:
        return new_uplink(self.robot_id, member)

    # -- physics ------------------------------------------------------------------------
    def step(self, now: float, dt: float) -> None:
        self._now = now
        self._advance_mission(now)
        self.base.step(now, dt)
        linear, angular = self.base.linear, self.base.angular
        self.odometer_m += abs(linear) * dt
        self.battery.step(now, dt, linear, angular)
        if self.battery.empty and self.base.moving:
            self._halt()
            self._end_run("aborted", "battery empty", now)
            self.say("error", "Battery empty: the rover stopped")
        self.motor_load = (min(1.0, 0.1 + 0.35 * abs(linear) + 0.1 * abs(angular))
                           if self.base.moving else 0.0)
        target_c = MOTOR_AMBIENT_C + 50.0 * self.motor_load
        self.motor_temp_c += (target_c - self.motor_temp_c) * min(1.0, dt / MOTOR_TAU_S)
        self._update_faults(now)
        self._schedule(now)

    def _advance_mission(self, now: float) -> None:
        run = self.run
        if run is None:
            return
        if run.ended_at is not None:
            if now - run.ended_at > MISSION_LINGER_S:
                self.run = None
            return
        # "starting" is transient: it lasts until it has been reported once.
        if run.status == "starting" and self._reported_mission == (run.mission_id, "starting"):
            run.status = "running"
        if run.status != "running" or self._teleop_active(now):
            return
        limit = self.base.max_linear
        if run.speed_mps > 0.0:
            limit = min(limit, run.speed_mps)
        tolerance_m = self.controls.settings["goalToleranceCm"] / 100.0
        linear, angular = run.drive(self.base.pose, limit, tolerance_m, now)
        if run.status == "complete":
            self.base.halt()
            self.say("info", f"{run.name}: goal reached")
        else:
            self.base.command(linear, angular, now)

    def _update_faults(self, now: float) -> None:
        events = self._fault_feed.update(now, _unix_ms())
        for event in events:
            spec = event.spec
            if event.active:
                self.say(FAULT_LEVELS[spec.severity], f"{spec.severity} fault {spec.code}: "
                          f"{spec.message}")
            else:
                self.say("info", f"Fault {spec.code} cleared")
        if events:
            self._caps_now = True  # the Tilt warning light follows its fault

    def _schedule(self, now: float) -> None:
        """Makes status, mission and capabilities due now when what they report changed."""
        if self._status_now or self._status_signature(now) != self._reported_status:
            self._status.next_due = now
        run = self.run
        if run is not None and (run.mission_id, run.status) != self._reported_mission:
            self._mission.next_due = now
        if self._caps_now:
            self._caps.next_due = now
            self._caps_now = False
        self.map.schedule(now)

    # -- state helpers -------------------------------------------------------------------
    def _teleop_active(self, now: float) -> bool:
        return now - self._teleop_at <= TELEOP_TIMEOUT_S

    def _mode(self, now: float) -> str:
        if self._teleop_active(now):
            return "teleop"
        if self.run is not None and self.run.status in ("starting", "running"):
            return "auto"
        return "idle"

    def _active_mission_id(self) -> str | None:
        return self.run.mission_id if self.run is not None and self.run.active else None

    def _mission_path(self) -> tuple[str, list[XY]] | None:
        """The mission's name and where it still goes: from the rover through the waypoints
        left, or None without an active mission."""
        run = self.run
        if run is None or not run.active or run.target is None:
            return None
        pose = self.base.pose
        return run.name, [(pose.x, pose.y), *((w.x, w.y) for w in run.waypoints[run.index:])]

    def _status_signature(self, now: float) -> tuple[Any, ...]:
        return self._mode(now), self.estop, self.estop_reason, self._active_mission_id()

    def _refusal(self) -> str | None:
        """Why the rover may not drive now, or None."""
        if self.estop:
            return "e-stop engaged"
        if self.battery.empty:
            return "battery empty"
        return None

    def _halt(self) -> None:
        self.base.halt()
        self._teleop_at = -math.inf

    def _end_run(self, status: str, message: str, now: float) -> None:
        if self.run is not None and self.run.active:
            self.run.finish(status, message, now)
            self.say("warn", f"{self.run.name} {status}: {message}")

    def say(self, level: str, text: str) -> None:
        self._messages.append((level, text))

    def _apply_settings(self) -> None:
        self.base.max_linear = self.controls.settings["maxSpeed"]
        self.battery.charge_when_idle = self.controls.settings["chargeWhenIdle"]

    # -- commands ---------------------------------------------------------------------------
    def _on_command(self, member: str, message: DecodedMessage) -> None:
        command = message.root
        if command.robotId != self.robot_id:
            self.ignored_commands += 1
            return
        try:
            which = command.which()
            if which != member:
                raise ValueError(f"a {which} command on the {member} key")
            handler = getattr(self, f"_command_{member}")
            handler(getattr(command, member), command.seq, self._now)
        except (capnp.KjException, ValueError) as exc:
            self.rejected_commands += 1
            log.warning("%s: rejected %s command: %s", self.robot_id, member, exc)

    def _accept(self, seq: int, report_now: bool = True) -> None:
        self.last_seq = seq
        self._status_now = self._status_now or report_now

    def _command_teleop(self, twist: Any, seq: int, now: float) -> None:
        if self._refusal() is not None:
            return
        linear, angular = twist.linearMps, twist.angularRps
        run = self.run
        if run is not None and run.status in ("starting", "running"):
            if linear == 0.0 and angular == 0.0:
                self._accept(seq, report_now=False)  # an idle stick does not stop the mission
                return
            run.status, run.message = "paused", "operator took over"
            self.say("warn", f"{run.name} paused: operator took over")
        self.base.command(linear, angular, now)
        self._teleop_at = now
        self._accept(seq, report_now=False)

    def _command_goTo(self, goal: Any, seq: int, now: float) -> None:
        refusal = self._refusal()
        if refusal is not None:
            self.say("warn", f"Go-to refused: {refusal}")
            return
        which = goal.which()
        waypoint = (waypoint_from_pose(goal.pose, 0) if which == "pose"
                    else waypoint_from_pose3(goal.pose3, 0))
        speed = goal.speedMps if math.isfinite(goal.speedMps) and goal.speedMps > 0 else 0.0
        self._start_run(MissionRun(f"goto-{seq}", "Go to", [waypoint], 1, speed_mps=speed),
                        seq, now)

    def _command_mission(self, order: Any, seq: int, now: float) -> None:
        action = enum_value(order.action)
        run = self.run
        if action == "start":
            refusal = self._refusal()
            if refusal is not None:
                self.say("warn", f"Mission refused: {refusal}")
                return
            run = MissionRun(order.missionId or f"mission-{seq}", order.name or "Mission",
                             waypoints_of_steps(order.steps), len(order.steps))
            self._start_run(run, seq, now)
            return
        if run is None or not run.active or order.missionId not in ("", run.mission_id):
            self.say("warn", f"No active mission {order.missionId!r} to {action}")
            return
        if action == "pause" and run.status in ("starting", "running"):
            run.status, run.message = "paused", "paused by operator"
            self._halt()
        elif action == "resume" and run.status == "paused":
            refusal = self._refusal()
            if refusal is not None:
                self.say("warn", f"Resume refused: {refusal}")
                return
            run.status, run.message = "running", ""
            self._teleop_at = -math.inf
        elif action == "abort":
            self._end_run("aborted", "aborted by operator", now)
            self._halt()
        elif action not in ("pause", "resume"):
            raise ValueError(f"unknown mission action {action}")
        self._accept(seq)

    def _start_run(self, run: MissionRun, seq: int, now: float) -> None:
        self._end_run("aborted", f"superseded by {run.mission_id}", now)
        run.begin(self.base.pose, now)
        self.run = run
        self._teleop_at = -math.inf  # the new goal takes over from the stick
        if run.status == "error":
            self.say("warn", f"{run.name} failed: {run.message}")
        self._accept(seq)

    def _command_estop(self, estop: Any, seq: int, now: float) -> None:
        if estop.engage:
            reason = estop.reason or "operator e-stop"
            if not self.estop:
                self.say("error", f"E-stop engaged: {reason}")
            self.estop, self.estop_reason = True, reason
            self._halt()
            self._end_run("aborted", "e-stop engaged", now)
        else:
            if self.estop:
                self.say("info", "E-stop released")
            self.estop, self.estop_reason = False, ""
        self._accept(seq)

    def _command_setting(self, update: Any, seq: int, now: float) -> None:
        kind = update.value.which()
        value = getattr(update.value, kind)
        refusal = self.controls.update_setting(update.key, kind, value)
        if refusal is not None:
            self.say("warn", f"Setting refused: {refusal}")
            return
        self._apply_settings()
        self.say("info", f"{_SETTING_LABELS[update.key]} set to {value}")
        self._caps_now = True
        self._accept(seq)

    def _command_service(self, call: Any, seq: int, now: float) -> None:
        spec = _SERVICES.get(call.name)
        kind = call.which()
        if spec is None or kind != spec.type:
            self.say("warn", f"Service call refused: no {kind} service {call.name!r}")
            return
        if spec.name == "horn":
            self.say("info", "Horn sounded")
        elif spec.name == "lights":
            self.controls.lights = call.setBool
            self.say("info", f"Lights {'on' if call.setBool else 'off'}")
        else:
            self.say("warn", "Rebooting the onboard computer")
            self._halt()
            self._end_run("aborted", "reboot", now)
            self.controls.lights = False
            self._boot = now
        self._caps_now = True
        self._accept(seq)

    # -- telemetry ----------------------------------------------------------------------------
    def _produce_status(self, now: float) -> Any:
        message, status = self._uplink("status")
        self._reported_status = self._status_signature(now)
        self._status_now = False
        status.mode, status.estop, status.estopReason = self._reported_status[:3]
        status.uptimeS = now - self._boot
        status.lastCommandSeq = self.last_seq
        mission_id = self._active_mission_id()
        if mission_id is not None:
            status.activeMissionId, status.hasActiveMission = mission_id, True
        return message

    def _produce_motion(self, now: float) -> Any:
        message, motion = self._uplink("motion")
        corrections = self.controls.settings["gnssCorrections"]
        fill_motion(motion, self.base,
                    self.gnss.fix_type(now, corrections, RTK_LOST in self.faults.active))
        return message

    def _produce_battery(self, now: float) -> Any:
        message, battery = self._uplink("battery")
        fill_battery(battery, self.battery)
        return message

    def _produce_fault(self, now: float) -> Any:
        event = self._fault_feed.next(now)
        if event is None:
            return None
        message, fault = self._uplink("fault")
        fill_fault(fault, event)
        return message

    def _produce_mission(self, now: float) -> Any:
        run = self.run
        if run is None:
            return None
        self._reported_mission = (run.mission_id, run.status)
        message, feedback = self._uplink("mission")
        feedback.missionId, feedback.name, feedback.status = run.mission_id, run.name, run.status
        feedback.stepCount = run.step_count
        feedback.progress = run.progress(self.base.pose)
        shown = run.target or (run.waypoints[-1] if run.waypoints else None)
        if shown is not None:
            feedback.stepIndex = shown.step
            target = feedback.target
            target.latDeg, target.lonDeg, target.altitudeM = shown.lat, shown.lon, ALTITUDE_M
            target.headingDeg = shown.heading_deg
            feedback.hasTarget = True
        feedback.message = run.message or f"{run.remaining_m(self.base.pose):.1f} m to go"
        return message

    def _produce_capabilities(self, now: float) -> Any:
        message, caps = self._uplink("capabilities")
        run = self.run
        self.controls.fill(caps, {
            "odometer": round(self.odometer_m, 1),
            "lights": self.controls.lights,
            "motorLoad": round(100.0 * self.motor_load, 1),
            "firmware": FIRMWARE,
            "lidar": True,
            "tilt": TILT in self.faults.active,
            "motorTemp": round(self.motor_temp_c, 1),
            "missionProgress": round(100.0 * run.progress(self.base.pose), 1) if run else 0.0,
        })
        return message

    def _produce_message(self, now: float) -> Any:
        if not self._messages:
            return None
        level, text = self._messages.popleft()
        message, robot_message = self._uplink("message")
        robot_message.level, robot_message.text = level, text
        return message
