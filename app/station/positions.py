"""Where each robot is: its newest position and heading, from the small keys the station
always hears, for the fleet map.

Qt-free and numpy-free (the station is on the start-up path). The station offers samples of
the types in :data:`POSE_TYPES` to a :class:`PositionBook` on the keys' lanes; the fleet map
reads :meth:`PositionBook.snapshot` once per tick and compares :attr:`PositionBook.version`.

Per family, "the robot's position and heading" is (schemas/README.md, "How the fleet map
places each robot"):

- fleet ``Uplink.motion``: the geodetic ``pose`` when ``hasPose`` (heading: ``headingDeg``),
  else the ``localPose`` in ``localFrameId`` (``map`` when empty) when ``hasLocalPose``
  (heading: the quaternion's yaw).
- bow ``ExteroceptionSample``: its ``gps`` fix; heading the first IMU's ``orientation.y``
  (yaw about bow's +Y up, from forward = north towards the right, radians).
- autoware ``traffic_simulator_msgs.EntityStatus`` whose ``name`` is the robot id (the
  robot's own entity, not the traffic around it), in its topic's catalog frame (``map``).
- isaac ``Odometry2Proto``: ``odomTRobot`` in ``odometryFrame`` (else the topic's frame,
  else ``odom``).

A geodetic fix is placed in metres east/north of the book's datum: the first geodetic fix
seen, unless one is given. A robot's geodetic placement is not replaced by a local one from
another of its topics while it is fresh (younger than :data:`GEODETIC_HOLD_S`).
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

EARTH = ""  # the frame of geodetic placements: east/north metres around the datum
DEFAULT_LOCAL_FRAME = "map"  # PROTOCOL.md: a fleet localPose is in the site frame ``map``
ODOMETRY_FRAME = "odom"
FLEET_MOTION = "fleet.Uplink"
BOW_EXTEROCEPTION = "bow.ExteroceptionSample"
AUTOWARE_ENTITY = "autoware.traffic_simulator_msgs.EntityStatus"
ISAAC_ODOMETRY = "isaac.Odometry2Proto"
POSE_TYPES = (FLEET_MOTION, BOW_EXTEROCEPTION, AUTOWARE_ENTITY, ISAAC_ODOMETRY)

PERIOD_S = 0.08  # a key's pose is read at most this often (a 50 Hz IMU/GPS costs 12.5 Hz)
OTHERS_PERIOD_S = 2.0  # a key that carried another entity's pose is looked at again after
GEODETIC_HOLD_S = 3.0
MAX_LOCAL_M = 1_000_000.0  # a site frame coordinate beyond this is absurd
MAX_DATUM_M = 1_000_000.0  # so is a fix this far from the datum (tangent plane: useless)

# WGS84, as app.scene.geo (which needs numpy: not here, on the start-up path)
EQUATOR_M = 6378137.0
FLATTENING = 1 / 298.257223563
E2 = FLATTENING * (2 - FLATTENING)


@dataclass(frozen=True)
class Placement:
    """Where a robot was drawn: ``x``/``y`` metres (east/north around the datum when
    ``frame`` is :data:`EARTH`, else in that site frame), ``yaw`` radians counter-clockwise
    from +x (None: heading unknown)."""

    frame: str
    x: float
    y: float
    yaw: float | None
    source: str  # which family and field placed it, for the user
    at: float  # time.monotonic() of its arrival
    lat_lon: tuple[float, float] | None = None  # the fix itself, for geodetic placements

    @property
    def geodetic(self) -> bool:
        return self.frame == EARTH


@dataclass(frozen=True)
class RobotPosition:
    robot_id: str
    placement: Placement | None = None
    problem: str = ""  # why its newest pose sample was not placed ("" when it was)


@dataclass(frozen=True)
class _Geodetic:
    lat: float
    lon: float
    heading_deg: float | None  # 0 = north, clockwise
    source: str


@dataclass(frozen=True)
class _Local:
    frame: str
    x: float
    y: float
    yaw: float | None
    source: str


_Reading = _Geodetic | _Local | str | None  # str: the problem; None: not this robot's pose


class PositionBook:
    """Every robot's newest position; offered from lane threads, read from the GUI thread."""

    def __init__(self, datum: tuple[float, float] | None = None) -> None:
        self._fixed_datum = datum
        self.datum = datum  # (lat, lon) degrees
        self.datum_from = "fixed" if datum else ""  # the robot whose first fix it is
        self._lock = threading.Lock()
        self._robots: dict[str, RobotPosition] = {}
        self._snapshot: Mapping[str, RobotPosition] = MappingProxyType({})
        self._snapshot_stale = False  # made when read, not on every sample (many robots)
        self._next_at: dict[str, float] = {}
        self.version = 0

    def snapshot(self) -> Mapping[str, RobotPosition]:
        """Frozen: a new one after any change, never mutated."""
        with self._lock:
            if self._snapshot_stale:
                self._snapshot = MappingProxyType(dict(self._robots))
                self._snapshot_stale = False
            return self._snapshot

    def due(self, key: str, arrival: float) -> bool:
        """Whether a pose sample of ``key`` arriving now is worth decoding (each key is read
        at most every :data:`PERIOD_S`; one carrying another entity's pose, less often)."""
        return arrival >= self._next_at.get(key, 0.0)

    def offer(self, robot_id: str, key: str, type_name: str, root: Any, arrival: float,
              frame: str = "") -> bool:
        """Takes one decoded message of ``key`` (its catalog ``frame``, if any); True if it
        changed the robot's position."""
        read = _READERS.get(type_name)
        if read is None:
            return False
        try:
            reading = read(robot_id, root, frame)
        except Exception as exc:  # a reader must not let a strange message cost the lane
            reading = f"unreadable pose ({type(exc).__name__})"
        self._next_at[key] = arrival + (OTHERS_PERIOD_S if reading is None else PERIOD_S)
        if reading is None:
            return False
        with self._lock:
            old = self._robots.get(robot_id) or RobotPosition(robot_id)
            new = self._apply(old, reading, arrival)
            if new == old:
                return False
            self.version += 1
            self._robots[robot_id] = new
            self._snapshot_stale = True
        return True

    def forget(self) -> None:
        """Drops every robot, and a datum taken from a fix (a new session starts afresh)."""
        with self._lock:
            self._robots.clear()
            self._next_at.clear()
            self.datum = self._fixed_datum
            self.datum_from = "fixed" if self._fixed_datum else ""
            self.version += 1
            self._snapshot_stale = True

    def _apply(self, old: RobotPosition, reading: _Geodetic | _Local | str,
               at: float) -> RobotPosition:
        """Called under the lock."""
        held = old.placement
        if isinstance(reading, str):
            return dataclasses.replace(old, problem=reading)
        if isinstance(reading, _Local):
            if held is not None and held.geodetic and at - held.at < GEODETIC_HOLD_S:
                return old  # the robot's place on the earth is what the map shows
            if max(abs(reading.x), abs(reading.y)) > MAX_LOCAL_M:
                return dataclasses.replace(old, problem=f"position absurd ({reading.x:.3g}, "
                                           f"{reading.y:.3g} m in {reading.frame})")
            return RobotPosition(old.robot_id, Placement(
                reading.frame, reading.x, reading.y, reading.yaw, reading.source, at))
        if self.datum is None:
            self.datum, self.datum_from = (reading.lat, reading.lon), old.robot_id
        east, north = enu(reading.lat, reading.lon, self.datum)
        if math.hypot(east, north) > MAX_DATUM_M:
            return dataclasses.replace(old, problem=f"position {math.hypot(east, north) / 1000:.0f}"
                                       " km from the datum")
        yaw = None if reading.heading_deg is None else math.radians(90.0 - reading.heading_deg)
        return RobotPosition(old.robot_id, Placement(
            EARTH, east, north, yaw, reading.source, at, (reading.lat, reading.lon)))


