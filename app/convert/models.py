"""The display models converters produce: numpy arrays plus a few small frozen fields.

Every family's structs become one of these, so the 3D view knows a handful of models, not a
hundred structs. Conventions:
- ``frame_id`` "" means the topic's frame: its catalog ``frameId``, else ``base_link``.
- The frame ``wgs84`` holds geodetic coordinates: x = longitude (deg), y = latitude (deg),
  z = altitude (m); the scene places them in a local east-north-up frame around a datum.
  In it every position and every point (a primitive's ``points`` too) is geodetic and
  absolute; sizes, widths and lengths stay in metres.
- Rotations are quaternions (x, y, z, w); colours RGBA floats in 0..1; stamps unix seconds
  (0 = none: use the sample's time).
- Poses packed in arrays are rows of (x, y, z, qx, qy, qz, qw).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]
RGBA = tuple[float, float, float, float]
IDENTITY: Quat = (0.0, 0.0, 0.0, 1.0)
WGS84 = "wgs84"


@dataclass(frozen=True)
class PointCloud:
    xyz: np.ndarray  # (N, 3) float32
    intensity: np.ndarray | None = None  # (N,) float32
    frame_id: str = ""
    dropped: int = 0  # non-finite points left out
    rgb: np.ndarray | None = None  # (N, 3) uint8
    stamp: float = 0.0

    def __len__(self) -> int:
        return len(self.xyz)


@dataclass(frozen=True)
class Transform:
    """``child`` placed in ``parent``: p_parent = rotation * p_child + translation."""

    parent: str
    child: str
    translation: Vec3
    rotation: Quat = IDENTITY
    stamp: float = 0.0  # 0: static (valid at any time)


@dataclass(frozen=True)
class Transforms:
    transforms: tuple[Transform, ...]


@dataclass(frozen=True)
class Poses:
    """One pose, several, or a path (drawn joined, in order)."""

    poses: np.ndarray  # (N, 7) float64
    frame_id: str = ""
    path: bool = False
    stamp: float = 0.0
    label: str = ""


@dataclass(frozen=True)
class Box:
    center: Vec3
    size: Vec3
    rotation: Quat = IDENTITY
    label: str = ""
    score: float = float("nan")
    color: RGBA | None = None  # None: the layer's colour
    track_id: str = ""
    kind: str = ""  # what it is, e.g. "vehicle", "pedestrian", "ego", an object type


@dataclass(frozen=True)
class Boxes:
    boxes: tuple[Box, ...]
    frame_id: str = ""
    stamp: float = 0.0
    dropped: int = 0  # items left out (non-finite pose or size)


@dataclass(frozen=True)
class Skeleton:
    joints: np.ndarray  # (N, 3) float32
    bones: np.ndarray  # (M, 2) int32 indices into joints
    joint_names: tuple[str, ...] = ()
    label: str = ""
    valid: np.ndarray | None = None  # (N,) bool; joints not seen are not drawn


@dataclass(frozen=True)
class Skeletons:
    skeletons: tuple[Skeleton, ...]
    frame_id: str = ""
    stamp: float = 0.0


@dataclass(frozen=True)
class Primitive:
    """One drawable item of a scene entity (foxglove's primitives and the like)."""

    kind: str  # arrow | cube | sphere | cylinder | lines | line_strip | line_loop |
    #           triangles | text
    pose: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)  # in the entity's frame
    size: Vec3 = (1.0, 1.0, 1.0)  # cube/sphere/cylinder extents; arrow (length, width, -)
    color: RGBA = (1.0, 1.0, 1.0, 1.0)
    points: np.ndarray | None = None  # (N, 3) for lines and triangles
    colors: np.ndarray | None = None  # (N, 4) per point, overrides color
    indices: np.ndarray | None = None  # (K,) uint32 into points, for lines/triangles
    text: str = ""
    width: float = 1.0  # line width (px or m, as the source says; drawn in px)
    # cylinder: (bottom, top) face diameters as fractions of size x/y; < 1 makes a cone
    cylinder_scales: tuple[float, float] = (1.0, 1.0)


@dataclass(frozen=True)
class SceneEntity:
    id: str
    primitives: tuple[Primitive, ...]
    frame_id: str = ""
    stamp: float = 0.0
    lifetime_s: float = 0.0  # 0: until replaced or deleted
    label: str = ""  # what a click on it shows
    ground_relative: bool = False  # wgs84 z is height above the datum's ground, not altitude


@dataclass(frozen=True)
class SceneChange:
    """Entities to add or replace by id, and deletions, applied in that order after the
    deletions: ``delete_all`` first, then ``deletions`` (ids), then ``entities``."""

    entities: tuple[SceneEntity, ...] = ()
    deletions: tuple[str, ...] = ()
    delete_all: bool = False


@dataclass(frozen=True)
class Grid:
    """A 2D grid of values on a plane (occupancy, costs, heights)."""

    values: np.ndarray  # (rows, cols) float32, NaN = unknown
    cell_size: tuple[float, float]  # (x, y) metres
    origin: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)  # cell (0, 0) corner
    frame_id: str = ""
    stamp: float = 0.0
    value_range: tuple[float, float] = (0.0, 1.0)


@dataclass(frozen=True)
class Scene:
    """Several models from one message (a fleet uplink with a pose and shapes, a bow
    sample with a skeleton and a lidar cloud)."""

    parts: tuple[object, ...] = field(default_factory=tuple)
