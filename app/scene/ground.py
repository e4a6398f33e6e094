"""Where a view ray meets the ground: the plane z = 0 of the fixed frame (Qt-free)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

MIN_HEADING_DRAG_M = 0.2  # a drag shorter than this on the ground sets no heading


def ground_point(origin: Iterable[float], direction: Iterable[float],
                 height: float = 0.0) -> tuple[float, float] | None:
    """(x, y) where the ray ``origin + t * direction`` (t >= 0) crosses the plane
    z = ``height``; None when it runs parallel to it, points away from it, or is not
    finite."""
    ox, oy, oz = (float(v) for v in origin)
    dx, dy, dz = (float(v) for v in direction)
    if not all(math.isfinite(v) for v in (ox, oy, oz, dx, dy, dz)):
        return None
    length = math.sqrt(dx * dx + dy * dy + dz * dz)
    if length == 0.0 or abs(dz) < 1e-9 * length:
        return None
    t = (height - oz) / dz
    if t < 0.0:
        return None
    x, y = ox + t * dx, oy + t * dy
    return (x, y) if math.isfinite(x) and math.isfinite(y) else None


def heading_between(start: Sequence[float], end: Sequence[float],
                    min_length: float = MIN_HEADING_DRAG_M) -> float | None:
    """Yaw (rad, counter-clockwise from +x) of the arrow from ``start`` to ``end`` on the
    ground; None when they are closer than ``min_length``."""
    dx, dy = float(end[0]) - float(start[0]), float(end[1]) - float(start[1])
    if not (math.isfinite(dx) and math.isfinite(dy)) or math.hypot(dx, dy) < min_length:
        return None
    return math.atan2(dy, dx)
