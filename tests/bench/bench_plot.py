"""Plot panel cost per tick (GUI-thread time for the panel's ``on_frame`` plus a synchronous
repaint), with data flowing: every tick appends a few new points to each of 20 series, as
20 live topics at ~30-100 Hz would. Two figures, measured in one run, interleaved:

- 20 series x 10k points (50 s at 200 Hz, all in the 60 s window) against bare pyqtgraph
  ``setData`` of the same arrays plus the same repaint. Target: at most 1.3x.
- 20 series x 1M points of history against the same panel code with 20 x 10k, both at
  50 Hz with the same newest 10k points (200 s: all the view and its margins hold), so
  only the history's length differs (5.5 hours against 3 minutes; 999k points, just
  under the buffer's capacity, so no drop of the oldest half lands in the run).
  Target: at most 1.5x.
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QApplication

from app.qt.application import create_application
from app.station.frame import FrameBatch
from app.station.interests import Series
from app.station.robots import StationStatus
from app.station.series import SeriesBuffer
from panels.plot import PlotPanel
from tests.bench.common import iterations, median, report
from tests.panels.health import LiveStation

SERIES = 20
POINTS = 10_000
LONG_POINTS = 999_000  # "1M": just under SeriesBuffer's capacity
RATE_HZ = 200.0  # of the first figure's history: 50 s, all in view
LONG_RATE_HZ = 50.0  # of the second's: 10k points cover the view and its margins
NEW_PER_TICK = 3  # ~100 Hz topics at a 30 Hz frame clock
TARGET = 1.3
LONG_TARGET = 1.5


class _Host:
    station = LiveStation()

    def open_panel(self, *args: object, **kwargs: object) -> None: ...

    def set_active_robot(self, robot_id: str | None) -> None: ...

    def show_message(self, text: str) -> None: ...


def _buffers(now: float, points: int, rate_hz: float) -> dict[Series, SeriesBuffer]:
    """Series whose last POINTS points are the same whatever ``points`` is."""
    buffers = {}
    for i in range(SERIES):
        rng = np.random.default_rng(i)
        t = now - np.arange(points)[::-1] / rate_hz
        y = np.empty(points)
        y[-POINTS:] = rng.normal(i, 1, POINTS)
        y[:-POINTS] = rng.normal(i, 1, points - POINTS)
        buffer = SeriesBuffer()
        buffer.extend(t, y)
        buffers[Series(f"fleet/bench/topic{i}", "value")] = buffer
    return buffers


def _panel(buffers: dict[Series, SeriesBuffer]) -> PlotPanel:
    panel = PlotPanel(_Host())  # type: ignore[arg-type]
    panel.restore_state({"series": [{"key": s.key, "path": s.path} for s in buffers],
                         "window_s": 60, "paused": False})
    panel.resize(1000, 600)
    panel.show()
    return panel


def _tick(panel: PlotPanel, buffers: dict[Series, SeriesBuffer], status: StationStatus
          ) -> float:
    batch = FrameBatch(time.monotonic(), status, series=dict(buffers))
    start = time.perf_counter()
    panel.on_frame(batch)
    panel.view.plot.viewport().repaint()
    return time.perf_counter() - start


def run() -> list[str]:
    app = create_application()
    now = time.time()
    short = _buffers(now, POINTS, RATE_HZ)
    slow = _buffers(now, POINTS, LONG_RATE_HZ)
    long = _buffers(now, LONG_POINTS, LONG_RATE_HZ)
    panel = _panel(short)
    slow_panel = _panel(slow)
    long_panel = _panel(long)
    bare = pg.PlotWidget()
    items = [bare.plot() for _ in short]
    bare.resize(1000, 600)
    bare.show()
    app.processEvents()
    status = StationStatus()
    pairs = ((panel, short), (slow_panel, slow), (long_panel, long))
    for _ in range(3):  # first reads of the windows, layouts settle
        for each, buffers in pairs:
            _tick(each, buffers, status)
        app.processEvents()
    ticks = iterations(90, 8)
    times: list[list[float]] = [[], [], []]
    baseline: list[float] = []
    last = now
    rng = np.random.default_rng(99)
    for tick in range(ticks):
        # a few new points per series, the same in every set, up to the wall clock
        newest = max(time.time(), last + 1e-3)
        new_t = np.linspace(last, newest, NEW_PER_TICK + 1)[1:]
        last = newest
        new_y = [i + np.sin(new_t) + rng.normal(0, 0.1, NEW_PER_TICK) for i in range(SERIES)]
        for _, buffers in pairs:
            for buffer, y in zip(buffers.values(), new_y, strict=True):
                buffer.extend(new_t, y)
        for k in np.roll(np.arange(3), tick):  # each panel goes first in turn
            times[k].append(_tick(*pairs[k], status))

        arrays = [b.arrays() for b in short.values()]
        start = time.perf_counter()
        for item, (t, y) in zip(items, arrays, strict=True):
            item.setData(t, y)
        bare.viewport().repaint()
        baseline.append(time.perf_counter() - start)
        app.processEvents()
    for each, _ in pairs:
        each.close()
    bare.close()
    QApplication.processEvents()
    return [
        report(f"plot tick, {SERIES} series x {POINTS // 1000}k points "
               "(plot panel / bare pyqtgraph setData)", median(times[0]), median(baseline),
               TARGET),
        report(f"plot tick, {SERIES} series x 1M points of history vs {SERIES} x "
               f"{POINTS // 1000}k (plot panel, {NEW_PER_TICK} new points per series "
               "per tick)", median(times[2]), median(times[1]), LONG_TARGET),
    ]


if __name__ == "__main__":
    run()
