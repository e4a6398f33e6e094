"""The simulated humanoid's body: skeleton, forward kinematics, walking gait and the
five-finger right hand that ``HandMapPercentage`` drives.

Frames follow the bow seed's Transform: X right, Y up, Z forward, metres. That frame is
left-handed, so a positive rotation about +Y turns forward (+Z) towards the right (+X):
rotation matrices are the usual component formulas, read in that frame. ``base`` is the
floor point under the pelvis (the seed's RelativeToEnum.base).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Vec = tuple[float, float, float]
POS_X: Vec = (1.0, 0.0, 0.0)
NEG_X: Vec = (-1.0, 0.0, 0.0)
POS_Y: Vec = (0.0, 1.0, 0.0)
NEG_Y: Vec = (0.0, -1.0, 0.0)
NEG_Z: Vec = (0.0, 0.0, -1.0)

PELVIS_HEIGHT_M = 0.95
BASE_LINK = "base"


@dataclass(frozen=True)
class JointSpec:
    name: str
    axis: Vec  # positive angle = the anatomical motion named in the comment where it is built
    lower: float
    upper: float
    default: float = 0.0
    max_velocity: float = 4.0  # rad/s
    max_acceleration: float = 60.0  # rad/s²
    max_torque: float = 60.0  # N·m
    mimic: bool = False


@dataclass(frozen=True)
class Link:
    name: str
    parent: str
    offset: Vec  # origin in the parent's frame at zero joint angles, m
    joints: tuple[JointSpec, ...] = ()  # applied in order at this link's origin


def _finger(name: str, axis: Vec, lower: float, upper: float, **kw: Any) -> JointSpec:
    """A light finger joint: quick to accelerate, weak."""
    return JointSpec(name, axis, lower, upper, max_acceleration=100.0, **kw)


def _torso() -> list[Link]:
    return [
        Link("pelvis", BASE_LINK, (0.0, PELVIS_HEIGHT_M, 0.0)),
        Link("torso", "pelvis", (0.0, 0.10, 0.0), (
            JointSpec("waist_yaw", POS_Y, -0.8, 0.8, max_torque=120.0),
            JointSpec("waist_pitch", POS_X, -0.3, 0.6, max_torque=150.0),  # + leans forward
        )),
        Link("chest", "torso", (0.0, 0.28, 0.0)),
        Link("head", "chest", (0.0, 0.14, 0.0), (
            JointSpec("neck_yaw", POS_Y, -1.2, 1.2, max_torque=10.0),  # + looks right
            JointSpec("neck_pitch", POS_X, -0.5, 0.7, default=0.3, max_torque=10.0),  # + down
        )),
        Link("head_camera", "head", (0.0, 0.08, 0.09)),
    ]


def _arm(side: str, sign: float) -> list[Link]:
    """sign -1 for the left side (towards -X), +1 for the right."""
    roll_axis: Vec = (0.0, 0.0, sign)  # + raises the arm sideways, away from the body
    return [
        Link(f"{side}_upper_arm", "chest", (0.19 * sign, 0.07, 0.0), (
            JointSpec(f"{side}_shoulder_pitch", NEG_X, -1.0, 3.0, max_torque=40.0),  # + fwd
            JointSpec(f"{side}_shoulder_roll", roll_axis, -0.2, 2.0, default=0.08,
                      max_torque=40.0),
            JointSpec(f"{side}_shoulder_yaw", POS_Y, -1.5, 1.5, max_torque=20.0),
        )),
        Link(f"{side}_forearm", f"{side}_upper_arm", (0.0, -0.28, 0.0), (
            JointSpec(f"{side}_elbow", NEG_X, 0.0, 2.4, default=0.25, max_torque=30.0),
        )),
        Link(f"{side}_hand", f"{side}_forearm", (0.0, -0.25, 0.0), (
            JointSpec(f"{side}_wrist_yaw", POS_Y, -1.6, 1.6, max_torque=8.0),
            JointSpec(f"{side}_wrist_pitch", NEG_X, -1.0, 1.0, max_torque=8.0),
        )),
    ]


def _leg(side: str, sign: float) -> list[Link]:
    roll_axis: Vec = (0.0, 0.0, sign)  # + moves the foot outwards
    return [
        Link(f"{side}_thigh", "pelvis", (0.09 * sign, -0.05, 0.0), (
            JointSpec(f"{side}_hip_yaw", POS_Y, -0.6, 0.6, max_torque=80.0),
            JointSpec(f"{side}_hip_roll", roll_axis, -0.4, 0.6, max_torque=120.0),
            JointSpec(f"{side}_hip_pitch", NEG_X, -0.8, 1.8, max_torque=160.0),  # + thigh fwd
        )),
        Link(f"{side}_shin", f"{side}_thigh", (0.0, -0.40, 0.0), (
            JointSpec(f"{side}_knee", POS_X, 0.0, 2.4, default=0.05, max_torque=200.0),
        )),
        Link(f"{side}_foot", f"{side}_shin", (0.0, -0.40, 0.0), (
            JointSpec(f"{side}_ankle_pitch", NEG_X, -0.8, 0.6, max_torque=120.0),  # + toes up
            JointSpec(f"{side}_ankle_roll", roll_axis, -0.3, 0.3, max_torque=60.0),
        )),
        Link(f"{side}_sole", f"{side}_foot", (0.0, -0.10, 0.04)),
    ]


FINGERS = ("index", "middle", "ring", "pinky")
# Finger root along the palm's front edge (z), spread joint axis and range, phalanx lengths (m).
_FINGER_GEOMETRY: dict[str, tuple[float, Vec | None, float, tuple[float, float, float]]] = {
    "index": (0.030, NEG_X, 0.25, (0.045, 0.027, 0.022)),
    "middle": (0.010, None, 0.0, (0.050, 0.032, 0.024)),
    "ring": (-0.010, POS_X, 0.15, (0.047, 0.030, 0.023)),
    "pinky": (-0.030, POS_X, 0.30, (0.038, 0.022, 0.020)),
}
_THUMB_DIRECTION = np.array([0.0, -0.5, 0.85]) / math.hypot(0.5, 0.85)
# The right palm faces the body (-X) when the arm hangs: flexion about -Z curls towards it.
_FLEX_AXIS = NEG_Z


def _right_hand() -> list[Link]:
    side, hand = "right", "right_hand"
    links: list[Link] = []
    for finger in FINGERS:
        z, spread_axis, spread, (proximal, middle, distal) = _FINGER_GEOMETRY[finger]
        base = [_finger(f"{side}_{finger}_mcp", _FLEX_AXIS, 0.0, 1.57, max_torque=1.5)]
        if spread_axis is not None:  # + spreads the finger away from the middle finger
            base.insert(0, _finger(f"{side}_{finger}_abduction", spread_axis, 0.0, spread,
                                   default=spread, max_torque=0.8))
        links += [
            Link(f"{side}_{finger}_proximal", hand, (0.0, -0.095, z), tuple(base)),
            Link(f"{side}_{finger}_middle", f"{side}_{finger}_proximal", (0.0, -proximal, 0.0),
                 (_finger(f"{side}_{finger}_pip", _FLEX_AXIS, 0.0, 1.75, max_torque=1.0),)),
            Link(f"{side}_{finger}_distal", f"{side}_{finger}_middle", (0.0, -middle, 0.0),
                 (_finger(f"{side}_{finger}_dip", _FLEX_AXIS, 0.0, 1.40, max_torque=0.6,
                          mimic=True),)),
            Link(f"{side}_{finger}_tip", f"{side}_{finger}_distal", (0.0, -distal, 0.0)),
        ]
    d = _THUMB_DIRECTION
    links += [
        Link(f"{side}_thumb_metacarpal", hand, (-0.015, -0.030, 0.030), (
            _finger(f"{side}_thumb_opposition", NEG_Y, 0.0, 1.2, max_torque=1.5),  # + to palm
        )),
        Link(f"{side}_thumb_proximal", f"{side}_thumb_metacarpal", tuple(0.040 * d), (
            _finger(f"{side}_thumb_mcp", POS_X, 0.0, 1.0, max_torque=1.5),
        )),
        Link(f"{side}_thumb_distal", f"{side}_thumb_proximal", tuple(0.032 * d), (
            _finger(f"{side}_thumb_ip", POS_X, 0.0, 1.3, max_torque=1.0),
        )),
        Link(f"{side}_thumb_tip", f"{side}_thumb_distal", tuple(0.025 * d)),
    ]
    return links


LINKS: tuple[Link, ...] = (
    *_torso(), *_arm("left", -1.0), *_arm("right", 1.0), *_right_hand(),
    *_leg("left", -1.0), *_leg("right", 1.0),
)
LINK_BY_NAME = {link.name: link for link in LINKS}
JOINTS: tuple[JointSpec, ...] = tuple(j for link in LINKS for j in link.joints)
JOINT_INDEX = {joint.name: i for i, joint in enumerate(JOINTS)}
DEFAULT_POSITIONS = np.array([joint.default for joint in JOINTS])


def _path(root_link: str, end_link: str) -> list[Link]:
    """The links after root_link up to and including end_link."""
    path = []
    name = end_link
    while name != root_link:
        link = LINK_BY_NAME[name]
        path.append(link)
        name = link.parent
    return path[::-1]


@dataclass(frozen=True)
class EffectorSpec:
    link: str
    root_link: str
    # What a MotorSample can make this effector do: only the gripper's hand map is obeyed.
    actions: tuple[str, ...] = ()
    controllable: bool = False
    joints: tuple[str, ...] = field(init=False)
    reach: float = field(init=False)  # m, the chain's length when straight

    def __post_init__(self) -> None:
        path = _path(self.root_link, self.link)
        object.__setattr__(self, "joints", tuple(j.name for link in path for j in link.joints))
        object.__setattr__(self, "reach", sum(math.hypot(*link.offset) for link in path))


@dataclass(frozen=True)
class PartSpec:
    name: str
    type: str  # BodyPartTypeEnum
    root_link: str
    parent: str
    effectors: tuple[EffectorSpec, ...] = ()


PARTS: tuple[PartSpec, ...] = (
    PartSpec("pelvis", "root", "pelvis", ""),
    PartSpec("torso", "limb", "pelvis", "pelvis", (EffectorSpec("chest", "pelvis"),)),
    PartSpec("head", "limb", "chest", "torso", (EffectorSpec("head_camera", "chest"),)),
    PartSpec("left_arm", "limb", "chest", "torso", (EffectorSpec("left_hand", "chest"),)),
    PartSpec("right_arm", "limb", "chest", "torso", (EffectorSpec("right_hand", "chest"),)),
    PartSpec("right_gripper", "gripper", "right_hand", "right_arm", tuple(
        EffectorSpec(f"right_{digit}_tip", "right_hand", ("grasp",), controllable=True)
        for digit in ("thumb", *FINGERS)
    )),
    *(
        PartSpec(f"{side}_leg", "limb", "pelvis", "pelvis",
                 (EffectorSpec(f"{side}_sole", "pelvis"),))
        for side in ("left", "right")
    ),
)
EFFECTORS: tuple[EffectorSpec, ...] = tuple(e for part in PARTS for e in part.effectors)


# -- kinematics -------------------------------------------------------------------------

def rotation(axis: Vec, angle: float) -> np.ndarray:
    """Rotation matrix of ``angle`` rad about the unit vector ``axis`` (Rodrigues)."""
    k, kk = _cross_matrices(axis)
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * kk


def euler_angles(r: np.ndarray) -> tuple[float, float, float]:
    """(x, y, z) angles in rad of r = Ry(y) · Rx(x) · Rz(z): yaw about Y applied last, as a
    heading; x is pitch (+ nose down), z is roll."""
    x = math.asin(max(-1.0, min(1.0, -r[1, 2])))
    y = math.atan2(r[0, 2], r[2, 2])
    z = math.atan2(r[1, 0], r[1, 1])
    return x, y, z


Pose = tuple[np.ndarray, np.ndarray]  # (position m, rotation matrix), in the base frame


def _cross_matrices(axis: Vec) -> tuple[np.ndarray, np.ndarray]:
    x, y, z = axis
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return k, k @ k


# Per link: its offset and, per joint, (index in q, K, K²) for Rodrigues' formula.
_FK_PLAN = [
    (link, np.array(link.offset),
     [(JOINT_INDEX[j.name], *_cross_matrices(j.axis)) for j in link.joints])
    for link in LINKS
]
_IDENTITY = np.eye(3)


def forward_kinematics(q: np.ndarray, pelvis_height: float = PELVIS_HEIGHT_M) -> dict[str, Pose]:
    """Every link's pose in the base frame for joint positions ``q`` (ordered as JOINTS)."""
    poses: dict[str, Pose] = {BASE_LINK: (np.zeros(3), _IDENTITY)}
    for link, offset, joints in _FK_PLAN:
        parent_pos, parent_rot = poses[link.parent]
        if link.name == "pelvis":
            offset = np.array([0.0, pelvis_height, 0.0])
        rot = parent_rot
        for index, k, kk in joints:
            angle = q[index]
            rot = rot @ (_IDENTITY + math.sin(angle) * k + (1.0 - math.cos(angle)) * kk)
        poses[link.name] = (parent_pos + parent_rot @ offset, rot)
    return poses