def enu(lat: float, lon: float, datum: tuple[float, float]) -> tuple[float, float]:
    """(east, north) metres of a fix on the tangent plane at ``datum`` (lat, lon): the same
    plane as app.scene.geo.to_enu, for one point."""
    lat0, lon0 = datum
    phi = math.radians(lat0)
    sin2 = math.sin(phi) ** 2
    prime = EQUATOR_M / math.sqrt(1 - E2 * sin2)
    meridian = EQUATOR_M * (1 - E2) / (1 - E2 * sin2) ** 1.5
    return math.radians(lon - lon0) * prime * math.cos(phi), math.radians(lat - lat0) * meridian


# -- readers, one per family ------------------------------------------------------------------
def _geodetic(lat: float, lon: float, heading_deg: float, source: str) -> _Geodetic | str:
    if not (math.isfinite(lat) and math.isfinite(lon)):
        return "position not finite"
    if abs(lat) > 90.0 or abs(lon) > 180.0:
        return f"position absurd (lat {lat:g}, lon {lon:g})"
    return _Geodetic(lat, lon, heading_deg if math.isfinite(heading_deg) else None, source)


def _local(frame: str, x: float, y: float, yaw: float | None, source: str) -> _Local | str:
    if not (math.isfinite(x) and math.isfinite(y)):
        return "position not finite"
    return _Local(frame, x, y, yaw if yaw is not None and math.isfinite(yaw) else None, source)


