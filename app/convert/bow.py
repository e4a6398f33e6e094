"""bow samples -> display models: the body as a skeleton, lidar scans as a point cloud.

Axes. bow's ``Transform`` (seed 001) is X right, Y up, Z forward, metres: a left-handed
frame. The scene is right-handed x forward, y left, z up, so every bow position p becomes

    scene = (p.z, -p.x, p.y)        # forward, left, up

(:data:`BOW_TO_SCENE`). Rotations are composed in bow's own axes first (Euler angles in
radians, R = Ry(y) · Rx(x) · Rz(z), schemas/README.md) and only the resulting points are
mapped, so no handedness flip ever reaches a quaternion.

Frames. bow samples carry no frame, so every model is in frame "" (the topic's catalog
``frameId``; the simulated humanoid lists ``base``). A ``Transform`` is relative to its
``linkName``; a ``linkName`` that names another transform of the same sample is composed
with it, any other (empty, ``base``, the catalog frame) means the topic's frame.

Skeleton. A ``ProprioceptionSample`` lists body parts, each with a root link and effectors;
an effector has a ``rootTransform`` (the link its chain starts at) and an ``endTransform``
(its end link). The skeleton's joints are those links, named by ``Transform.part`` (else
the effector's ``effectorLinkName`` / the part's ``rootLink``), and its bones are

- root link -> end link of every effector (a gripper's finger tips included), and
- a part's parent part -> the part, from ``BodyPart.parent``: the parent's root link to the
  part's root link, unless that link already is one of the parent's links.

Effectors listed in ``ProprioceptionSample.effectors`` but in no part are added the same
way. Links with non-finite coordinates stay in the skeleton but are marked not valid (not
drawn) and counted in its label. ``objects`` (capsules the robot knows of) come as a
:class:`SceneChange` next to the skeleton, in a :class:`Scene`.

Lidar. ``Lidar.data`` holds ranges (m), row-major over ``dataShape`` = [width, height]
(height 1 for a 2D lidar). Angles are degrees (the seed: start "assumed to be 0 degrees",
end "assumed to be 360 degrees"). Column c is at azimuth ``horizontalStartAngle + c *
horizontalAngularResolution`` (without a resolution: the span spread over the columns),
measured from forward (+Z) towards the right (+X), which is bow's positive rotation about
+Y; row r at elevation ``verticalStartAngle + r * verticalAngularResolution``, up
positive. Ranges that are zero or negative are no return and left out; non-finite ones
are counted as dropped.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from app.codec.decode import DecodedMessage
from app.convert.models import (
    PointCloud,
    Primitive,
    Scene,
    SceneChange,
    SceneEntity,
    Skeleton,
    Skeletons,
)
from app.convert.registry import ConversionError, converter

# bow (X right, Y up, Z forward) -> scene (x forward, y left, z up): scene = M @ bow.
BOW_TO_SCENE = np.array([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
BASE_LINKS = ("", "base")  # a linkName meaning "the topic's frame"
MAX_LINK_DEPTH = 32  # transforms relative to transforms, deeper than this are refused
MAX_LIDAR_POINTS = 4_000_000
OBJECT_COLOR = (0.95, 0.75, 0.2, 0.8)
# -- geometry ------------------------------------------------------------------------------
def euler_matrix(x: float, y: float, z: float) -> np.ndarray:
    """R = Ry(y) · Rx(x) · Rz(z), radians, in bow's axes (x pitch, y yaw, z roll)."""
    cx, sx, cy, sy, cz, sz = (math.cos(x), math.sin(x), math.cos(y), math.sin(y),
                              math.cos(z), math.sin(z))
    rx = np.array([[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]])
    ry = np.array([[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]])
    rz = np.array([[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]])
    return ry @ rx @ rz


def to_scene(points: np.ndarray) -> np.ndarray:
    """(N, 3) bow positions -> (N, 3) scene positions (forward, left, up)."""
    return np.asarray(points, dtype=np.float64) @ BOW_TO_SCENE.T


def _vector(reader: Any) -> np.ndarray:
    return np.array([reader.x, reader.y, reader.z], dtype=np.float64)


