"""The display models converters produce: numpy arrays plus a few small fields."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PointCloud:
    """Points in ``frame_id`` ("" = the topic's frame: its catalog frameId, else base_link)."""

    xyz: np.ndarray  # (N, 3) float32
    intensity: np.ndarray | None = None  # (N,) float32
    frame_id: str = ""
    dropped: int = 0  # non-finite points left out

    def __len__(self) -> int:
        return len(self.xyz)
