"""Plot panel cost per tick: 20 series of 10k points all updating, GUI-thread time for the
panel's update plus a synchronous repaint, against bare pyqtgraph ``setData`` of the same
arrays plus the same repaint, same run. Target: at most 1.3x."""

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

SERIES = 20
POINTS = 10_000
TARGET = 1.3


class _Host:
    station = None

    def open_panel(self, *args: object, **kwargs: object) -> None: ...

    def set_active_robot(self, robot_id: str | None) -> None: ...

    def show_message(self, text: str) -> None: ...


def _buffers(now: float) -> dict[Series, SeriesBuffer]:
    rng = np.random.default_rng(1)
    buffers = {}
    for i in range(SERIES):
        buffer = SeriesBuffer()
        for t, y in zip(np.linspace(now - 50, now, POINTS), rng.normal(i, 1, POINTS),
                        strict=True):
            buffer.append(float(t), float(y))
        buffers[Series(f"fleet/bench/topic{i}", "value")] = buffer
    return buffers


def _advance(buffers: dict[Series, SeriesBuffer], now: float) -> None:
    for buffer in buffers.values():
        buffer.append(now, float(np.sin(now)))


def run() -> list[str]:
    app = create_application()
    now = time.time()
    buffers = _buffers(now)
    panel = PlotPanel(_Host())  # type: ignore[arg-type]
    panel.restore_state({"series": [{"key": s.key, "path": s.path} for s in buffers],
                         "window_s": 60, "paused": False})
    panel.resize(1000, 600)
    panel.show()
    bare = pg.PlotWidget()
    items = [bare.plot() for _ in buffers]
    bare.resize(1000, 600)
    bare.show()
    app.processEvents()
    status = StationStatus()
    ticks = iterations(60, 5)
    ours: list[float] = []
    baseline: list[float] = []
    for _ in range(ticks):
        now += 1 / 30
        _advance(buffers, now)
        batch = FrameBatch(time.monotonic(), status, series=dict(buffers))
        start = time.perf_counter()
        panel.on_frame(batch)
        panel.view.plot.viewport().repaint()
        ours.append(time.perf_counter() - start)

        arrays = [b.arrays() for b in buffers.values()]
        start = time.perf_counter()
        for item, (t, y) in zip(items, arrays, strict=True):
            item.setData(t, y)
        bare.viewport().repaint()
        baseline.append(time.perf_counter() - start)
        app.processEvents()
    panel.close()
    bare.close()
    QApplication.processEvents()
    return [report(f"plot tick, {SERIES} series x {POINTS // 1000}k points "
                   "(plot panel / bare pyqtgraph setData)", median(ours), median(baseline),
                   TARGET)]


if __name__ == "__main__":
    run()
