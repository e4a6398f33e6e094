"""A small synthetic world for the simulated sensors: people walking, boxes and pallets, a
slowly driving vehicle.

Everything is a pure function of time, so every sensor that asks for ``objects(t)`` at the
same ``t`` sees the same world. Each object is built from boxes (``Part``) — a person's
boxes hang on its skeleton — which the lidar samples and the camera draws, so the cloud,
the image, the 2D/3D detections and the skeletons all agree.

World frame: x east, y north, z up, metres, the frame of kinematics.Pose2D.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Color = tuple[int, int, int]  # RGB 0-255

SKELETON_JOINTS = (
    "head", "neck",
    "left_shoulder", "right_shoulder", "left_elbow", "right_elbow", "left_wrist", "right_wrist",
    "left_hip", "right_hip", "left_knee", "right_knee", "left_ankle", "right_ankle",
)
_J = {name: i for i, name in enumerate(SKELETON_JOINTS)}
SKELETON_EDGES = tuple(
    (_J[a], _J[b])
    for a, b in (
        ("head", "neck"),
        ("neck", "left_shoulder"), ("left_shoulder", "left_elbow"), ("left_elbow", "left_wrist"),
        ("neck", "right_shoulder"), ("right_shoulder", "right_elbow"),
        ("right_elbow", "right_wrist"),
        ("neck", "left_hip"), ("neck", "right_hip"), ("left_hip", "right_hip"),
        ("left_hip", "left_knee"), ("left_knee", "left_ankle"),
        ("right_hip", "right_knee"), ("right_knee", "right_ankle"),
    )
)

PERSON_SIZE = (1.0, 0.6, 1.8)  # a walking stride reaches from -0.45 to +0.40 m
STRIDE_M = 1.4  # distance walked per full gait cycle


@dataclass(frozen=True)
class Part:
    """A box: centre, rotation (columns are the box axes in the parent frame), full extents."""

    center: np.ndarray  # (3,)
    rotation: np.ndarray  # (3, 3)
    size: np.ndarray  # (3,)
    color: Color


@dataclass(frozen=True)
class SceneObject:
    id: str
    kind: str  # person, box, pallet, vehicle
    position: tuple[float, float, float]  # centre of the bounding box, world frame, m
    size: tuple[float, float, float]  # bounding box extents along (heading, left, up), m
    yaw: float  # heading, rad counter-clockwise from east
    velocity: tuple[float, float, float]  # m/s, world frame
    color: Color
    parts: tuple[Part, ...]
    joints: np.ndarray | None = None  # (len(SKELETON_JOINTS), 3) world positions, people only


@dataclass(frozen=True)
class BoxSet:
    """Many parts stacked into arrays, in one frame, for vectorised sensor models."""

    centers: np.ndarray  # (P, 3)
    rotations: np.ndarray  # (P, 3, 3)
    sizes: np.ndarray  # (P, 3)
    colors: np.ndarray  # (P, 3) uint8
    owners: np.ndarray  # (P,) index of the owning object

    @classmethod
    def of(cls, objects: list[SceneObject]) -> BoxSet:
        parts = [(i, part) for i, obj in enumerate(objects) for part in obj.parts]
        if not parts:
            return cls(np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros((0, 3)),
                       np.zeros((0, 3), np.uint8), np.zeros(0, np.int64))
        return cls(
            np.array([p.center for _, p in parts]),
            np.array([p.rotation for _, p in parts]),
            np.array([p.size for _, p in parts]),
            np.array([p.color for _, p in parts], np.uint8),
            np.array([i for i, _ in parts]),
        )

    def transformed(self, rotation: np.ndarray, translation: np.ndarray) -> BoxSet:
        """The same boxes in another frame, where p_new = rotation @ p + translation."""
        return BoxSet(
            self.centers @ rotation.T + translation,
            np.einsum("ij,pjk->pik", rotation, self.rotations),
            self.sizes,
            self.colors,
            self.owners,
        )

    def faces_toward_origin(self) -> Faces:
        """The faces that the origin of this frame (a sensor) looks at, as quads."""
        # The origin in each box's own axes.
        viewer = -np.einsum("pji,pj->pi", self.rotations, self.centers)
        faces: list[tuple[np.ndarray, ...]] = []
        for axis in range(3):
            a, b = (axis + 1) % 3, (axis + 2) % 3
            for sign in (1.0, -1.0):
                seen = np.nonzero(sign * viewer[:, axis] > self.sizes[:, axis] / 2)[0]
                if seen.size == 0:
                    continue
                rot, size = self.rotations[seen], self.sizes[seen]
                normal = sign * rot[:, :, axis]
                edge1 = rot[:, :, a] * size[:, a : a + 1]
                edge2 = rot[:, :, b] * size[:, b : b + 1]
                center = self.centers[seen] + normal * size[:, axis : axis + 1] / 2
                corner = center - edge1 / 2 - edge2 / 2
                faces.append((seen, corner, edge1, edge2, normal, center))
        if not faces:
            empty = np.zeros((0, 3))
            return Faces(np.zeros(0, np.int64), empty, empty, empty, empty, empty)
        return Faces(*(np.concatenate(column) for column in zip(*faces, strict=True)))


@dataclass(frozen=True)
class Faces:
    """Quads ``corner, corner+edge1, corner+edge1+edge2, corner+edge2`` of visible box faces."""

    parts: np.ndarray  # (F,) index into the BoxSet
    corners: np.ndarray  # (F, 3)
    edges1: np.ndarray  # (F, 3)
    edges2: np.ndarray  # (F, 3)
    normals: np.ndarray  # (F, 3) unit, outward
    centers: np.ndarray  # (F, 3)

    def quads(self) -> np.ndarray:
        """(F, 4, 3) corner points of each face, in order around it."""
        c, e1, e2 = self.corners, self.edges1, self.edges2
        return np.stack([c, c + e1, c + e1 + e2, c + e2], axis=1)


def yaw_matrix(yaw: float) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _box(center: np.ndarray, yaw: float, size: tuple[float, float, float], color: Color) -> Part:
    return Part(np.asarray(center, float), yaw_matrix(yaw), np.asarray(size, float), color)


def _limb(a: np.ndarray, b: np.ndarray, forward: np.ndarray, thickness: float,
          color: Color) -> Part:
    """A box from joint a to joint b, its faces turned to the person's heading."""
    axis = b - a
    length = float(np.linalg.norm(axis))
    z = axis / length
    x = forward - z * float(forward @ z)
    x /= np.linalg.norm(x)
    rotation = np.column_stack([x, np.cross(z, x), z])
    return Part((a + b) / 2, rotation, np.array([thickness, thickness, length]), color)


