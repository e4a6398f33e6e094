"""fleet envelopes and spatial types -> display models.

Geodetic data is in frame ``wgs84`` (models.py: x = longitude deg, y = latitude deg,
z = altitude m). Seed 002's ``Pose.headingDeg`` is a compass heading: 0 = north, increasing
clockwise. The scene's ``wgs84`` frame is placed as east-north-up, so a heading h becomes the
ENU yaw 90° - h (counter-clockwise from east) and the quaternion (0, 0, sin(yaw/2),
cos(yaw/2)). ``MotionTelemetry.localPose`` is in ``MotionTelemetry.localFrameId``, else in
the site frame ``map`` (PROTOCOL.md "Frames"); a ``GoTo.pose3`` target is in ``map``.

- ``fleet.Uplink``: ``motion`` -> :class:`Scene` of :class:`Poses`; ``object`` ->
  :class:`SceneChange` (one entity per object: a cube 2 × ``radiusM`` wide, else
  :data:`DEFAULT_OBJECT_SIZE_M`, coloured by ``ObjectType``, with a text label);
  ``reportedShape`` -> :class:`SceneChange` of line primitives; any other member has no
  3D content and is refused.
- ``fleet.Command``: ``spatialDirective`` / ``feature`` / ``object`` -> :class:`SceneChange`,
  ``goTo`` -> :class:`Poses` (the target the app sent); others are refused.
- Bare roots (PROTOCOL.md: any registered struct may be a root): ``Object``, ``ObjectOp``,
  ``ReportedShape(Op)``, ``SpatialDirective(Op)``, ``FeatureOp``, ``SpatialFeature``,
  ``Shape``, ``Route``, ``Pose``, ``MotionTelemetry``, ``GoTo``.

Shapes: points are small spheres, lines line strips, polygon rings (exterior and every hole)
``line_loop`` primitives (closed), at altitude ``minZM`` (flat shapes carry no altitude; the
seed's height rule is the only one there is). A ``Shape`` whose ``areaType`` is
``LayerRole.keepout`` is a keep-out zone (seed 002: "keepout — do not go here") and is
drawn as a translucent volume (alpha :data:`KEEPOUT_ALPHA`): the polygon extruded from
``minZM`` to ``maxZM`` (or :data:`KEEPOUT_HEIGHT_M` above ``minZM`` when no height rule is
given), as triangles, with its outline. Routes: waypoints are arrows along their heading,
paths line strips.

Colours: see :data:`OBJECT_COLORS` and :data:`ROLE_COLORS`; a value this schema does not
know (a newer robot) is drawn in :data:`NEUTRAL` and labelled with its number.
Points with non-finite or out-of-range coordinates are left out and counted in the entity's
label; a shape with nothing left is refused.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from app.bus.keys import COMMAND_SEGMENTS, UPLINK_SEGMENTS
from app.codec.decode import DecodedMessage
from app.codec.fields import active_member, enum_value
from app.convert.models import (
    RGBA,
    WGS84,
    Poses,
    Primitive,
    Quat,
    Scene,
    SceneChange,
    SceneEntity,
)
from app.convert.polygons import extruded_polygon
from app.convert.registry import ConversionError, converter

LOCAL_FRAME = "map"  # PROTOCOL.md: "localPose is in the robot's site frame map"
DEFAULT_OBJECT_SIZE_M = 1.0
POINT_SIZE_M = 0.5
ARROW_SIZE = (1.5, 0.3, 0.3)  # waypoint arrows: length, width (m)
KEEPOUT_HEIGHT_M = 2.0
KEEPOUT_ALPHA = 0.3
LINE_WIDTH = 2.0
NEUTRAL: RGBA = (0.7, 0.7, 0.7, 1.0)
TEXT_COLOR: RGBA = (1.0, 1.0, 1.0, 1.0)

OBJECT_COLORS: dict[str, RGBA] = {
    "person": (1.0, 0.55, 0.0, 1.0),  # orange
    "animal": (0.6, 0.4, 0.2, 1.0),  # brown
    "vehicle": (0.2, 0.45, 1.0, 1.0),  # blue
    "robot": (0.0, 0.8, 0.8, 1.0),  # cyan
    "structure": (0.55, 0.55, 0.6, 1.0),  # slate
    "equipment": (0.9, 0.8, 0.1, 1.0),  # yellow
    "obstacle": (0.9, 0.3, 0.1, 1.0),  # red-orange
    "debris": (0.75, 0.65, 0.45, 1.0),  # tan
    "hazard": (1.0, 0.0, 0.0, 1.0),  # red
    "marker": (0.9, 0.2, 0.9, 1.0),  # magenta
    "pointOfInterest": (0.2, 0.85, 0.3, 1.0),  # green
    "unknown": NEUTRAL,
}
ROLE_COLORS: dict[str, RGBA] = {  # LayerRole and ReportedLayerRole, by name
    "allowedArea": (0.2, 0.85, 0.3, 1.0),  # green
    "preferred": (0.6, 0.95, 0.5, 1.0),  # light green
    "keepout": (1.0, 0.1, 0.1, 1.0),  # red
    "softExclusion": (1.0, 0.6, 0.1, 1.0),  # orange
    "workArea": (0.2, 0.5, 1.0, 1.0),  # blue
    "target": (1.0, 0.9, 0.1, 1.0),  # yellow
    "queue": (0.6, 0.3, 0.9, 1.0),  # purple
    "controlZone": (0.0, 0.8, 0.8, 1.0),  # cyan
    "triggerZone": (0.9, 0.2, 0.9, 1.0),  # magenta
    "coverage": (0.3, 0.7, 0.5, 1.0),  # sea green
    "occupied": (0.4, 0.4, 0.95, 1.0),  # indigo
    "reserved": (1.0, 0.75, 0.2, 1.0),  # amber
    "consumed": (0.55, 0.4, 0.3, 1.0),  # brown
    "hazard": (1.0, 0.0, 0.0, 1.0),  # red
    "blocked": (0.6, 0.0, 0.0, 1.0),  # dark red
    "plannedPath": (0.4, 0.8, 1.0, 1.0),  # sky blue
}


# -- small helpers ---------------------------------------------------------------------------
def heading_quaternion(heading_deg: float) -> Quat:
    """A compass heading (0 = north, clockwise) as a rotation about the ENU z axis."""
    yaw = math.radians(90.0 - heading_deg)
    return (0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0))


def _enum(value: Any) -> str:
    """An enum's name, or ``#<number>`` when this schema does not know it."""
    name = enum_value(value)
    return name if isinstance(name, str) else f"#{name}"


