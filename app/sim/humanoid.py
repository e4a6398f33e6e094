"""A simulated bow-family humanoid: walks and turns on ``bow.MotorSample`` locomotion,
closes its right hand on ``GripperObjective.HandMapPercentage``, and reports what it does
through the bow modalities (vision, proprioception, exteroception, interoception).

Axes are the bow seed's Transform axes: X right, Y up, Z forward, a left-handed frame, so
forward speed is ``translationalVelocity.z`` and the yaw rate is ``rotationalVelocity.y``,
positive turning right (clockwise seen from above). The IMU gyro and orientation use the
same convention, so a commanded ``rotationalVelocity.y`` comes back as ``gyro.y``.
Angles are radians; positions metres relative to the ``base`` link (the floor point under
the pelvis). Every Transform names ``base`` as its ``linkName``, and the bow samples carry no
frame of their own, so the catalog lists ``frameId`` ``base`` for every topic and for the
motor command (whose velocities are in the same axes): the humanoid has no ``base_link``.
"""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime
from typing import Any, NamedTuple

import numpy as np

from app.bus.keys import DEFAULT_ROOT
from app.codec.decode import DecodedMessage
from app.sim.humanoid_body import (
    BASE_LINK,
    DEFAULT_POSITIONS,
    EFFECTORS,
    HAND_DIGITS,
    JOINT_INDEX,
    JOINTS,
    PARTS,
    POS_Y,
    EffectorSpec,
    Gait,
    Hand,
    Pose,
    euler_angles,
    forward_kinematics,
    rotation,
)
from app.sim.humanoid_camera import HeadCamera
from app.sim.humanoid_health import Battery, Fault, FaultSchedule, JointHeat
from app.sim.kinematics import Pose2D, Unicycle
from app.sim.robot import TELEOP_TIMEOUT_S, SimRobot

MAX_SPEED = 0.8  # m/s, a brisk walk
MAX_TURN_RATE = 1.0  # rad/s
LINEAR_ACCEL = 1.5  # m/s², so a stop from full speed takes about half a second
ANGULAR_ACCEL = 3.0  # rad/s²
GRAVITY = 9.81
GROUND_ELEVATION_M = 408.0
GPS_ANTENNA = np.array([0.0, 0.14, -0.02])  # on top of the head, in the head link's frame
IMU_SOURCE = "pelvis_imu"
CAMERA_SOURCE = "head_camera"
VIDEO_SOURCE = "head_camera_h264"  # the same view as H.264, a second sample of each message
# Noise of the simulated IMU (1 sigma).
GYRO_NOISE = 0.003  # rad/s
ACC_NOISE = 0.03  # m/s²

_MAX_TORQUE = np.array([j.max_torque for j in JOINTS])
_RANGE = np.array([j.upper - j.lower for j in JOINTS])


class JointHealth(NamedTuple):
    torque: np.ndarray  # N·m
    temperature_c: np.ndarray  # °C
    healthy: np.ndarray


def _finite(value: float) -> float:
    return value if math.isfinite(value) else 0.0


def _clamp(value: float, limit: float) -> float:
    return max(-limit, min(limit, value))


def _fill_vector(builder: Any, values: Any) -> None:
    builder.x, builder.y, builder.z = (float(v) for v in values)


def _fill_transform(builder: Any, pose: Pose, part: str) -> None:
    """``linkName`` is the frame the pose is relative to (the seed: "the origin point to
    which the transform is relative"); ``part`` names what is posed."""
    position, rot = pose
    _fill_vector(builder.position, position)
    _fill_vector(builder.eulerAngles, euler_angles(rot))
    builder.linkName = BASE_LINK
    builder.part = part


def heading_of(pose: Pose2D) -> float:
    """rad clockwise from north: the yaw about the seed's +Y (up) axis."""
    return math.remainder(math.pi / 2 - pose.yaw, 2 * math.pi)


