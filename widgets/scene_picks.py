"""What a click in the 3D view names, and which labels fit: plain geometry in screen pixels.

A view projects its pickable items once per frame it draws, so a click is matched against
where each item was in the picture on screen, not where it has moved since.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

PICK_RADIUS_PX = 12.0  # the least distance a click may miss an item by


@dataclass(frozen=True)
class FramePicks:
    """The pickable items as one frame drew them: centres and radii in widget pixels."""

    xy: np.ndarray  # (N, 2)
    radius: np.ndarray  # (N,)
    payloads: Sequence[Any]

    def nearest(self, x: float, y: float) -> Any | None:
        """The payload of the nearest item whose radius holds (x, y), or None."""
        if len(self.payloads) == 0:
            return None
        distance = np.hypot(self.xy[:, 0] - x, self.xy[:, 1] - y)
        inside = np.flatnonzero(distance <= self.radius)
        if len(inside) == 0:
            return None
        return self.payloads[int(inside[np.argmin(distance[inside])])]


NO_PICKS = FramePicks(np.zeros((0, 2)), np.zeros(0), ())


def pick_radii(centres: np.ndarray, rims: np.ndarray) -> np.ndarray:
    """(N,) radius in pixels per item: as far as its projected extent reaches (``rims``:
    (K, N, 2), points on its extent), never under :data:`PICK_RADIUS_PX`."""
    if rims.size == 0:
        return np.full(len(centres), PICK_RADIUS_PX)
    reach = np.hypot(*(rims - centres[None]).transpose(2, 0, 1)).max(axis=0)
    return np.maximum(np.nan_to_num(reach, nan=0.0), PICK_RADIUS_PX)


def uncluttered(rects: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """(N,) bool: which label rectangles (N, 4: x, y, w, h) to show. Nearest first, each
    label is kept unless it overlaps one already kept."""
    shown = np.zeros(len(rects), dtype=bool)
    kept: list[np.ndarray] = []
    for i in np.argsort(depth, kind="stable"):
        rect = rects[i]
        if not all(np.isfinite(rect)):
            continue
        if not any(_overlap(rect, other) for other in kept):
            kept.append(rect)
            shown[i] = True
    return shown


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(a[0] < b[0] + b[2] and b[0] < a[0] + a[2]
                and a[1] < b[1] + b[3] and b[1] < a[1] + a[3])