@dataclass(frozen=True)
class _Loop:
    """A closed circular route driven at constant speed; phase in rad at t = 0."""

    center: tuple[float, float]
    radius: float
    speed: float  # m/s, positive = counter-clockwise
    phase: float

    def at(self, t: float) -> tuple[float, float, float, float, float, float]:
        """x, y, yaw, vx, vy, distance travelled."""
        angle = self.phase + self.speed * t / self.radius
        x = self.center[0] + self.radius * math.cos(angle)
        y = self.center[1] + self.radius * math.sin(angle)
        direction = 1.0 if self.speed >= 0 else -1.0
        vx, vy = -math.sin(angle) * self.speed, math.cos(angle) * self.speed
        yaw = (angle + direction * math.pi / 2 + math.pi) % (2 * math.pi) - math.pi
        return x, y, yaw, vx, vy, abs(self.speed * t)


@dataclass(frozen=True)
class _Static:
    id: str
    kind: str
    x: float
    y: float
    yaw: float


@dataclass(frozen=True)
class _Walker:
    id: str
    route: _Loop
    shirt: Color


class SyntheticScene:
    """The world around the simulated rover (near the local origin, within ~30 m)."""

    def __init__(self, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)

        def jitter(value: float, spread: float = 0.5) -> float:
            return value + float(rng.uniform(-spread, spread))

        self._statics = [
            _Static("box-1", "box", jitter(8.0), jitter(-3.0), jitter(0.3)),
            _Static("box-2", "box", jitter(8.6, 0.2), jitter(-4.4, 0.2), jitter(-0.2)),
            _Static("pallet-1", "pallet", jitter(10.5), jitter(3.2), jitter(0.4)),
            _Static("pallet-2", "pallet", jitter(12.5), jitter(5.0), jitter(1.2)),
        ]
        shirts = [(40, 90, 200), (200, 60, 50), (50, 160, 80)]
        routes = [((6.0, 2.0), 2.5, 1.2), ((14.0, -4.0), 3.0, -1.0), ((4.0, -6.5), 2.0, 0.9)]
        self._walkers = [
            _Walker(f"person-{i + 1}",
                    _Loop((jitter(cx, 0.3), jitter(cy, 0.3)), r, jitter(v, 0.15),
                          float(rng.uniform(0, 2 * math.pi))),
                    shirts[i])
            for i, ((cx, cy), r, v) in enumerate(routes)
        ]
        self._vehicle = _Loop((jitter(24.0), jitter(4.0)), 7.0, 1.5,
                              float(rng.uniform(0, 2 * math.pi)))
        self._statics_built = [_static_object(s) for s in self._statics]
        # Every sensor of one robot tick asks for the same t: build it once.
        self._last: tuple[float, list[SceneObject]] | None = None

    def objects(self, t: float) -> list[SceneObject]:
        """Every object at time t (seconds on any fixed clock, e.g. time.monotonic())."""
        if self._last is not None and self._last[0] == t:
            return list(self._last[1])
        people = [_person(w.id, w.route.at(t), w.shirt) for w in self._walkers]
        objects = [*self._statics_built, *people, _vehicle("vehicle-1", self._vehicle.at(t))]
        self._last = (t, objects)
        return list(objects)

    def objects_near(self, t: float, x: float, y: float, radius: float) -> list[SceneObject]:
        """The objects whose centre is within ``radius`` m of (x, y) at time t; those farther
        off are not built (a person's limbs are most of the scene's cost)."""
        def near(px: float, py: float) -> bool:
            return math.hypot(px - x, py - y) <= radius

        found = [o for o in self._statics_built if near(o.position[0], o.position[1])]
        for walker in self._walkers:
            state = walker.route.at(t)
            if near(state[0], state[1]):
                found.append(_person(walker.id, state, walker.shirt))
        vehicle = self._vehicle.at(t)
        if near(vehicle[0], vehicle[1]):
            found.append(_vehicle("vehicle-1", vehicle))
        return found