# -- motion ---------------------------------------------------------------------------

@dataclass
class Smoothed:
    """A critically damped follower: reaches its target without overshoot, with continuous
    velocity, so the joints it drives have bounded acceleration."""

    omega: float  # rad/s, natural frequency: settles in about 5 / omega seconds
    value: float = 0.0
    rate: float = 0.0

    def step(self, target: float, dt: float) -> float:
        accel = self.omega * self.omega * (target - self.value) - 2.0 * self.omega * self.rate
        self.rate += accel * dt
        self.value += self.rate * dt
        return self.value


@dataclass
class Gait:
    """A walking cycle whose amplitude follows the base's speed and turn rate."""

    max_speed: float
    max_turn_rate: float
    phase: float = 0.0  # rad, left leg forward at pi/2
    bob_m: float = 0.015  # pelvis drop at mid-stride, full amplitude
    _amplitude: Smoothed = field(default_factory=lambda: Smoothed(omega=10.0))
    _head_lead: Smoothed = field(default_factory=lambda: Smoothed(omega=7.0))

    @property
    def amplitude(self) -> float:
        """0 standing .. 1 full stride."""
        return min(1.0, max(0.0, self._amplitude.value))

    def cadence(self) -> float:
        """Gait cycles (two steps) per second."""
        return 0.8 + 0.5 * self.amplitude

    def step(self, dt: float, speed: float, turn_rate: float) -> None:
        """turn_rate counter-clockwise, like the base."""
        stride = abs(speed) / self.max_speed + 0.4 * abs(turn_rate) / self.max_turn_rate
        self._amplitude.step(min(1.0, stride), dt)
        # the head looks into the turn: to the right (+ neck yaw) for a clockwise turn
        self._head_lead.step(-0.3 * turn_rate / self.max_turn_rate, dt)
        if self.amplitude > 0.0:
            self.phase = (self.phase + 2.0 * math.pi * self.cadence() * dt) % (2.0 * math.pi)

    def pelvis_height(self) -> float:
        drop = self.amplitude * self.bob_m * 0.5 * (1.0 - math.cos(2 * self.phase))
        return PELVIS_HEIGHT_M - drop

    def vertical_acceleration(self) -> float:
        """Second derivative of pelvis_height at constant cadence, m/s²."""
        omega = 2.0 * math.pi * self.cadence()
        return -2.0 * self.amplitude * self.bob_m * omega * omega * math.cos(2 * self.phase)

    def apply(self, q: np.ndarray) -> None:
        """Writes the leg, arm, waist and neck angles of this instant into q."""
        a, phi = self.amplitude, self.phase
        for side, offset, sway in (("left", 0.0, 1.0), ("right", math.pi, -1.0)):
            hip = a * 0.35 * math.sin(phi + offset)
            # the knee bends most while its leg swings forward (hip moving forward)
            knee = 0.05 + a * 0.6 * (0.5 * (1.0 + math.cos(phi + offset))) ** 2
            q[JOINT_INDEX[f"{side}_hip_pitch"]] = hip
            q[JOINT_INDEX[f"{side}_knee"]] = knee
            q[JOINT_INDEX[f"{side}_ankle_pitch"]] = 0.7 * (knee - hip) - 0.035
            q[JOINT_INDEX[f"{side}_hip_roll"]] = sway * a * 0.03 * math.sin(phi)
            # arms swing against the leg of their side
            q[JOINT_INDEX[f"{side}_shoulder_pitch"]] = -a * 0.3 * math.sin(phi + offset)
            q[JOINT_INDEX[f"{side}_elbow"]] = 0.25 + a * 0.15 * (1 + math.sin(phi + offset))
        waist = a * 0.06 * math.sin(phi)
        q[JOINT_INDEX["waist_yaw"]] = waist
        q[JOINT_INDEX["waist_pitch"]] = 0.04 * a
        q[JOINT_INDEX["neck_yaw"]] = -waist + self._head_lead.value