def _color(table: dict[str, RGBA], name: str, alpha: float | None = None) -> RGBA:
    r, g, b, a = table.get(name, NEUTRAL)
    return (r, g, b, a if alpha is None else alpha)


def _valid_geo(lon: float, lat: float, alt: float = 0.0) -> bool:
    return (math.isfinite(lon) and math.isfinite(lat) and math.isfinite(alt)
            and -180.0 <= lon <= 180.0 and -90.0 <= lat <= 90.0)


def _stamp_ms(ms: int) -> float:
    return ms / 1000.0 if ms > 0 else 0.0


def _member(reader: Any, what: str) -> str:
    member = active_member(reader)
    if member is None:
        raise ConversionError(f"{what} of a kind this version does not know")
    return member


def _finite_or(value: float, default: float) -> float:
    return value if math.isfinite(value) else default


def geo_pose_row(pose: Any) -> tuple[np.ndarray | None, str]:
    """A fleet ``Pose`` as a (7,) wgs84 row, or None with the reason it cannot be one."""
    lon, lat, alt, heading = pose.lonDeg, pose.latDeg, pose.altitudeM, pose.headingDeg
    if not _valid_geo(lon, lat, alt):
        return None, "position not finite or out of range"
    note = ""
    if math.isfinite(heading):
        quat = heading_quaternion(heading)
    else:
        quat, note = (0.0, 0.0, 0.0, 1.0), "no heading"
    return np.array([lon, lat, alt, *quat]), note


def local_pose_row(pose: Any) -> np.ndarray | None:
    """A fleet ``Pose3`` as a (7,) row (quaternion normalised; all zeros = identity)."""
    row = np.array([pose.x, pose.y, pose.z, pose.qx, pose.qy, pose.qz, pose.qw], dtype=float)
    if not np.isfinite(row).all():
        return None
    norm = float(np.linalg.norm(row[3:]))
    row[3:] = (0.0, 0.0, 0.0, 1.0) if norm < 1e-9 else row[3:] / norm
    return row