# -- object builders ----------------------------------------------------------------------------
BOX_COLOR: Color = (176, 124, 72)
PALLET_COLOR: Color = (196, 168, 112)
VEHICLE_COLOR: Color = (228, 186, 36)
TYRE_COLOR: Color = (40, 40, 44)
SKIN_COLOR: Color = (222, 178, 140)
TROUSERS_COLOR: Color = (52, 56, 72)


def _static_object(spec: _Static) -> SceneObject:
    def at(z: float) -> np.ndarray:
        return np.array([spec.x, spec.y, z])

    parts: tuple[Part, ...]
    if spec.kind == "box":
        size = (0.8, 0.8, 0.8)
        parts = (_box(at(0.4), spec.yaw, size, BOX_COLOR),)
        color = BOX_COLOR
    else:
        size = (1.2, 0.8, 0.75)
        slab = _box(at(0.075), spec.yaw, (1.2, 0.8, 0.15), PALLET_COLOR)
        load = _box(at(0.45), spec.yaw, (1.0, 0.7, 0.6), BOX_COLOR)
        parts = (slab, load)
        color = PALLET_COLOR
    center = (spec.x, spec.y, size[2] / 2)
    return SceneObject(spec.id, spec.kind, center, size, spec.yaw, (0.0, 0.0, 0.0), color,
                       parts)


