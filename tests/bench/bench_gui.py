"""GUI responsiveness: the worst event-loop stalls of a 1 ms timer while the full simulated
fleet streams into five open panels, against the same window with nothing streaming; then
the "Teleop station" layout on a 1600×960 window with the rover active: its camera large
(JPEG, overlays, projected boxes) beside the 3D view following it (a 200k-point cloud,
boxes, scene), with the frames each key's lane dropped and what the 3D view drew; then the
same with a second camera panel (the humanoid's H.264 stream).

Run under a display (Xvfb in CI). Target: p99 stall under one 60 Hz frame (16.7 ms).
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QElapsedTimer, QEventLoop, Qt, QTimer

from app.qt.application import create_application
from app.qt.main_window import MainWindow
from app.qt.start import panel_registry
from app.station.connection import ConnectionChoice
from tests.bench.common import (
    MISSED,
    fmt_seconds,
    iterations,
    percentile,
    report,
    short_mode,
)
from tests.conftest import free_port
from widgets.gl_readback import ReadbackCanvasBackend

FRAME_60HZ_S = 1 / 60
SECOND_CAMERA = [("camera", {"camera": "fleet/humanoid-1/vision"})]
PANELS = [
    ("robots", {}),
    ("topics", {}),
    ("inspector", {"key": "fleet/rover-1/uplink/motion"}),
    ("plot", {"series": [{"key": "fleet/rover-1/uplink/motion", "path": "motion.pose.latDeg"},
                         {"key": "fleet/rover-1/uplink/battery",
                          "path": "battery.percentage"}], "window_s": 60, "paused": False}),
    ("plot", {"series": [{"key": "fleet/humanoid-1/exteroception", "path": "gps.latitude"}],
              "window_s": 60, "paused": False}),
]


def wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def stalls(duration_s: float) -> list[float]:
    """Lateness of each 1 ms timer tick beyond its period, for duration_s."""
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(1)
    clock = QElapsedTimer()
    gaps: list[float] = []
    last = [0]

    def tick() -> None:
        now = clock.nsecsElapsed()
        gaps.append(max(0.0, (now - last[0]) / 1e9 - 0.001))
        last[0] = now

    timer.timeout.connect(tick)
    clock.start()
    timer.start()
    wait(int(duration_s * 1000))
    timer.stop()
    return gaps[1:]


def measure(choice: ConnectionChoice, settle_s: float, duration_s: float) -> list[float]:
    """Stalls with the five PANELS open."""
    window = MainWindow(panel_registry(), choice, tempfile_dir())
    try:
        for panel_id, state in PANELS:
            window.open_panel(panel_id, state)
        window.resize(1400, 900)
        window.show()
        wait(int(settle_s * 1000))
        return stalls(duration_s)
    finally:
        window.close()
        window.connection.close()


@dataclass
class LayoutRun:
    gaps: list[float]  # the probe timer's lateness, tick by tick
    dropped: dict[str, int]  # frames each key's lane dropped (newest won)
    frames_3d: int  # frames the 3D view drew
    render_3d: list[float]  # their seconds on its render thread


def measure_layout(layout: str, extra: list[tuple[str, dict]], settle_s: float,
                   duration_s: float) -> LayoutRun:
    """Stalls with a shipped layout on the embedded fleet, the rover active."""
    window = MainWindow(panel_registry(), ConnectionChoice(simulation=True), tempfile_dir())
    try:
        window.load_named_layout(layout)
        for panel_id, state in extra:
            window.open_panel(panel_id, state)
        window.resize(1600, 960)
        window.show()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not any(
                r.robot_id == "rover-1" for r in window.station.robots()):
            wait(100)
        window.set_active_robot("rover-1")
        wait(int(settle_s * 1000))
        canvas = window.findChild(ReadbackCanvasBackend)
        before = {k: s.dropped for k, s in window.station.feeds.lane_stats().items()}
        frames = canvas.frames_drawn
        gaps = stalls(duration_s)
        dropped = {key: stats.dropped - before.get(key, 0)
                   for key, stats in window.station.feeds.lane_stats().items()}
        count = canvas.frames_drawn - frames
        return LayoutRun(gaps, dropped, count, list(canvas.render_seconds)[-count:] if count
                         else [])
    finally:
        window.close()
        window.connection.close()


def stall_line(what: str, busy: list[float], started: float) -> str:
    p99 = percentile(busy, 99)
    line = (f"GUI stall p99 {what}: {fmt_seconds(p99)} "
            f"[target < one 60 Hz frame ({fmt_seconds(FRAME_60HZ_S)}): "
            f"{'met' if p99 < FRAME_60HZ_S else 'MISSED'}]  "
            f"({len(busy)} ticks over {time.monotonic() - started:.0f} s)")
    print(line, flush=True)
    if p99 >= FRAME_60HZ_S:
        MISSED.append(line)
    return line


def tempfile_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="fs-bench-"))


def run() -> list[str]:
    os.environ.setdefault("FIELDSTATION_CONFIG_DIR", str(tempfile_dir()))
    create_application()
    duration = iterations(20, 2)
    idle = measure(ConnectionChoice(simulation=False,
                                    endpoints=[f"tcp/127.0.0.1:{free_port()}"]), 1.0, duration)
    started = time.monotonic()
    busy = measure(ConnectionChoice(simulation=True), iterations(8, 2), duration)
    lines = []
    for q, name in ((99, "p99"), (100, "max")):
        lines.append(report(f"GUI stall {name} (full fleet, 5 panels / idle)",
                            percentile(busy, q), percentile(idle, q)))
    lines.append(stall_line("with the fleet streaming", busy, started))
    layouts: list[tuple[str, list[tuple[str, dict[str, str]]]]] = [
        ("the Teleop station layout", [])]
    if not short_mode():  # short: CI's time
        layouts.append(("the Teleop station layout and a second camera", SECOND_CAMERA))
    for name, extra in layouts:
        started = time.monotonic()
        measured = measure_layout("Teleop station", extra, iterations(8, 2), duration)
        lines.append(stall_line(f"with the fleet streaming into {name}", measured.gaps, started))
        shown = ", ".join(f"{k.removeprefix('fleet/')} {n / max(duration, 1):.1f}/s"
                          for k, n in sorted(measured.dropped.items()) if n)
        print(f"  dropped frames per key (newest won): {shown or 'none'}", flush=True)
        rate = measured.frames_3d / max(duration, 1)
        each = fmt_seconds(percentile(measured.render_3d, 50))
        print(f"  3D view: {rate:.1f} frames/s drawn on its render thread, {each} each (median)",
              flush=True)
    return lines


if __name__ == "__main__":
    run()