# -- motion and goals --------------------------------------------------------------------------
def motion_poses(motion: Any, label: str = "", stamp: float = 0.0) -> Scene:
    """``MotionTelemetry`` -> Scene(Poses in wgs84, Poses in the local frame)."""
    parts: list[object] = []
    reasons: list[str] = []
    if motion.hasPose:
        row, note = geo_pose_row(motion.pose)
        if row is None:
            reasons.append(f"geodetic pose {note}")
        else:
            text = f"{label} ({note})" if note and label else (label or note)
            parts.append(Poses(row.reshape(1, 7), frame_id=WGS84, stamp=stamp, label=text))
    if motion.hasLocalPose:
        row = local_pose_row(motion.localPose)
        if row is None:
            reasons.append("local pose not finite")
        else:
            parts.append(Poses(row.reshape(1, 7), frame_id=motion.localFrameId or LOCAL_FRAME,
                               stamp=stamp, label=label))
    if not parts:
        raise ConversionError("; ".join(reasons) if reasons else "motion carries no pose")
    return Scene(tuple(parts))


def goto_poses(goto: Any, stamp: float = 0.0) -> Poses:
    """A ``GoTo`` target as one pose: geodetic in wgs84, local in ``map``."""
    member = _member(goto, "go-to target")
    speed = goto.speedMps
    label = "goal" if not (math.isfinite(speed) and speed > 0) else f"goal at {speed:g} m/s"
    if member == "pose":
        row, note = geo_pose_row(goto.pose)
        if row is None:
            raise ConversionError(f"go-to target {note}")
        return Poses(row.reshape(1, 7), frame_id=WGS84, stamp=stamp,
                     label=f"{label} ({note})" if note else label)
    row = local_pose_row(goto.pose3)
    if row is None:
        raise ConversionError("go-to target not finite")
    return Poses(row.reshape(1, 7), frame_id=LOCAL_FRAME, stamp=stamp, label=label)


# -- objects ----------------------------------------------------------------------------------
def object_entity(obj: Any) -> SceneEntity:
    """A tracked ``Object`` as a cube (2 × radius, else the default size) and a label."""
    if not obj.id:
        raise ConversionError("object without an id")
    row, note = geo_pose_row(obj.location)
    if row is None:
        raise ConversionError(f"object {obj.id}: location {note}")
    kind = _enum(obj.objectType)
    radius = obj.radiusM
    size = 2.0 * radius if math.isfinite(radius) and radius > 0 else DEFAULT_OBJECT_SIZE_M
    name = obj.name or obj.id
    label = f"{name} ({kind})"
    top = row.copy()
    top[2] += size / 2.0 + 0.5
    top[3:] = (0.0, 0.0, 0.0, 1.0)
    primitives = (
        Primitive("cube", pose=tuple(float(v) for v in row), size=(size, size, size),
                  color=_color(OBJECT_COLORS, kind)),
        Primitive("text", pose=tuple(float(v) for v in top), text=label, color=TEXT_COLOR),
    )
    stamp = _stamp_ms(obj.unixTimeMs)
    lifetime = 0.0
    if obj.expiresUnixTimeMs > 0 and obj.unixTimeMs > 0 and \
            obj.expiresUnixTimeMs > obj.unixTimeMs:
        lifetime = (obj.expiresUnixTimeMs - obj.unixTimeMs) / 1000.0
    return SceneEntity(obj.id, primitives, frame_id=WGS84, stamp=stamp, lifetime_s=lifetime,
                       label=f"{label}{f', {note}' if note else ''}")


def _op(op: Any, what: str, upsert: Any) -> SceneChange:
    """An upsert/delete operation -> SceneChange; ``upsert`` makes the entity."""
    member = _member(op, f"{what} operation")
    if member == "delete":
        if not op.delete:
            raise ConversionError(f"{what} delete without an id")
        return SceneChange(deletions=(op.delete,))
    return SceneChange(entities=(upsert(op.upsert),))


def object_op(op: Any) -> SceneChange:
    return _op(op, "object", object_entity)


# -- geometry: shapes and routes -------------------------------------------------------------
def _ring(points: Iterable[Any], z: float) -> tuple[np.ndarray, int]:
    """GeoPoint2 readers -> (N, 3) wgs84 points, dropping bad ones (counted)."""
    rows = [(p.lon, p.lat, z) for p in points]
    good = [r for r in rows if _valid_geo(r[0], r[1])]
    return np.array(good, dtype=np.float64).reshape(-1, 3), len(rows) - len(good)


