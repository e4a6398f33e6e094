"""What the rover reports for the operator's map and 3D view beside its own pose: the things
it tracks (``uplink/objects``), where it will go (``uplink/reported_shapes``) and the field
rules it holds (``spatial_directives``).

Positions are geodetic, from the local x/y of app.sim.kinematics (``Pose2D.geodetic``, the
datum every sim robot shares), at the field's ground altitude :data:`ALTITUDE_M` — the
altitude of the rover's own ``motion.pose`` — so objects, shapes and the rover line up on a
map and over the rover's ``world`` frame in 3D.

Roles and enums (seed 002):
- Objects come from the SyntheticScene the rover's sensors see (the same ids, positions and
  motion as its detections): ``person`` for people, ``vehicle`` for the driving vehicle,
  ``obstacle`` for loose boxes on the field, ``equipment`` for the loaded pallets (static
  site equipment). Scope ``robot``: the rover's own detections go to the fleet manager only.
  Objects within :data:`TRACK_RANGE_M` of the rover are tracked; one that leaves that range
  (the vehicle's loop takes it out and back in) is deleted. Each upsert expires
  :data:`OBJECT_TTL_MS` after its time, so a rover that goes silent leaves no ghosts.
- The planned path is a ``ReportedShape`` line string with ``ReportedLayerRole.plannedPath``
  ("where the robot will go (path and target)"): from the rover through the remaining
  waypoints of its mission, else its fixed patrol loop (closed: first point = last).
- Keep-out is an *intent* role (``LayerRole.keepout``, server -> robot), which a
  ``ReportedShape`` (state roles only) cannot carry. So the rover also publishes the field
  rules it currently holds as bare ``fleet.SpatialDirectiveOp`` roots on
  ``fleet/<robotId>/spatial_directives`` (an addition, schemas/README.md): a keep-out
  polygon around the pallet store (scope ``fleet``, with a height rule) and a ``Route``, the
  service track, with ``LayerRole.preferred`` ("preferred area to drive, for planning",
  scope ``robot``) and its zone parameters.

An ``Uplink`` or a ``SpatialDirectiveOp`` carries one operation, so each stream sends a
*sweep* of operations at its rate, one per robot tick (:class:`OpStream`): every object of a
sweep describes the same instant, and each object is refreshed at the stream's rate.
"""

from __future__ import annotations

import math
import time
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from app.codec.registry import registry
from app.sim.kinematics import Pose2D
from app.sim.robot import SimRobot, Topic
from app.sim.scene import SceneObject, SyntheticScene

ALTITUDE_M = 490.0  # the field's ground height above the ellipsoid
UPLINK = "fleet.Uplink"
DIRECTIVE_OP = "fleet.SpatialDirectiveOp"
OBJECTS_HZ = 2.0
SHAPES_HZ = 0.5
DIRECTIVES_HZ = 0.5
TRACK_RANGE_M = 25.0  # objects farther from the rover are not tracked (deleted when they go)
OBJECT_TTL_MS = 3_000  # several sweeps: a live rover refreshes each object well before
SHAPE_TTL_MS = 10_000
OBJECT_TYPES = {"person": "person", "vehicle": "vehicle", "box": "obstacle",
                "pallet": "equipment"}

XY = tuple[float, float]
# The site in the rover's local frame (x east, y north, m), around the scene's objects.
PATROL_LOOP: tuple[XY, ...] = ((0.0, 0.0), (0.0, -9.0), (18.0, -9.0), (18.0, 0.0), (0.0, 0.0))
KEEPOUT: tuple[XY, ...] = ((9.0, 1.6), (14.4, 1.6), (14.4, 6.6), (11.0, 7.4), (9.0, 6.2))
KEEPOUT_HEIGHT_M = 2.5
SERVICE_TRACK: tuple[XY, ...] = ((-4.0, -12.0), (24.0, -12.0), (36.0, -6.0), (36.0, 14.0))
TRACK_SPEED_MPS = 1.0


def unix_ms() -> int:
    return time.time_ns() // 1_000_000


def geodetic(x: float, y: float) -> tuple[float, float]:
    """(lat, lon) of a local position."""
    return Pose2D(x, y).geodetic()


