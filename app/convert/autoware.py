"""autoware entities and poses -> display models.

- ``traffic_simulator_msgs.EntityStatus`` -> :class:`Boxes` with one box: the entity's
  ``boundingBox`` placed at its ``pose``. The seed gives the box ``center`` and
  ``dimensions`` relative to the entity's pose (a vehicle's pose is its rear-axle centre,
  so the centre sits ahead of and above it): centre = position + R(orientation) · center,
  rotation = orientation, size = dimensions (x length, y width, z height).
- ``simulation_api_schema.UpdateEntityStatusRequest`` (its ``status`` list) and a bare
  ``simulation_api_schema.EntityStatus`` -> :class:`Boxes`. That EntityStatus has no
  bounding box, so each entity gets a nominal box for its subtype (:data:`NOMINAL_SIZES`),
  standing on its pose: centre = position + R · (0, 0, height / 2).
- ``geometry_msgs.Pose`` -> :class:`Poses`; ``traffic_simulator_msgs.Waypoints`` and
  ``PolylineTrajectory`` -> :class:`Poses` drawn as a path.

Frames: none of these types has a header, so every model is in frame "" (the topic's
catalog ``frameId``; the seed calls the entity pose "pose in map coordinate" and the
simulated car lists ``map``). Stamps stay 0 (``EntityStatus.time`` is simulation time,
not unix time).

Kind and colour by ``EntityType``: ego green, vehicle blue, pedestrian orange, misc object
purple (:data:`TYPE_COLORS`); a type this schema does not know is neutral grey with kind
``type #<n>``. An all-zero quaternion (an unset orientation) is the identity. Entities
with non-finite pose or box, or negative dimensions, are left out and counted in
``Boxes.dropped``; a message with none left is refused.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from app.codec.decode import DecodedMessage
from app.codec.fields import enum_value
from app.convert.models import RGBA, Box, Boxes, Poses, Quat, Vec3
from app.convert.registry import ConversionError, converter

NEUTRAL: RGBA = (0.7, 0.7, 0.7, 1.0)
TYPE_KINDS = {"ego": "ego", "vehicle": "vehicle", "pedestrian": "pedestrian",
              "miscObject": "misc"}
TYPE_COLORS: dict[str, RGBA] = {
    "ego": (0.1, 0.85, 0.3, 1.0),  # green
    "vehicle": (0.2, 0.5, 1.0, 1.0),  # blue
    "pedestrian": (1.0, 0.6, 0.1, 1.0),  # orange
    "misc": (0.7, 0.4, 0.9, 1.0),  # purple
}
# Nominal (length, width, height) m per EntitySubtype, for statuses without a box.
NOMINAL_SIZES: dict[str, Vec3] = {
    "car": (4.5, 1.8, 1.5),
    "truck": (7.5, 2.3, 3.0),
    "bus": (12.0, 2.5, 3.2),
    "trailer": (8.0, 2.5, 3.0),
    "motorcycle": (2.2, 0.8, 1.4),
    "bicycle": (1.8, 0.6, 1.6),
    "pedestrian": (0.5, 0.6, 1.75),
}
NOMINAL_BY_KIND: dict[str, Vec3] = {
    "ego": NOMINAL_SIZES["car"],
    "vehicle": NOMINAL_SIZES["car"],
    "pedestrian": NOMINAL_SIZES["pedestrian"],
}
DEFAULT_SIZE: Vec3 = (1.0, 1.0, 1.0)


class _Bad(Exception):
    """One entity that cannot be drawn (the message may still have others)."""


def pose_of(pose: Any) -> tuple[np.ndarray, Quat]:
    """A ``geometry_msgs.Pose`` reader -> (position, normalised quaternion x, y, z, w)."""
    p, q = pose.position, pose.orientation
    position = np.array([p.x, p.y, p.z], dtype=np.float64)
    quat = np.array([q.x, q.y, q.z, q.w], dtype=np.float64)
    if not (np.isfinite(position).all() and np.isfinite(quat).all()):
        raise _Bad("pose not finite")
    norm = float(np.linalg.norm(quat))
    if norm < 1e-9:
        return position, (0.0, 0.0, 0.0, 1.0)
    x, y, z, w = (float(v) for v in quat / norm)
    return position, (x, y, z, w)


def rotate(q: Quat, v: np.ndarray) -> np.ndarray:
    """v rotated by the unit quaternion q (x, y, z, w)."""
    x, y, z, w = q
    u = np.array([x, y, z])
    return v + 2.0 * np.cross(u, np.cross(u, v) + w * v)


def _kind(entity_type: Any) -> str:
    name = enum_value(entity_type.type)
    if isinstance(name, str):
        return TYPE_KINDS.get(name, name)
    return f"type #{name}"


def _subtype(subtype: Any) -> str:
    name = enum_value(subtype.value)
    return name if isinstance(name, str) else f"#{name}"


def _box(name: str, kind: str, position: np.ndarray, quat: Quat, center: np.ndarray,
         size: np.ndarray) -> Box:
    world = position + rotate(quat, center)
    if not (np.isfinite(world).all() and np.isfinite(size).all()) or (size < 0).any():
        raise _Bad("bounding box not finite or negative")
    return Box(
        center=(float(world[0]), float(world[1]), float(world[2])),
        size=(float(size[0]), float(size[1]), float(size[2])),
        rotation=quat,
        label=name,
        color=TYPE_COLORS.get(kind, NEUTRAL),
        track_id=name,
        kind=kind,
    )


def entity_box(status: Any) -> Box:
    """A ``traffic_simulator_msgs.EntityStatus`` reader -> its box (raises _Bad)."""
    position, quat = pose_of(status.pose)
    kind = _kind(status.type)
    box = status.boundingBox
    center = np.array([box.center.x, box.center.y, box.center.z], dtype=np.float64)
    size = np.array([box.dimensions.x, box.dimensions.y, box.dimensions.z], dtype=np.float64)
    if not status._has("boundingBox") or (np.isfinite(size).all() and not size.any()):
        return nominal_box(status.name, kind, _subtype(status.subtype), position, quat)
    return _box(status.name, kind, position, quat, center, size)


def nominal_box(name: str, kind: str, subtype: str, position: np.ndarray, quat: Quat) -> Box:
    """A box of the nominal size for ``subtype`` (else ``kind``) standing on the pose."""
    size = np.array(NOMINAL_SIZES.get(subtype) or NOMINAL_BY_KIND.get(kind) or DEFAULT_SIZE)
    return _box(name, kind, position, quat, np.array([0.0, 0.0, size[2] / 2.0]), size)


def api_entity_box(status: Any) -> Box:
    """A ``simulation_api_schema.EntityStatus`` reader (no box) -> a nominal box."""
    position, quat = pose_of(status.pose)
    return nominal_box(status.name, _kind(status.type), _subtype(status.subtype), position,
                       quat)


def _boxes(statuses: Any, make: Any) -> Boxes:
    boxes, reasons = [], []
    for status in statuses:
        try:
            boxes.append(make(status))
        except _Bad as exc:
            reasons.append(f"{status.name or 'entity'}: {exc}")
    if not boxes:
        raise ConversionError("; ".join(reasons) if reasons else "no entities")
    return Boxes(tuple(boxes), dropped=len(reasons))


@converter("autoware.entity", "autoware.traffic_simulator_msgs.EntityStatus")
def entity_status(decoded: DecodedMessage) -> Boxes:
    return _boxes([decoded.root], entity_box)


@converter("autoware.entities", "autoware.simulation_api_schema.UpdateEntityStatusRequest")
def entity_statuses(decoded: DecodedMessage) -> Boxes:
    return _boxes(decoded.root.status, api_entity_box)


@converter("autoware.api_entity", "autoware.simulation_api_schema.EntityStatus")
def api_entity_status(decoded: DecodedMessage) -> Boxes:
    return _boxes([decoded.root], api_entity_box)


@converter("autoware.pose", "autoware.geometry_msgs.Pose")
def pose(decoded: DecodedMessage) -> Poses:
    try:
        position, quat = pose_of(decoded.root)
    except _Bad as exc:
        raise ConversionError(str(exc)) from None
    return Poses(np.array([[*position, *quat]]))


def _path(rows: list[list[float]], total: int, what: str) -> Poses:
    if not rows:
        raise ConversionError(f"no finite {what}" if total else f"no {what}")
    dropped = total - len(rows)
    label = f"{dropped} non-finite {what} left out" if dropped else ""
    return Poses(np.array(rows, dtype=np.float64), path=True, label=label)


@converter("autoware.waypoints", "autoware.traffic_simulator_msgs.Waypoints")
def waypoints(decoded: DecodedMessage) -> Poses:
    points = decoded.root.waypoints
    rows = [[p.x, p.y, p.z, 0.0, 0.0, 0.0, 1.0] for p in points]
    rows = [r for r in rows if all(math.isfinite(v) for v in r)]
    return _path(rows, len(points), "waypoints")


def _vertices(vertices: Any) -> Poses:
    rows = []
    for vertex in vertices:
        try:
            position, quat = pose_of(vertex.position)
        except _Bad:
            continue
        rows.append([*position, *quat])
    return _path(rows, len(vertices), "vertices")


@converter("autoware.polyline", "autoware.traffic_simulator_msgs.Polyline")
def polyline(decoded: DecodedMessage) -> Poses:
    return _vertices(decoded.root.vertices)


@converter("autoware.trajectory", "autoware.traffic_simulator_msgs.PolylineTrajectory")
def polyline_trajectory(decoded: DecodedMessage) -> Poses:
    return _vertices(decoded.root.shape.vertices)