def _open_ring(ring: np.ndarray) -> np.ndarray:
    """A ring without its closing point (first == last) and without repeated points."""
    if len(ring) > 1 and np.array_equal(ring[0], ring[-1]):
        ring = ring[:-1]
    if len(ring) > 1:
        keep = np.ones(len(ring), dtype=bool)
        keep[1:] = np.any(ring[1:] != ring[:-1], axis=1)
        ring = ring[keep]
    return ring


class _Geometry:
    """Primitives of one entity, with the count of points left out."""

    def __init__(self, color: RGBA) -> None:
        self.color = color
        self.primitives: list[Primitive] = []
        self.dropped = 0
        self.empty = 0  # parts (lines, polygons) with too few points left
        self.anchor: np.ndarray | None = None  # where the label goes

    def _anchor(self, points: np.ndarray) -> None:
        if self.anchor is None and len(points):
            self.anchor = points.mean(axis=0)

    def points(self, points: Iterable[Any], z: float) -> None:
        pts, bad = _ring(points, z)
        self.dropped += bad
        for p in pts:
            self.primitives.append(Primitive("sphere", pose=(*map(float, p), 0.0, 0.0, 0.0, 1.0),
                                             size=(POINT_SIZE_M,) * 3, color=self.color))
        self._anchor(pts)
        if not len(pts):
            self.empty += 1

    def line(self, points: Iterable[Any], z: float) -> None:
        pts, bad = _ring(points, z)
        self.dropped += bad
        if len(pts) < 2:
            self.empty += 1
            return
        self.primitives.append(Primitive("line_strip", points=pts, color=self.color,
                                         width=LINE_WIDTH))
        self._anchor(pts)

    def polygon(self, polygon: Any, z_min: float, z_max: float | None) -> None:
        """Outline of every ring; with ``z_max``, also the extruded volume (keep-out)."""
        exterior, bad = _ring(polygon.exterior, z_min)
        self.dropped += bad
        exterior = _open_ring(exterior)
        if len(exterior) < 3:
            self.empty += 1
            return
        holes = []
        for hole_points in polygon.holes:
            hole, bad = _ring(hole_points, z_min)
            self.dropped += bad
            hole = _open_ring(hole)
            if len(hole) >= 3:
                holes.append(hole)
            else:
                self.empty += 1
        for ring in (exterior, *holes):
            self.primitives.append(Primitive("line_loop", points=ring, color=self.color,
                                             width=LINE_WIDTH))
        if z_max is not None:
            volume = extruded_polygon(exterior[:, :2], [h[:, :2] for h in holes], z_min, z_max)
            r, g, b, _ = self.color
            self.primitives.append(Primitive("triangles", points=volume[0], indices=volume[1],
                                             color=(r, g, b, KEEPOUT_ALPHA)))
        self._anchor(exterior)

    def shape_data(self, data: Any, z_min: float, z_max: float | None) -> None:
        member = _member(data, "shape")
        if member == "point":
            self.points([data.point], z_min)
        elif member == "multiPoint":
            self.points(data.multiPoint, z_min)
        elif member == "lineString":
            self.line(data.lineString, z_min)
        elif member == "multiLineString":
            for line in data.multiLineString:
                self.line(line, z_min)
        elif member == "polygon":
            self.polygon(data.polygon, z_min, z_max)
        else:
            for polygon in data.multiPolygon:
                self.polygon(polygon, z_min, z_max)

    def waypoints(self, poses: Iterable[Any]) -> None:
        rows = []
        for pose in poses:
            row, _ = geo_pose_row(pose)
            if row is None:
                self.dropped += 1
                continue
            rows.append(row)
            self.primitives.append(Primitive("arrow", pose=tuple(float(v) for v in row),
                                             size=ARROW_SIZE, color=self.color))
        if rows:
            self._anchor(np.array(rows)[:, :3])
        else:
            self.empty += 1

    def path(self, poses: Iterable[Any]) -> None:
        rows = []
        for pose in poses:
            row, _ = geo_pose_row(pose)
            if row is None:
                self.dropped += 1
            else:
                rows.append(row[:3])
        if len(rows) < 2:
            self.empty += 1
            return
        pts = np.array(rows)
        self.primitives.append(Primitive("line_strip", points=pts, color=self.color,
                                         width=LINE_WIDTH))
        self._anchor(pts)

    def route_data(self, data: Any) -> None:
        member = _member(data, "route")
        if member == "waypoint":
            self.waypoints([data.waypoint])
        elif member == "multiWaypoint":
            self.waypoints(data.multiWaypoint)
        elif member == "path":
            self.path(data.path)
        else:
            for path in data.multiPath:
                self.path(path)

    def entity(self, entity_id: str, name: str, stamp: float = 0.0,
               lifetime_s: float = 0.0) -> SceneEntity:
        if not self.primitives:
            raise ConversionError(f"{name}: no drawable geometry"
                                  + (f" ({self.dropped} bad points)" if self.dropped else ""))
        notes = []
        if self.dropped:
            notes.append(f"{self.dropped} bad points left out")
        if self.empty:
            notes.append(f"{self.empty} empty parts")
        label = name + (f" ({', '.join(notes)})" if notes else "")
        if self.anchor is not None:
            self.primitives.append(Primitive("text", pose=(*map(float, self.anchor), 0.0, 0.0,
                                                           0.0, 1.0),
                                             text=name, color=TEXT_COLOR))
        return SceneEntity(entity_id, tuple(self.primitives), frame_id=WGS84, stamp=stamp,
                           lifetime_s=lifetime_s, label=label, ground_relative=True)