def compass_deg(dx: float, dy: float) -> float:
    """Compass bearing (0 = north, clockwise) of a local direction (x east, y north)."""
    return (90.0 - math.degrees(math.atan2(dy, dx))) % 360.0


class OpStream:
    """A topic that sends a sweep of messages every 1/rate_hz s, one per robot tick.

    The topic is registered at ``rate_hz`` (its catalog rate: each item is refreshed that
    often); :meth:`schedule`, called from the robot's step, makes it due every tick while a
    sweep is being sent."""

    def __init__(self, rate_hz: float, sweep: Callable[[float], list[Any]]) -> None:
        self.rate_hz = rate_hz
        self.topic: Topic | None = None
        self._sweep = sweep
        self._queue: deque[Any] = deque()
        self._due = -math.inf

    def produce(self, now: float) -> Any | None:
        if not self._queue and now >= self._due:
            period = 1.0 / self.rate_hz
            # A period after this sweep was due, or after now when far behind (or the first).
            self._due = (self._due if now - self._due < period else now) + period
            self._queue.extend(self._sweep(now))
        return self._queue.popleft() if self._queue else None

    def schedule(self, now: float) -> None:
        if self.topic is not None and (self._queue or now >= self._due):
            self.topic.next_due = now


class RoverMap:
    """The rover's objects, planned path and field rules. ``pose`` gives the rover's pose;
    ``mission_path`` the name and the local points still to drive of its mission (from its
    position on), or None without one."""

    def __init__(
        self,
        robot_id: str,
        scene: SyntheticScene,
        pose: Callable[[], Pose2D],
        mission_path: Callable[[], tuple[str, Sequence[XY]] | None],
    ) -> None:
        self.robot_id = robot_id
        self.scene = scene
        self._pose = pose
        self._mission_path = mission_path
        self._tracked: set[str] = set()
        self._since_ms = unix_ms()
        self.objects = OpStream(OBJECTS_HZ, self._object_ops)
        self.shapes = OpStream(SHAPES_HZ, self._shape_ops)
        self.directives = OpStream(DIRECTIVES_HZ, self._directive_ops)

    def register(self, robot: SimRobot, objects_key: str, shapes_key: str,
                 directives_key: str) -> None:
        """Adds the three topics (suffixes after ``fleet/<robotId>/``) to ``robot``."""
        for stream, suffix, type_name in ((self.objects, objects_key, UPLINK),
                                          (self.shapes, shapes_key, UPLINK),
                                          (self.directives, directives_key, DIRECTIVE_OP)):
            stream.topic = robot.add_topic(suffix, type_name, stream.rate_hz, stream.produce)

    def schedule(self, now: float) -> None:
        for stream in (self.objects, self.shapes, self.directives):
            stream.schedule(now)

    def object_id(self, obj: SceneObject) -> str:
        return f"{self.robot_id}:{obj.id}"

    # -- objects --------------------------------------------------------------------------
    def _object_ops(self, now: float) -> list[Any]:
        pose = self._pose()
        stamp = unix_ms()
        near = self.scene.objects_near(now, pose.x, pose.y, TRACK_RANGE_M)
        messages = []
        for obj in near:
            message, op = self._uplink("object", stamp)
            self._fill_object(op.init("upsert"), obj, stamp)
            messages.append(message)
        ids = {self.object_id(obj) for obj in near}
        for gone in sorted(self._tracked - ids):
            message, op = self._uplink("object", stamp)
            op.delete = gone
            messages.append(message)
        self._tracked = ids
        return messages

    def _fill_object(self, target: Any, obj: SceneObject, stamp: int) -> None:
        target.id, target.name = self.object_id(obj), obj.id
        target.unixTimeMs, target.expiresUnixTimeMs = stamp, stamp + OBJECT_TTL_MS
        target.scope = "robot"
        target.objectType = OBJECT_TYPES.get(obj.kind, "unknown")
        place = Pose2D(obj.position[0], obj.position[1], obj.yaw)
        location = target.location
        location.latDeg, location.lonDeg = place.geodetic()
        location.altitudeM, location.headingDeg = ALTITUDE_M, place.heading_deg()
        vx, vy, vz = obj.velocity
        speed = math.hypot(vx, vy)
        trajectory = target.trajectory
        trajectory.speedMps = speed
        trajectory.courseDeg = compass_deg(vx, vy) if speed > 1e-6 else place.heading_deg()
        trajectory.verticalRateMps = vz
        target.radiusM = math.hypot(obj.size[0], obj.size[1]) / 2

    # -- reported shapes --------------------------------------------------------------------
    def planned_path(self) -> tuple[str, list[XY]]:
        """(name, local points) of where the rover will go."""
        mission = self._mission_path()
        if mission is not None and len(mission[1]) >= 2:
            return f"Planned path: {mission[0]}", list(mission[1])
        return "Planned path: patrol loop", list(PATROL_LOOP)

    def _shape_ops(self, now: float) -> list[Any]:
        stamp = unix_ms()
        name, points = self.planned_path()
        message, op = self._uplink("reportedShape", stamp)
        shape = op.init("upsert")
        identity = shape.identity
        identity.id, identity.name = f"{self.robot_id}:planned-path", name
        _fill_geo_points(shape.data.init("lineString", len(points)), points)
        shape.areaType = "plannedPath"
        shape.scope = "robot"
        shape.expireTimeMs = stamp + SHAPE_TTL_MS
        shape.minZM = shape.maxZM = ALTITUDE_M
        return [message]

    # -- spatial directives -------------------------------------------------------------------
    def _directive_ops(self, now: float) -> list[Any]:
        return [self._keepout(), self._service_track()]

    def _directive(self, slug: str, name: str) -> tuple[Any, Any]:
        message = registry().struct(DIRECTIVE_OP).new_message()
        directive = message.init("upsert")
        directive.directiveId = str(uuid.uuid5(uuid.NAMESPACE_URL,
                                               f"fieldstation-sim/{self.robot_id}/{slug}"))
        directive.name = name
        directive.startTimeMs = self._since_ms
        directive.hasExpireTimeMs = False
        return message, directive

    def _keepout(self) -> Any:
        message, directive = self._directive("keepout-pallet-store", "Pallet store: keep out")
        shape = directive.spatial.init("shape")
        shape.identity.id = f"{self.robot_id}:keepout-pallet-store"
        shape.identity.name = "Pallet store"
        shape.identity.rev = 1
        polygon = shape.data.init("polygon")
        ring = [*KEEPOUT, KEEPOUT[0]]  # closed: the first point again at the end
        _fill_geo_points(polygon.init("exterior", len(ring)), ring)
        polygon.init("holes", 0)
        shape.areaType = "keepout"
        shape.scope = "fleet"  # a site rule: every robot of the fleet keeps out
        shape.minZM, shape.maxZM = ALTITUDE_M, ALTITUDE_M + KEEPOUT_HEIGHT_M
        return message

    def _service_track(self) -> Any:
        message, directive = self._directive("service-track", "Service track")
        parameter = directive.init("zoneParameters", 1)[0]
        parameter.key = "maxSpeed"
        parameter.value.number = TRACK_SPEED_MPS
        directive.capabilities = ["lights"]
        route = directive.spatial.init("route")
        route.identity.id = f"{self.robot_id}:service-track"
        route.identity.name = "Service track"
        route.identity.rev = 1
        path = route.data.init("path", len(SERVICE_TRACK))
        last = len(SERVICE_TRACK) - 1
        for index, (pose, (x, y)) in enumerate(zip(path, SERVICE_TRACK, strict=True)):
            # Each pose faces along the leg out of it; the last one along the leg into it.
            start = min(index, last - 1)
            (ax, ay), (bx, by) = SERVICE_TRACK[start], SERVICE_TRACK[start + 1]
            pose.latDeg, pose.lonDeg = geodetic(x, y)
            pose.altitudeM, pose.headingDeg = ALTITUDE_M, compass_deg(bx - ax, by - ay)
        route.areaType = "preferred"
        route.scope = "robot"
        route.featureType, route.hasFeatureType = "track", True
        return message

    # -- helpers -----------------------------------------------------------------------------
    def _uplink(self, member: str, stamp: int) -> tuple[Any, Any]:
        message = registry().struct(UPLINK).new_message(robotId=self.robot_id,
                                                        unixTimeMs=stamp)
        return message, message.init(member)


def _fill_geo_points(targets: Any, points: Sequence[XY]) -> None:
    for target, (x, y) in zip(targets, points, strict=True):
        target.lat, target.lon = geodetic(x, y)