def motor_locomotion(sample: Any) -> tuple[float, float] | None:
    """(forward m/s, counter-clockwise rad/s) a bow.MotorSample reader asks the base for,
    clamped, non-finite values as zero; None when it sets no locomotion."""
    if not sample._has("locomotion"):
        return None
    loc = sample.locomotion
    forward = _clamp(_finite(loc.translationalVelocity.z), MAX_SPEED)
    turn_right = _clamp(_finite(loc.rotationalVelocity.y), MAX_TURN_RATE)
    return forward, -turn_right


def fill_exteroception(msg: Any, poses: dict[str, Pose], base: Unicycle, forward_accel: float,
                       vertical_accel: float, noise: np.ndarray) -> None:
    """A bow.ExteroceptionSample: the pelvis IMU (``noise``: six standard normal draws) and
    the GNSS fix of the head's antenna, for the body in ``poses`` on ``base``."""
    speed, turn_right = base.linear, -base.angular
    heading = heading_of(base.pose)
    imu = msg.init("imu", 1)[0]
    imu.source = IMU_SOURCE
    _fill_vector(imu.gyro, (0.0, turn_right, 0.0) + GYRO_NOISE * noise[:3])
    # Specific force in the pelvis frame: centripetal to the right when turning right,
    # gravity's reaction up, the speed ramp forward.
    acc = (speed * turn_right, GRAVITY + vertical_accel, forward_accel)
    _fill_vector(imu.acc, acc + ACC_NOISE * noise[3:])
    _fill_vector(imu.orientation, (0.0, heading, 0.0))
    _fill_transform(imu.transform, poses["pelvis"], "pelvis")
    imu.hasAcc = imu.hasGyro = True

    head_position, head_rot = poses["head"]
    antenna = (head_position + head_rot @ GPS_ANTENNA, head_rot)
    lat, lon = base.pose.geodetic()
    gps = msg.init("gps")
    gps.source = "gnss"
    gps.latitude, gps.longitude = lat, lon
    gps.elevation = GROUND_ELEVATION_M + float(antenna[0][1])
    gps.time = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    _fill_transform(gps.transform, antenna, "gps_antenna")


def fill_interoception(msg: Any, battery: Battery, fault: Fault | None) -> None:
    """A bow.InteroceptionSample: the battery, and the fault active if any."""
    builder = msg.init("battery")
    builder.voltage = battery.voltage
    builder.current = battery.current_a
    builder.charge = battery.charge_ah
    builder.percentage = 100.0 * battery.fraction
    builder.present = True
    builder.supplyStatus = "discharging"
    msg.error = [fault.text] if fault is not None else []