def _height_rule(min_z: float, max_z: float) -> tuple[float, float | None]:
    """(base altitude, top altitude or None) of a shape's optional height rule."""
    base = _finite_or(min_z, 0.0)
    top = max_z if math.isfinite(max_z) and max_z > base else None
    return base, top


def _identity_name(identity: Any, role: str) -> tuple[str, str]:
    entity_id = identity.id
    if not entity_id:
        raise ConversionError("shape or route without an id")
    return entity_id, f"{identity.name or entity_id} [{role}]"


def shape_entity(shape: Any, entity_id: str | None = None, name: str | None = None,
                 stamp: float = 0.0, lifetime_s: float = 0.0) -> SceneEntity:
    """A ``Shape``: outlines, or a translucent volume for a keep-out."""
    role = _enum(shape.areaType)
    own_id, own_name = _identity_name(shape.identity, role) if entity_id is None else ("", "")
    geometry = _Geometry(_color(ROLE_COLORS, role))
    base, top = _height_rule(shape.minZM, shape.maxZM)
    if role == "keepout" and top is None:
        top = base + KEEPOUT_HEIGHT_M
    geometry.shape_data(shape.data, base, top if role == "keepout" else None)
    return geometry.entity(entity_id or own_id, name or own_name, stamp, lifetime_s)


def route_entity(route: Any, entity_id: str | None = None, name: str | None = None,
                 stamp: float = 0.0, lifetime_s: float = 0.0) -> SceneEntity:
    role = _enum(route.areaType)
    if entity_id is None:
        entity_id, name = _identity_name(route.identity, role)
    geometry = _Geometry(_color(ROLE_COLORS, role))
    geometry.route_data(route.data)
    return geometry.entity(entity_id, name or entity_id, stamp, lifetime_s)


def feature_entity(feature: Any, entity_id: str | None = None, name: str | None = None,
                   stamp: float = 0.0, lifetime_s: float = 0.0) -> SceneEntity:
    member = _member(feature, "spatial feature")
    if member == "shape":
        return shape_entity(feature.shape, entity_id, name, stamp, lifetime_s)
    return route_entity(feature.route, entity_id, name, stamp, lifetime_s)


def reported_shape_entity(shape: Any) -> SceneEntity:
    role = _enum(shape.areaType)
    entity_id, name = _identity_name(shape.identity, role)
    geometry = _Geometry(_color(ROLE_COLORS, role))
    base, _ = _height_rule(shape.minZM, shape.maxZM)
    geometry.shape_data(shape.data, base, None)
    return geometry.entity(entity_id, name)


def directive_entity(directive: Any) -> SceneEntity:
    """A ``SpatialDirective`` (field rule): its feature, under the directive's id."""
    if not directive.directiveId:
        raise ConversionError("spatial directive without an id")
    stamp = _stamp_ms(directive.startTimeMs)
    lifetime = 0.0
    if directive.hasExpireTimeMs and directive.expireTimeMs > directive.startTimeMs > 0:
        lifetime = (directive.expireTimeMs - directive.startTimeMs) / 1000.0
    feature = directive.spatial
    member = _member(feature, "spatial feature")
    role = _enum(feature.shape.areaType if member == "shape" else feature.route.areaType)
    name = f"{directive.name or directive.directiveId} [{role}]"
    return feature_entity(feature, directive.directiveId, name, stamp, lifetime)


