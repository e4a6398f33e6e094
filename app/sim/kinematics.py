"""Planar robot kinematics shared by the simulated robots."""

from __future__ import annotations

import math
from dataclasses import dataclass

EARTH_RADIUS_M = 6_378_137.0
# Local frame origin of every simulated robot: an open field, so GPS fixes look real.
DATUM_LAT_DEG = 47.3977
DATUM_LON_DEG = 8.5456


@dataclass
class Pose2D:
    x: float = 0.0  # m, east
    y: float = 0.0  # m, north
    yaw: float = 0.0  # rad, counter-clockwise from east

    def quaternion(self) -> tuple[float, float, float, float]:
        """(x, y, z, w) of the yaw rotation about +z."""
        return (0.0, 0.0, math.sin(self.yaw / 2), math.cos(self.yaw / 2))

    def heading_deg(self) -> float:
        """Compass heading: 0 = north, clockwise."""
        return (90.0 - math.degrees(self.yaw)) % 360.0

    def geodetic(self) -> tuple[float, float]:
        """(lat, lon) in degrees of this local position (equirectangular, fine for a field)."""
        lat = DATUM_LAT_DEG + math.degrees(self.y / EARTH_RADIUS_M)
        lon = DATUM_LON_DEG + math.degrees(
            self.x / (EARTH_RADIUS_M * math.cos(math.radians(DATUM_LAT_DEG)))
        )
        return lat, lon


def local_from_geodetic(lat_deg: float, lon_deg: float) -> tuple[float, float]:
    """(x east, y north) in metres of a geodetic position, inverse of Pose2D.geodetic."""
    y = math.radians(lat_deg - DATUM_LAT_DEG) * EARTH_RADIUS_M
    x = math.radians(lon_deg - DATUM_LON_DEG) * EARTH_RADIUS_M * math.cos(
        math.radians(DATUM_LAT_DEG)
    )
    return x, y


@dataclass
class Unicycle:
    """Velocity-commanded base that stops by itself when commands stop arriving."""

    pose: Pose2D
    max_linear: float = 2.0  # m/s
    max_angular: float = 2.0  # rad/s
    timeout_s: float = 0.5
    linear: float = 0.0
    angular: float = 0.0
    _last_command: float = -math.inf

    def command(self, linear: float, angular: float, now: float) -> None:
        if not (math.isfinite(linear) and math.isfinite(angular)):
            linear, angular = 0.0, 0.0
        self.linear = max(-self.max_linear, min(self.max_linear, linear))
        self.angular = max(-self.max_angular, min(self.max_angular, angular))
        self._last_command = now

    def halt(self) -> None:
        self.linear = self.angular = 0.0

    def step(self, now: float, dt: float) -> None:
        if now - self._last_command > self.timeout_s:
            self.halt()
        self.pose.yaw = (self.pose.yaw + self.angular * dt + math.pi) % (2 * math.pi) - math.pi
        self.pose.x += self.linear * math.cos(self.pose.yaw) * dt
        self.pose.y += self.linear * math.sin(self.pose.yaw) * dt

    @property
    def moving(self) -> bool:
        return self.linear != 0.0 or self.angular != 0.0
