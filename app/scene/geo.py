"""Geodetic coordinates placed in a local east-north-up plane around a datum."""

from __future__ import annotations

import math

import numpy as np

EQUATOR_M = 6378137.0  # WGS84 semi-major axis
FLATTENING = 1 / 298.257223563
E2 = FLATTENING * (2 - FLATTENING)


def to_enu(lon_lat_alt: np.ndarray, datum: tuple[float, float, float]) -> np.ndarray:
    """(N, 3) longitude deg, latitude deg, altitude m -> (N, 3) east, north, up metres
    (a tangent plane: centimetre-exact within a few km of the datum)."""
    lon0, lat0, alt0 = datum
    phi = math.radians(lat0)
    sin2 = math.sin(phi) ** 2
    prime = EQUATOR_M / math.sqrt(1 - E2 * sin2)  # radius of curvature, prime vertical
    meridian = EQUATOR_M * (1 - E2) / (1 - E2 * sin2) ** 1.5
    points = np.asarray(lon_lat_alt, dtype=np.float64).reshape(-1, 3)
    out = np.empty_like(points)
    out[:, 0] = np.radians(points[:, 0] - lon0) * prime * math.cos(phi)
    out[:, 1] = np.radians(points[:, 1] - lat0) * meridian
    out[:, 2] = points[:, 2] - alt0
    return out


def from_enu(east_north_up: np.ndarray, datum: tuple[float, float, float]) -> np.ndarray:
    """The inverse of :func:`to_enu`: (N, 3) east, north, up metres -> (N, 3) longitude
    deg, latitude deg, altitude m."""
    lon0, lat0, alt0 = datum
    phi = math.radians(lat0)
    sin2 = math.sin(phi) ** 2
    prime = EQUATOR_M / math.sqrt(1 - E2 * sin2)
    meridian = EQUATOR_M * (1 - E2) / (1 - E2 * sin2) ** 1.5
    points = np.asarray(east_north_up, dtype=np.float64).reshape(-1, 3)
    out = np.empty_like(points)
    out[:, 0] = lon0 + np.degrees(points[:, 0] / (prime * math.cos(phi)))
    out[:, 1] = lat0 + np.degrees(points[:, 1] / meridian)
    out[:, 2] = points[:, 2] + alt0
    return out