# -- converters -----------------------------------------------------------------------------
UPLINK_DRAWN = ("motion", "object", "reportedShape")  # the members with anything to draw
COMMAND_DRAWN = ("goTo", "spatialDirective", "feature", "object")
NOTHING_TO_DRAW = Scene()  # a well-formed message the scene has no use for (a battery reading)


def _draws(direction: str, segments: dict[str, str],
           drawn: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether a key can hold a member with anything to draw: the station's own keys name
    their member (``…/uplink/battery``); any other key might hold any member."""
    quiet = {f"/{direction}/{s}" for m, s in segments.items() if m not in drawn}
    return lambda key: not any(key.endswith(end) for end in quiet)


@converter("fleet.uplink", "fleet.Uplink", draws=_draws("uplink", UPLINK_SEGMENTS, UPLINK_DRAWN))
def uplink(decoded: DecodedMessage) -> Scene | SceneChange:
    message = decoded.root
    member = _member(message, "uplink")
    stamp = _stamp_ms(message.unixTimeMs)
    if member == "motion":
        return motion_poses(message.motion, message.robotId, stamp)
    if member == "object":
        return object_op(message.object)
    if member == "reportedShape":
        return _op(message.reportedShape, "reported shape", reported_shape_entity)
    return NOTHING_TO_DRAW


@converter("fleet.command", "fleet.Command",
           draws=_draws("command", COMMAND_SEGMENTS, COMMAND_DRAWN))
def command(decoded: DecodedMessage) -> Poses | Scene | SceneChange:
    message = decoded.root
    member = _member(message, "command")
    if member == "goTo":
        return goto_poses(message.goTo, _stamp_ms(message.unixTimeMs))
    if member == "spatialDirective":
        return _op(message.spatialDirective, "spatial directive", directive_entity)
    if member == "feature":
        return _op(message.feature, "feature", feature_entity)
    if member == "object":
        return object_op(message.object)
    return NOTHING_TO_DRAW


@converter("fleet.object", "fleet.Object")
def bare_object(decoded: DecodedMessage) -> SceneChange:
    return SceneChange(entities=(object_entity(decoded.root),))


@converter("fleet.object_op", "fleet.ObjectOp")
def bare_object_op(decoded: DecodedMessage) -> SceneChange:
    return object_op(decoded.root)


@converter("fleet.reported_shape", "fleet.ReportedShape")
def bare_reported_shape(decoded: DecodedMessage) -> SceneChange:
    return SceneChange(entities=(reported_shape_entity(decoded.root),))


@converter("fleet.reported_shape_op", "fleet.ReportedShapeOp")
def bare_reported_shape_op(decoded: DecodedMessage) -> SceneChange:
    return _op(decoded.root, "reported shape", reported_shape_entity)


@converter("fleet.spatial_directive", "fleet.SpatialDirective")
def bare_directive(decoded: DecodedMessage) -> SceneChange:
    return SceneChange(entities=(directive_entity(decoded.root),))


@converter("fleet.spatial_directive_op", "fleet.SpatialDirectiveOp")
def bare_directive_op(decoded: DecodedMessage) -> SceneChange:
    return _op(decoded.root, "spatial directive", directive_entity)


@converter("fleet.feature_op", "fleet.FeatureOp")
def bare_feature_op(decoded: DecodedMessage) -> SceneChange:
    return _op(decoded.root, "feature", feature_entity)


@converter("fleet.feature", "fleet.SpatialFeature")
def bare_feature(decoded: DecodedMessage) -> SceneChange:
    return SceneChange(entities=(feature_entity(decoded.root),))


@converter("fleet.shape", "fleet.Shape")
def bare_shape(decoded: DecodedMessage) -> SceneChange:
    return SceneChange(entities=(shape_entity(decoded.root),))


@converter("fleet.route", "fleet.Route")
def bare_route(decoded: DecodedMessage) -> SceneChange:
    return SceneChange(entities=(route_entity(decoded.root),))


@converter("fleet.pose", "fleet.Pose")
def bare_pose(decoded: DecodedMessage) -> Poses:
    row, note = geo_pose_row(decoded.root)
    if row is None:
        raise ConversionError(f"pose {note}")
    return Poses(row.reshape(1, 7), frame_id=WGS84, label=note)


@converter("fleet.motion", "fleet.MotionTelemetry")
def bare_motion(decoded: DecodedMessage) -> Scene:
    return motion_poses(decoded.root)


@converter("fleet.go_to", "fleet.GoTo")
def bare_goto(decoded: DecodedMessage) -> Poses:
    return goto_poses(decoded.root)