def _yaw(qx: float, qy: float, qz: float, qw: float) -> float | None:
    """The rotation's yaw about +z; None for a zero or non-finite quaternion."""
    norm = qx * qx + qy * qy + qz * qz + qw * qw
    if not math.isfinite(norm) or norm < 1e-9:
        return None
    return math.atan2(2.0 * (qw * qz + qx * qy), qw * qw + qx * qx - qy * qy - qz * qz)


def _fleet_motion(robot_id: str, root: Any, frame: str) -> _Reading:
    if root.which() != "motion":
        return None
    motion = root.motion
    if motion.hasPose:
        p = motion.pose
        return _geodetic(p.latDeg, p.lonDeg, p.headingDeg, "fleet motion.pose")
    if motion.hasLocalPose:
        p = motion.localPose
        return _local(str(motion.localFrameId) or DEFAULT_LOCAL_FRAME, p.x, p.y,
                      _yaw(p.qx, p.qy, p.qz, p.qw), "fleet motion.localPose")
    return "motion without a pose"


def _bow_exteroception(robot_id: str, root: Any, frame: str) -> _Reading:
    if not root._has("gps"):
        return "no GPS in exteroception"
    gps = root.gps
    heading = math.nan
    if len(root.imu):
        heading = math.degrees(root.imu[0].orientation.y)
    return _geodetic(gps.latitude, gps.longitude, heading, "bow exteroception.gps")


def _autoware_entity(robot_id: str, root: Any, frame: str) -> _Reading:
    if str(root.name) != robot_id:
        return None  # another entity (the traffic around the car)
    p, q = root.pose.position, root.pose.orientation
    return _local(frame or DEFAULT_LOCAL_FRAME, p.x, p.y, _yaw(q.x, q.y, q.z, q.w),
                  "autoware EntityStatus")


def _isaac_odometry(robot_id: str, root: Any, frame: str) -> _Reading:
    pose = root.odomTRobot
    c, s = pose.rotation.q.x, pose.rotation.q.y
    yaw = math.atan2(s, c) if math.isfinite(c) and math.isfinite(s) and (c or s) else None
    return _local(str(root.odometryFrame) or frame or ODOMETRY_FRAME, pose.translation.x,
                  pose.translation.y, yaw, "isaac Odometry2")


_READERS: dict[str, Callable[[str, Any, str], _Reading]] = {
    FLEET_MOTION: _fleet_motion,
    BOW_EXTEROCEPTION: _bow_exteroception,
    AUTOWARE_ENTITY: _autoware_entity,
    ISAAC_ODOMETRY: _isaac_odometry,
}