def _person(object_id: str, state: tuple[float, ...], shirt: Color) -> SceneObject:
    x, y, yaw, vx, vy, travelled = state
    gait = 2 * math.pi * travelled / STRIDE_M
    local = _walking_joints(gait)
    rotation = yaw_matrix(yaw)
    joints = local @ rotation.T + np.array([x, y, 0.0])
    forward = rotation[:, 0]
    j = joints
    shoulders = (j[_J["left_shoulder"]] + j[_J["right_shoulder"]]) / 2
    hips = (j[_J["left_hip"]] + j[_J["right_hip"]]) / 2
    torso = _limb(hips, shoulders, forward, 0.22, shirt)
    torso = Part(torso.center, torso.rotation, np.array([0.22, 0.4, torso.size[2]]), shirt)
    head = _box(j[_J["head"]], yaw, (0.22, 0.18, 0.26), SKIN_COLOR)
    limbs = [
        _limb(j[_J[f"{side}_{a}"]], j[_J[f"{side}_{b}"]], forward, thickness, color)
        for side in ("left", "right")
        for a, b, thickness, color in (
            ("shoulder", "elbow", 0.1, shirt),
            ("elbow", "wrist", 0.08, SKIN_COLOR),
            ("hip", "knee", 0.15, TROUSERS_COLOR),
            ("knee", "ankle", 0.12, TROUSERS_COLOR),
        )
    ]
    return SceneObject(
        object_id, "person", (x, y, PERSON_SIZE[2] / 2), PERSON_SIZE, yaw, (vx, vy, 0.0), shirt,
        (torso, head, *limbs), joints,
    )


def _walking_joints(gait: float) -> np.ndarray:
    """Joint positions in the person's frame (x forward, y left, z up) at gait phase (rad)."""
    joints = np.zeros((len(SKELETON_JOINTS), 3))
    joints[_J["head"]] = (0.0, 0.0, 1.66)
    joints[_J["neck"]] = (0.0, 0.0, 1.48)
    for side, sign in (("left", 1.0), ("right", -1.0)):
        swing = 0.4 * sign * math.sin(gait)  # legs; arms swing the other way
        knee_bend = 0.5 * max(0.0, -sign * math.cos(gait))  # the leg coming forward bends
        hip = np.array([0.0, 0.1 * sign, 0.92])
        knee = hip + 0.45 * np.array([math.sin(swing), 0.0, -math.cos(swing)])
        shin = swing - knee_bend
        ankle = knee + 0.44 * np.array([math.sin(shin), 0.0, -math.cos(shin)])
        shoulder = np.array([0.0, 0.2 * sign, 1.44])
        arm = -0.7 * swing
        elbow = shoulder + 0.3 * np.array([math.sin(arm), 0.0, -math.cos(arm)])
        forearm = arm + 0.25
        wrist = elbow + 0.27 * np.array([math.sin(forearm), 0.0, -math.cos(forearm)])
        for name, point in (("hip", hip), ("knee", knee), ("ankle", ankle),
                            ("shoulder", shoulder), ("elbow", elbow), ("wrist", wrist)):
            joints[_J[f"{side}_{name}"]] = point
    return joints


def _vehicle(object_id: str, state: tuple[float, ...]) -> SceneObject:
    x, y, yaw, vx, vy, _ = state
    rotation = yaw_matrix(yaw)
    base = np.array([x, y, 0.0])

    def at(dx: float, dy: float, z: float) -> np.ndarray:
        return base + rotation @ np.array([dx, dy, z])

    parts = [
        _box(at(0.0, 0.0, 0.75), yaw, (4.0, 1.8, 0.8), VEHICLE_COLOR),
        _box(at(-0.4, 0.0, 1.5), yaw, (2.0, 1.6, 0.7), VEHICLE_COLOR),
    ]
    parts += [
        _box(at(dx, dy, 0.35), yaw, (0.7, 0.3, 0.7), TYRE_COLOR)
        for dx in (-1.3, 1.3)
        for dy in (-0.85, 0.85)
    ]
    size = (4.0, 2.0, 1.85)
    return SceneObject(object_id, "vehicle", (x, y, size[2] / 2), size, yaw, (vx, vy, 0.0),
                       VEHICLE_COLOR, tuple(parts))
