"""Memory probe for soak runs: with ``FIELDSTATION_TRACEMALLOC=FILE`` the GUI traces Python
allocations and appends to FILE, every ``FIELDSTATION_TRACEMALLOC_S`` seconds (default 60),
the Python heap size, the process RSS and the allocation sites that grew most since the
first snapshot (taken once the window has settled); ``FIELDSTATION_TRACEMALLOC_FRAMES``
(default 1) frames of each site. Costs nothing when unset; when set, every allocation is
traced, so the window runs several times slower (a diagnostic, not a mode to measure
speed or RSS in: compare the sites' growth, not the figures)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from PySide6.QtCore import QObject, QTimer

ENV = "FIELDSTATION_TRACEMALLOC"
PERIOD_ENV = "FIELDSTATION_TRACEMALLOC_S"
FRAMES_ENV = "FIELDSTATION_TRACEMALLOC_FRAMES"
TOP = 25


def requested() -> bool:
    return bool(os.environ.get(ENV))


def rss_kib(pid: int | str = "self") -> int | None:
    """VmRSS of a process in KiB (None when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


class _Probe(QObject):
    def __init__(self, parent: QObject, path: Path, period_s: float, frames: int) -> None:
        import tracemalloc

        super().__init__(parent)
        self._tracemalloc = tracemalloc
        self._path = path
        self._started = time.monotonic()
        self._base: tracemalloc.Snapshot | None = None
        self._group = "traceback" if frames > 1 else "lineno"
        tracemalloc.start(frames)
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._dump)
        self._timer.start(round(period_s * 1000))

    def _dump(self) -> None:
        tm = self._tracemalloc
        snapshot = tm.take_snapshot().filter_traces(
            (tm.Filter(False, tm.__file__), tm.Filter(False, "<frozen importlib._bootstrap>")))
        traced, peak = tm.get_traced_memory()
        lines = [f"--- t={time.monotonic() - self._started:.0f} s  rss={rss_kib() or 0} KiB  "
                 f"python heap traced={traced >> 10} KiB (peak {peak >> 10} KiB)"]
        if self._base is None:
            self._base = snapshot
            lines.append("(baseline snapshot)")
        else:
            for stat in snapshot.compare_to(self._base, self._group)[:TOP]:
                if stat.size_diff <= 0:
                    continue
                lines.append(f"{stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks  "
                             f"(now {stat.size / 1024:.1f} KiB)")
                lines.extend(f"      {frame}" for frame in stat.traceback.format()[-8:])
        with self._path.open("a") as out:
            out.write("\n".join(lines) + "\n")


def install(parent: QObject) -> None:
    """Starts the probe when FIELDSTATION_TRACEMALLOC names a file."""
    if not requested():
        return
    period = float(os.environ.get(PERIOD_ENV, "") or 60)
    frames = max(1, int(os.environ.get(FRAMES_ENV, "") or 1))
    _Probe(parent, Path(os.environ[ENV]), period, frames)
