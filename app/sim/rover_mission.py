"""Missions of the rover: waypoints to drive through, their lifecycle and a drive controller."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

from app.sim.kinematics import Pose2D, local_from_geodetic

TERMINAL = ("aborted", "complete", "error")
HEADING_GAIN = 2.5  # rad/s per rad of heading error
APPROACH_GAIN = 1.5  # m/s per m left: slows down on the last metre
MAX_RANGE_M = 5000.0  # a farther target is a mistake (wrong datum, swapped lat/lon)


@dataclass(frozen=True)
class Waypoint:
    x: float  # local, m
    y: float
    lat: float  # where it is, for MissionFeedback.target
    lon: float
    heading_deg: float
    step: int  # index of the mission step it belongs to


@dataclass
class MissionRun:
    mission_id: str
    name: str
    waypoints: list[Waypoint]
    step_count: int
    speed_mps: float = 0.0  # requested speed, 0 = the rover's limit
    status: str = "starting"  # fleet.MissionStatus enumerant
    index: int = 0  # current waypoint
    message: str = ""
    length_m: float = 0.0  # path length from where the run started
    ended_at: float | None = None
    _segments_after: list[float] = field(default_factory=list)

    def begin(self, pose: Pose2D, now: float) -> None:
        if not self.waypoints:
            self.finish("error", "mission has no waypoints the rover can drive to", now)
            return
        if not all(math.dist((pose.x, pose.y), (w.x, w.y)) <= MAX_RANGE_M
                   for w in self.waypoints):  # also catches NaN
            self.finish("error", f"a waypoint is farther than {MAX_RANGE_M:g} m away", now)
            return
        legs = [math.dist((a.x, a.y), (b.x, b.y)) for a, b in itertools.pairwise(self.waypoints)]
        self._segments_after = [sum(legs[i:]) for i in range(len(self.waypoints))]
        self.length_m = max(self.remaining_m(pose), 1e-6)

    @property
    def active(self) -> bool:
        return self.status not in TERMINAL

    @property
    def target(self) -> Waypoint | None:
        return self.waypoints[self.index] if self.index < len(self.waypoints) else None

    def remaining_m(self, pose: Pose2D) -> float:
        target = self.target
        if target is None:
            return 0.0
        return math.dist((pose.x, pose.y), (target.x, target.y)) + self._segments_after[self.index]

    def progress(self, pose: Pose2D) -> float:
        if self.status == "complete":
            return 1.0
        if not self.waypoints:
            return 0.0
        return min(1.0, max(0.0, 1.0 - self.remaining_m(pose) / self.length_m))

    def finish(self, status: str, message: str, now: float) -> None:
        self.status, self.message, self.ended_at = status, message, now

    def drive(self, pose: Pose2D, max_speed: float, tolerance_m: float,
              now: float) -> tuple[float, float]:
        """(linear, angular) toward the current waypoint; advances and completes the run."""
        target = self.target
        while target is not None and math.dist((pose.x, pose.y), (target.x, target.y)) \
                <= tolerance_m:
            self.index += 1
            target = self.target
        if target is None:
            self.finish("complete", "goal reached", now)
            return 0.0, 0.0
        dx, dy = target.x - pose.x, target.y - pose.y
        error = (math.atan2(dy, dx) - pose.yaw + math.pi) % (2 * math.pi) - math.pi
        # Turn on the spot when facing away, blend into driving as the heading lines up.
        linear = min(max_speed, APPROACH_GAIN * math.hypot(dx, dy)) * max(0.0, math.cos(error))
        return linear, HEADING_GAIN * error


def waypoint_from_pose(pose: Any, step: int) -> Waypoint:
    """A fleet.Pose (geodetic) as a waypoint."""
    x, y = local_from_geodetic(pose.latDeg, pose.lonDeg)
    return Waypoint(x, y, pose.latDeg, pose.lonDeg, pose.headingDeg, step)


def waypoint_from_pose3(pose3: Any, step: int) -> Waypoint:
    """A fleet.Pose3 (local frame) as a waypoint; its yaw gives the heading when set."""
    yaw = 2.0 * math.atan2(pose3.qz, pose3.qw) if (pose3.qz or pose3.qw) else math.pi / 2
    local = Pose2D(pose3.x, pose3.y, yaw)
    lat, lon = local.geodetic()
    return Waypoint(pose3.x, pose3.y, lat, lon, local.heading_deg(), step)


def waypoints_of_steps(steps: Any) -> list[Waypoint]:
    """Every drivable point of a MissionCommand's steps, in order."""
    waypoints: list[Waypoint] = []
    for index, step in enumerate(steps):
        feature = step.feature
        if feature.which() == "route":
            waypoints += [waypoint_from_pose(p, index) for p in _route_poses(feature.route.data)]
        else:
            waypoints += [_from_geo(p, index) for p in _shape_points(feature.shape.data)]
    return waypoints


def _route_poses(data: Any) -> list[Any]:
    kind = data.which()
    if kind == "waypoint":
        return [data.waypoint]
    if kind == "multiPath":
        return [p for path in data.multiPath for p in path]
    return list(getattr(data, kind))


def _shape_points(data: Any) -> list[Any]:
    kind = data.which()
    if kind == "point":
        return [data.point]
    if kind == "multiLineString":
        return [p for line in data.multiLineString for p in line]
    if kind == "polygon":
        return list(data.polygon.exterior)
    if kind == "multiPolygon":
        return [p for polygon in data.multiPolygon for p in polygon.exterior]
    return list(getattr(data, kind))


def _from_geo(point: Any, step: int) -> Waypoint:
    x, y = local_from_geodetic(point.lat, point.lon)
    return Waypoint(x, y, point.lat, point.lon, 0.0, step)