HAND_DIGITS = ("thumb", "index", "middle", "ring", "pinky", "fingerAdduction",
               "thumbOpposition")


def _hand_drive() -> list[tuple[int, int, bool]]:
    """(joint index, digit index, inverted) for each joint the hand map drives."""
    drive = []
    for name, index in JOINT_INDEX.items():
        if not name.startswith("right_") or name.split("_")[1] not in ("thumb", *FINGERS):
            continue
        digit = name.split("_")[1]
        if name.endswith("_abduction"):
            # fingerAdduction 1 brings the fingers together: spread is its complement.
            drive.append((index, HAND_DIGITS.index("fingerAdduction"), True))
        elif name.endswith("_opposition"):
            drive.append((index, HAND_DIGITS.index("thumbOpposition"), False))
        else:
            drive.append((index, HAND_DIGITS.index(digit), False))
    return drive


@dataclass
class Hand:
    """Per-digit closure 0 open .. 1 closed, moving to its target along a trapezoidal
    velocity profile (limited speed and acceleration), landing on it exactly."""

    rate: float = 1.5  # closure per second
    accel: float = 10.0  # closure per second²: a full close takes about 0.8 s
    closure: np.ndarray = field(default_factory=lambda: np.zeros(len(HAND_DIGITS)))
    speed: np.ndarray = field(default_factory=lambda: np.zeros(len(HAND_DIGITS)))
    target: np.ndarray = field(default_factory=lambda: np.zeros(len(HAND_DIGITS)))
    _drive: list[tuple[int, int, bool]] = field(default_factory=_hand_drive)

    def set_target(self, values: dict[str, float]) -> None:
        """Non-finite values are ignored (that digit keeps its target); others clamp to 0..1."""
        for name, value in values.items():
            if math.isfinite(value):
                self.target[HAND_DIGITS.index(name)] = min(1.0, max(0.0, value))

    def step(self, dt: float) -> None:
        error = self.target - self.closure
        # the fastest speed from which it can still brake before the target
        wanted = np.sign(error) * np.minimum(self.rate, np.sqrt(2.0 * self.accel * np.abs(error)))
        self.speed += np.clip(wanted - self.speed, -self.accel * dt, self.accel * dt)
        move = np.clip(self.speed * dt, -np.abs(error), np.abs(error))
        self.closure = np.clip(self.closure + move, 0.0, 1.0)
        self.speed = move / dt

    def apply(self, q: np.ndarray) -> None:
        for joint_index, digit, inverted in self._drive:
            joint = JOINTS[joint_index]
            c = self.closure[digit]
            q[joint_index] = joint.lower + ((1.0 - c) if inverted else c) * (
                joint.upper - joint.lower)
