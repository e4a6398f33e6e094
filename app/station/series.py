"""A numeric field's history: (time, value) pairs appended by a lane, read by a plot."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

SERIES_CAPACITY = 1_000_000  # points per series; the oldest are dropped past this


class SeriesBuffer:
    """A growable ring of (time, value) pairs; appended by the decode thread."""

    def __init__(self, capacity: int = SERIES_CAPACITY) -> None:
        import numpy as np  # here, not at module level: keeps numpy off the start-up path

        self._resize = np.resize
        self.capacity = capacity
        self._t = np.empty(1024)
        self._y = np.empty(1024)
        self._n = 0
        self._lock = threading.Lock()
        self.version = 0
        self.error = ""

    def append(self, t: float, y: float) -> None:
        with self._lock:
            if self._n == len(self._t):
                if self._n >= self.capacity:
                    keep = self.capacity // 2
                    self._t[:keep] = self._t[self._n - keep : self._n]
                    self._y[:keep] = self._y[self._n - keep : self._n]
                    self._n = keep
                else:
                    self._t = self._resize(self._t, min(self.capacity, 2 * len(self._t)))
                    self._y = self._resize(self._y, len(self._t))
            self._t[self._n] = t
            self._y[self._n] = y
            self._n += 1
            self.version += 1

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Copies of the data, safe to hand to the GUI thread."""
        with self._lock:
            return self._t[: self._n].copy(), self._y[: self._n].copy()

    def __len__(self) -> int:
        return self._n