class SimHumanoid(SimRobot):
    model = "sim-humanoid"
    families = ("bow",)

    def __init__(
        self,
        robot_id: str,
        name: str = "Sim humanoid",
        root: str = DEFAULT_ROOT,
        faults: FaultSchedule | None = None,
        camera: bool = True,
        start: Pose2D | None = None,
    ) -> None:
        """``camera=False``: no vision topic (a depot's light humanoid); ``start``: where
        it stands (default the datum)."""
        super().__init__(robot_id, name, root)
        self.has_camera = camera
        self.base = Unicycle(start or Pose2D(), max_linear=MAX_SPEED, max_angular=MAX_TURN_RATE)
        self.gait = Gait(MAX_SPEED, MAX_TURN_RATE)
        self.hand = Hand()
        self.battery = Battery()
        self.faults = faults or FaultSchedule()
        self.camera = HeadCamera()
        self.heat = JointHeat(_MAX_TORQUE)
        self.q = DEFAULT_POSITIONS.copy()
        self.qd = np.zeros(len(JOINTS))
        self.qdd = np.zeros(len(JOINTS))
        self.forward_accel = 0.0  # m/s², from the speed ramp
        self._target = (0.0, 0.0)  # commanded forward m/s, counter-clockwise rad/s
        self._last_command = -math.inf
        self._started: float | None = None
        self._now = 0.0
        self._poses: dict[str, Pose] | None = None
        self._frame = 0
        self._rng = np.random.default_rng()

    def setup(self) -> None:
        if self.has_camera:
            self.add_topic("vision", "bow.ImageSamples", 10.0, self._vision, BASE_LINK)
        self.add_topic("proprioception", "bow.ProprioceptionSample", 30.0, self._proprioception,
                       BASE_LINK)
        self.add_topic("exteroception", "bow.ExteroceptionSample", 50.0, self._exteroception,
                       BASE_LINK)
        self.add_topic("interoception", "bow.InteroceptionSample", 1.0, self._interoception,
                       BASE_LINK)
        self.add_command("motor", "bow.MotorSample", self._on_motor, BASE_LINK)

    # -- commands ---------------------------------------------------------------------
    def _on_motor(self, message: DecodedMessage) -> None:
        self.apply_motor(message.root, time.monotonic())

    def apply_motor(self, sample: Any, now: float) -> None:
        """Takes a bow.MotorSample reader. Non-finite values count as zero (locomotion) or
        are ignored (hand digits); parts the sample does not set are left alone."""
        locomotion = motor_locomotion(sample)
        if locomotion is not None:
            self._target = locomotion
            self._last_command = now
        if not sample._has("gripperObjective"):
            return
        gripper = sample.gripperObjective
        if gripper.gripperControlMode == "percentageMode" and gripper._has("handMapPercentage"):
            hand_map = gripper.handMapPercentage
            self.hand.set_target({digit: getattr(hand_map, digit) for digit in HAND_DIGITS})

    # -- physics ----------------------------------------------------------------------
    def step(self, now: float, dt: float) -> None:
        if self._started is None:
            self._started = now
        self._now = now
        if dt <= 0.0:
            return
        fresh = now - self._last_command <= TELEOP_TIMEOUT_S
        target_v, target_w = self._target if fresh else (0.0, 0.0)
        v = self.base.linear + _clamp(target_v - self.base.linear, LINEAR_ACCEL * dt)
        w = self.base.angular + _clamp(target_w - self.base.angular, ANGULAR_ACCEL * dt)
        self.forward_accel = (v - self.base.linear) / dt
        self.base.command(v, w, now)
        self.base.step(now, dt)
        self.gait.step(dt, v, w)
        self.hand.step(dt)

        q = DEFAULT_POSITIONS.copy()
        self.gait.apply(q)
        self.hand.apply(q)
        qd = (q - self.q) / dt
        self.qdd = (qd - self.qd) / dt
        self.q, self.qd = q, qd
        self.heat.step(dt, self.torque())
        self.battery.step(dt, self.gait.amplitude)
        self._poses = None

    def torque(self) -> np.ndarray:
        """Holding torque: a base load plus one growing with the distance from rest."""
        offset = self.q - DEFAULT_POSITIONS
        return _MAX_TORQUE * (0.08 + 0.5 * np.abs(offset) / _RANGE) * np.where(offset < 0, -1, 1)

    def poses(self) -> dict[str, Pose]:
        if self._poses is None:
            self._poses = forward_kinematics(self.q, self.gait.pelvis_height())
        return self._poses

    @property
    def uptime(self) -> float:
        return 0.0 if self._started is None else self._now - self._started

    @property
    def heading(self) -> float:
        """rad clockwise from north: the yaw about the seed's +Y (up) axis."""
        return heading_of(self.base.pose)

    def world_pose(self, pose: Pose) -> Pose:
        """A base-frame pose in the world frame (X east, Y up, Z north)."""
        position, rot = pose
        heading = rotation(POS_Y, self.heading)
        origin = np.array([self.base.pose.x, 0.0, self.base.pose.y])
        return origin + heading @ position, heading @ rot

    # -- telemetry --------------------------------------------------------------------
    def _vision(self, now: float) -> Any:
        camera_pose = self.poses()["head_camera"]
        position, rot = self.world_pose(camera_pose)
        self._frame += 1
        frame = self.camera.render(position, rot, f"{self.robot_id} head #{self._frame}")
        fault = self.faults.active(self.uptime)
        if fault is not None and fault.darkens_camera:
            frame = (frame * 0.3).astype(np.uint8)
        msg = self.new("bow.ImageSamples")
        still, video = msg.init("samples", 2)
        still.data = self.camera.jpeg(frame)
        still.compression = "jpg"
        video.data = self.camera.h264(frame)
        video.compression = "h264"
        for sample, source in ((still, CAMERA_SOURCE), (video, VIDEO_SOURCE)):
            sample.source = source
            sample.dataShape = [self.camera.width, self.camera.height, 3]
            sample.imageType = "rgb"
            _fill_transform(sample.transform, camera_pose, "head_camera")
            sample.frameNumber = self._frame
            sample.designation = "none"
            sample.hfov = self.camera.hfov_deg
            sample.vfov = self.camera.vfov_deg
            sample.newDataFlag = True
        return msg

    def _proprioception(self, now: float) -> Any:
        poses = self.poses()
        msg = self.new("bow.ProprioceptionSample")
        # Each joint is filled once, in rawJoints, and copied into the effectors' arrays.
        raw = msg.init("rawJoints", len(JOINTS))
        health = self._joint_health()
        for index, builder in enumerate(raw):
            self._fill_joint(builder, index, health)
        filled = []
        for builder, part in zip(msg.init("parts", len(PARTS)), PARTS, strict=True):
            builder.name = part.name
            builder.type = part.type
            builder.rootLink = part.root_link
            builder.parent = part.parent
            effectors = builder.init("effectors", len(part.effectors))
            for effector, spec in zip(effectors, part.effectors, strict=True):
                self._fill_effector(effector, spec, poses, raw)
                filled.append(effector)
        listed = msg.init("effectors", len(EFFECTORS))
        for index, effector in enumerate(filled):
            listed[index] = effector
        msg.workspaceByteArray = b""  # no octree workspace to share: empty, not null
        return msg

    def _joint_health(self) -> JointHealth:
        """Torque, temperature and health per joint, the active fault applied."""
        torque = self.torque()
        temperature = self.heat.temperature_c.copy()
        healthy = np.ones(len(JOINTS), dtype=bool)
        fault = self.faults.active(self.uptime)
        if fault is not None and fault.joint is not None:
            index = JOINT_INDEX[fault.joint]
            healthy[index] = False
            if fault.temperature_c is not None:
                temperature[index] = fault.temperature_c
        return JointHealth(torque, temperature, healthy)

    @staticmethod
    def _fill_effector(builder: Any, spec: EffectorSpec, poses: dict[str, Pose],
                       raw_joints: Any) -> None:
        builder.effectorLinkName = spec.link
        _fill_transform(builder.endTransform, poses[spec.link], spec.link)
        _fill_transform(builder.rootTransform, poses[spec.root_link], spec.root_link)
        builder.reach = spec.reach
        joints = builder.init("jointArray", len(spec.joints))
        for index, name in enumerate(spec.joints):
            joints[index] = raw_joints[JOINT_INDEX[name]]
        builder.availableActions = list(spec.actions)
        builder.isControllable = spec.controllable
        builder.type = "effector"

    def _fill_joint(self, builder: Any, index: int, health: JointHealth) -> None:
        spec = JOINTS[index]
        builder.name = spec.name
        builder.type = "revolute"
        builder.position = float(self.q[index])
        builder.velocity = float(self.qd[index])
        builder.acceleration = float(self.qdd[index])
        builder.torque = float(health.torque[index])
        builder.min = spec.lower
        builder.max = spec.upper
        builder.default = spec.default
        builder.temperature = float(health.temperature_c[index])
        builder.healthy = bool(health.healthy[index])
        builder.mimic = spec.mimic
        builder.maxVelocity = spec.max_velocity
        builder.maxAcceleration = spec.max_acceleration
        builder.maxTorque = spec.max_torque

    def _exteroception(self, now: float) -> Any:
        msg = self.new("bow.ExteroceptionSample")
        fill_exteroception(msg, self.poses(), self.base, self.forward_accel,
                           self.gait.vertical_acceleration(), self._rng.normal(size=6))
        return msg

    def _interoception(self, now: float) -> Any:
        msg = self.new("bow.InteroceptionSample")
        fill_interoception(msg, self.battery, self.faults.active(self.uptime))
        return msg
