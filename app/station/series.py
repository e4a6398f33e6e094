"""A numeric field's history: (time, value) pairs appended by a lane, read by a plot.

The buffer keeps its points in time order, so a reader asks for a time window (a binary
search and a copy of only that slice) or for what was appended since it last read, never
for the whole history. Out-of-order samples are inserted where they belong (cheap: they
are rare and land near the end); non-finite ones are dropped at the door.

Threads: one writer (``append``/``extend``), any number of readers (``window``/``since``,
typically the GUI thread). Both sides hold a lock for a moment; readers get copies of
their slice, so the writer may shift or drop points afterwards without tearing them.

A read returns ``(t, y, cursor)``; hand the cursor to ``since`` to get only the points
appended after that read. ``since`` answers ``None`` when points the reader already has
moved (an out-of-order insert) or points it had not read yet were dropped at capacity:
the reader then reads its window again. (Points it read and that were dropped since stay
valid for it: a drop only removes the oldest points, and indices count from the start.)
"""

from __future__ import annotations

import math
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

SERIES_CAPACITY = 1_000_000  # points per series; the oldest half is dropped past this

Cursor = tuple[int, int]  # (epoch, absolute index of the first point not yet read)


class SeriesBuffer:
    """A growable ring of (time, value) pairs in time order; appended by the decode thread."""

    def __init__(self, capacity: int = SERIES_CAPACITY) -> None:
        import numpy as np  # here, not at module level: keeps numpy off the start-up path

        self._np = np
        self.capacity = max(int(capacity), 2)
        self._t = np.empty(min(1024, self.capacity))
        self._y = np.empty(len(self._t))
        self._n = 0
        self._last = -math.inf  # the newest time held (a Python float: fast path of append)
        self._dropped = 0  # points dropped from the front since the start (absolute indices)
        self._epoch = 0  # bumps when points already held move (an out-of-order insert)
        self._lock = threading.Lock()
        self.version = 0  # bumps on every change
        self.error = ""  # the last reason a value could not be read (shown by the plot)

    # -- the writer ------------------------------------------------------------------------
    def append(self, t: float, y: float) -> None:
        """One point; a non-finite time or value is dropped."""
        t, y = float(t), float(y)
        if not (math.isfinite(t) and math.isfinite(y)):
            return
        with self._lock:
            self._make_room(1)
            n = self._n
            if t >= self._last:
                self._t[n] = t
                self._y[n] = y
                self._last = t
            else:  # late: insert it in order, shifting the (few) newer points right
                i = int(self._np.searchsorted(self._t[:n], t, side="right"))
                self._t[i + 1 : n + 1] = self._t[i:n]
                self._y[i + 1 : n + 1] = self._y[i:n]
                self._t[i] = t
                self._y[i] = y
                self._epoch += 1
            self._n = n + 1
            self.version += 1

    def extend(self, ts: np.ndarray, ys: np.ndarray) -> None:
        """Many points at once (any order; non-finite ones are dropped)."""
        np = self._np
        ts = np.asarray(ts, dtype=float).ravel()
        ys = np.asarray(ys, dtype=float).ravel()
        if len(ts) != len(ys):
            raise ValueError(f"{len(ts)} times but {len(ys)} values")
        finite = np.isfinite(ts) & np.isfinite(ys)
        if not finite.all():
            ts, ys = ts[finite], ys[finite]
        if len(ts) > 1 and (ts[1:] < ts[:-1]).any():
            order = np.argsort(ts, kind="stable")
            ts, ys = ts[order], ys[order]
        if len(ts) > self.capacity:
            ts, ys = ts[-self.capacity :], ys[-self.capacity :]
        k = len(ts)
        if not k:
            return
        with self._lock:
            self._make_room(k)
            n = self._n
            i = n if ts[0] >= self._last else int(
                np.searchsorted(self._t[:n], ts[0], side="right"))
            if i == n:
                self._t[n : n + k] = ts
                self._y[n : n + k] = ys
            else:  # merge the new points with the held ones newer than the first of them
                t = np.concatenate([self._t[i:n], ts])
                y = np.concatenate([self._y[i:n], ys])
                order = np.argsort(t, kind="stable")
                self._t[i : n + k] = t[order]
                self._y[i : n + k] = y[order]
                self._epoch += 1
            self._n = n + k
            self._last = float(self._t[self._n - 1])
            self.version += 1

    def _make_room(self, k: int) -> None:
        """Room for k more points (k <= capacity): grow, or drop the oldest at capacity."""
        n = self._n
        if n + k <= len(self._t):
            return
        if n + k > self.capacity:
            keep = max(0, min(n, self.capacity // 2, self.capacity - k))
            self._t[:keep] = self._t[n - keep : n]
            self._y[:keep] = self._y[n - keep : n]
            self._dropped += n - keep
            self._n = n = keep
            if not keep:
                self._last = -math.inf
        if n + k > len(self._t):
            size = min(self.capacity, max(2 * len(self._t), n + k))
            self._t = self._np.resize(self._t, size)
            self._y = self._np.resize(self._y, size)

    # -- readers ---------------------------------------------------------------------------
    def window(self, low: float, high: float) -> tuple[np.ndarray, np.ndarray, Cursor]:
        """Copies of the points with ``low <= t <= high`` plus one neighbour on each side
        (so a line reaches the window's edges), and a cursor for ``since``."""
        np = self._np
        with self._lock:
            n = self._n
            t = self._t[:n]
            first = max(0, int(np.searchsorted(t, low, side="left")) - 1)
            last = min(n, int(np.searchsorted(t, high, side="right")) + 1)
            first = min(first, last)
            return (t[first:last].copy(), self._y[first:last].copy(),
                    (self._epoch, self._dropped + n))

    def since(self, cursor: Cursor, high: float = math.inf
              ) -> tuple[np.ndarray, np.ndarray, Cursor] | None:
        """Copies of the points appended after ``cursor`` (up to ``high`` plus one neighbour
        past it, unless the reader has one past ``high`` already), and the next cursor; or
        ``None`` when points the reader holds moved: then it reads its window again."""
        np = self._np
        epoch, end = cursor
        with self._lock:
            n = self._n
            start = end - self._dropped
            if epoch != self._epoch or start < 0 or start > n:
                return None
            if start > 0 and self._t[start - 1] > high:  # it has its neighbour past high
                last = start
            else:
                last = min(n, int(np.searchsorted(self._t[start:n], high, side="right"))
                           + start + 1)
            return (self._t[start:last].copy(), self._y[start:last].copy(),
                    (self._epoch, self._dropped + n))

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Copies of the whole history (tools and tests; a plot reads ``window``/``since``)."""
        with self._lock:
            return self._t[: self._n].copy(), self._y[: self._n].copy()

    def __len__(self) -> int:
        return self._n