class _Links:
    """The transforms of one sample by name, resolved to the topic's frame on demand."""

    def __init__(self) -> None:
        self.transforms: dict[str, Any] = {}
        self._resolved: dict[str, tuple[np.ndarray, np.ndarray] | None] = {}

    def add(self, name: str, transform: Any) -> None:
        if name and name not in self.transforms:
            self.transforms[name] = transform

    def pose(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(position, rotation) of link ``name`` in the topic's frame, bow axes; None when it
        is unknown, non-finite or relative to a loop of links."""
        return self._pose(name, 0)

    def _pose(self, name: str, depth: int) -> tuple[np.ndarray, np.ndarray] | None:
        if name in self._resolved:
            return self._resolved[name]
        transform = self.transforms.get(name)
        if transform is None or depth > MAX_LINK_DEPTH:
            return None
        self._resolved[name] = None  # a loop back to this link resolves to nothing
        position = _vector(transform.position)
        rotation = euler_matrix(*_vector(transform.eulerAngles))
        result: tuple[np.ndarray, np.ndarray] | None = (position, rotation)
        relative_to = transform.linkName
        if relative_to not in BASE_LINKS and relative_to != name and \
                relative_to in self.transforms:
            parent = self._pose(relative_to, depth + 1)
            if parent is None:
                result = None
            else:
                parent_position, parent_rotation = parent
                result = (parent_position + parent_rotation @ position,
                          parent_rotation @ rotation)
        if result is not None and not (np.isfinite(result[0]).all()
                                       and np.isfinite(result[1]).all()):
            result = None
        self._resolved[name] = result
        return result


def _transform_name(transform: Any, fallback: str) -> str:
    return transform.part or fallback


# -- proprioception ------------------------------------------------------------------------
@converter("bow.proprioception", "bow.ProprioceptionSample")
def proprioception(decoded: DecodedMessage) -> Skeletons | SceneChange | Scene:
    """A ``ProprioceptionSample`` -> the body's skeleton, its objects, or both in a Scene."""
    sample = decoded.root
    skeleton = body_skeleton(sample)
    objects = _objects(sample.objects) if len(sample.objects) else None
    if skeleton is None and objects is None:
        raise ConversionError("no body parts, effectors or finite objects in this sample")
    if skeleton is None:
        return objects  # type: ignore[return-value]  # not None: checked above
    if objects is None:
        return Skeletons((skeleton,))
    return Scene((Skeletons((skeleton,)), objects))


def body_skeleton(sample: Any) -> Skeleton | None:
    """The skeleton of a ``ProprioceptionSample`` reader; None when it lists no effector."""
    links = _Links()
    names: list[str] = []  # skeleton joints, in first-seen order
    bones: list[tuple[str, str]] = []
    part_links: dict[str, list[str]] = {}  # part name -> its links, root first
    part_parent: dict[str, str] = {}
    seen_effectors: set[str] = set()

    def node(name: str, transform: Any | None) -> str:
        if transform is not None:
            links.add(name, transform)
        if name not in names:
            names.append(name)
        return name

    def effector_bone(effector: Any, root_fallback: str) -> tuple[str, str] | None:
        end_name = _transform_name(effector.endTransform, effector.effectorLinkName)
        root_name = _transform_name(effector.rootTransform, root_fallback)
        if not end_name:
            return None
        end = node(end_name, effector.endTransform if effector._has("endTransform") else None)
        if not root_name or root_name == end:
            return None
        root = node(root_name,
                    effector.rootTransform if effector._has("rootTransform") else None)
        bone = (root, end)
        if bone not in bones:
            bones.append(bone)
        return bone

    for part in sample.parts:
        links_of_part = part_links.setdefault(part.name, [])
        if part.rootLink:
            links_of_part.append(part.rootLink)
        if part.parent and part.parent != part.name:
            part_parent[part.name] = part.parent
        for effector in part.effectors:
            seen_effectors.add(effector.effectorLinkName)
            bone = effector_bone(effector, part.rootLink)
            if bone is not None:
                links_of_part.extend(bone)
            else:
                end_name = _transform_name(effector.endTransform, effector.effectorLinkName)
                if end_name:
                    links_of_part.append(end_name)
    for effector in sample.effectors:
        if effector.effectorLinkName not in seen_effectors or not effector.effectorLinkName:
            effector_bone(effector, "")
    for part_name, parent_name in part_parent.items():
        own, parents = part_links.get(part_name), part_links.get(parent_name)
        if not own or not parents or own[0] in parents:
            continue
        root, parent_root = own[0], parents[0]
        if root in names and parent_root in names and (parent_root, root) not in bones:
            bones.append((parent_root, root))
    if not names:
        return None
    positions = np.zeros((len(names), 3))
    valid = np.zeros(len(names), dtype=bool)
    for i, name in enumerate(names):
        pose = links.pose(name)
        if pose is not None:
            positions[i], valid[i] = pose[0], True
    if not valid.any():
        raise ConversionError(f"none of the {len(names)} body links has a finite position")
    index = {name: i for i, name in enumerate(names)}
    bone_array = np.array([(index[a], index[b]) for a, b in bones], dtype=np.int32).reshape(-1, 2)
    missing = len(names) - int(valid.sum())
    label = "body" if not missing else f"body ({missing} links not placed)"
    return Skeleton(
        joints=to_scene(positions).astype(np.float32),
        bones=bone_array,
        joint_names=tuple(names),
        label=label,
        valid=valid,
    )


def _objects(objects: Any) -> SceneChange | None:
    """bow ``Object`` capsules (``origin`` + ends A and B + radius) as scene entities; the
    sample lists every object, so it replaces the previous set."""
    entities = []
    for i, obj in enumerate(objects):
        links = _Links()
        links.add("origin", obj.origin)
        origin = links.pose("origin")
        ends = np.stack([_vector(obj.endA), _vector(obj.endB)])
        radius = float(obj.radius)
        if origin is None or not np.isfinite(ends).all():
            continue
        position, rotation = origin
        ends_scene = to_scene(position + ends @ rotation.T)
        diameter = 2.0 * radius if math.isfinite(radius) and radius > 0 else 0.05
        name = obj.name or f"object {i}"
        primitives = [
            Primitive("line_strip", points=ends_scene, color=OBJECT_COLOR, width=2.0),
            *(Primitive("sphere", pose=(*map(float, end), 0.0, 0.0, 0.0, 1.0),
                        size=(diameter,) * 3, color=OBJECT_COLOR) for end in ends_scene),
            Primitive("text", pose=(*map(float, ends_scene.mean(axis=0)), 0.0, 0.0, 0.0, 1.0),
                      text=name, color=(1.0, 1.0, 1.0, 1.0)),
        ]
        entities.append(SceneEntity(f"object/{name}", tuple(primitives), label=name))
    if not entities:
        return None
    return SceneChange(entities=tuple(entities), delete_all=True)


# -- exteroception -------------------------------------------------------------------------
@converter("bow.lidar", "bow.ExteroceptionSample")
def exteroception(decoded: DecodedMessage) -> PointCloud:
    """The lidar scans of an ``ExteroceptionSample`` as one point cloud in the topic's frame."""
    sample = decoded.root
    if not len(sample.lidar):
        raise ConversionError("no lidar in this exteroception sample")
    clouds, dropped, reasons = [], 0, []
    for lidar in sample.lidar:
        try:
            xyz, bad = lidar_points(lidar)
        except ConversionError as exc:
            reasons.append(f"{lidar.source or 'lidar'}: {exc}")
            continue
        clouds.append(xyz)
        dropped += bad
    if not clouds:
        raise ConversionError("; ".join(reasons))
    xyz = np.concatenate(clouds).astype(np.float32)
    if not len(xyz) and dropped:
        raise ConversionError(f"all {dropped} lidar ranges are non-finite")
    return PointCloud(xyz, dropped=dropped)


def lidar_points(lidar: Any) -> tuple[np.ndarray, int]:
    """(N, 3) scene points of one ``Lidar`` reading, and how many ranges were non-finite."""
    count = len(lidar.data)
    if count == 0:
        raise ConversionError("no ranges")
    if count > MAX_LIDAR_POINTS:
        raise ConversionError(f"{count} ranges, more than {MAX_LIDAR_POINTS}")
    ranges = np.array(lidar.data, dtype=np.float64)
    shape = list(lidar.dataShape)
    width = shape[0] if shape else len(ranges)
    height = shape[1] if len(shape) > 1 else 1
    if width <= 0 or height <= 0 or width * height != len(ranges):
        raise ConversionError(f"{len(ranges)} ranges do not fill dataShape {shape}")
    azimuth = _angles(lidar.horizontalStartAngle, lidar.horizontalEndAngle,
                      lidar.horizontalAngularResolution, width, full_turn_default=True)
    elevation = _angles(lidar.verticalStartAngle, lidar.verticalEndAngle,
                        lidar.verticalAngularResolution, height, full_turn_default=False)
    az = np.radians(np.tile(azimuth, height))
    el = np.radians(np.repeat(elevation, width))
    finite = np.isfinite(ranges)
    keep = finite & (ranges > 0)
    r, az, el = ranges[keep], az[keep], el[keep]
    local = np.stack([r * np.cos(el) * np.sin(az), r * np.sin(el), r * np.cos(el) * np.cos(az)],
                     axis=-1)
    links = _Links()
    links.add("lidar", lidar.transform)
    pose = links.pose("lidar") if lidar._has("transform") else (np.zeros(3), np.eye(3))
    if pose is None:
        raise ConversionError("lidar transform is not finite")
    position, rotation = pose
    return to_scene(position + local @ rotation.T), int(len(ranges) - finite.sum())


def _angles(start: float, end: float, resolution: float, count: int,
            full_turn_default: bool) -> np.ndarray:
    """Angles (deg) of ``count`` samples from ``start``."""
    if not (math.isfinite(start) and math.isfinite(end) and math.isfinite(resolution)):
        raise ConversionError("non-finite scan angles")
    if resolution != 0:
        return start + resolution * np.arange(count)
    if full_turn_default and end == 0:
        end = 360.0  # the seed: "if not populated assumed to be 360 degrees"
    span = end - start
    if count == 1 or span == 0:
        return np.full(count, float(start))
    step = span / count if abs(span) >= 360.0 else span / (count - 1)
    return start + step * np.arange(count)
