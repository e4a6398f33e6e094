"""What a recording costs as it runs: its write rate, the disk space left where it writes,
and how long that space lasts at that rate."""

from __future__ import annotations

import shutil
import time
from collections import deque
from pathlib import Path

RATE_WINDOW_S = 3.0  # the rate shown is over this much of the latest recording
DISK_PERIOD_S = 1.0  # the free space is asked for at most this often


class RecordingMeter:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._written: deque[tuple[float, int]] = deque()  # (monotonic s, bytes written)
        self._free: int | None = None
        self._free_at = -DISK_PERIOD_S

    def rate_bps(self, bytes_written: int, now: float | None = None) -> float:
        """Bytes per second over the last few seconds, given the bytes written so far."""
        now = time.monotonic() if now is None else now
        self._written.append((now, bytes_written))
        while len(self._written) > 2 and now - self._written[1][0] >= RATE_WINDOW_S:
            self._written.popleft()
        (then, before) = self._written[0]
        return (bytes_written - before) / (now - then) if now > then else 0.0

    def free_bytes(self, now: float | None = None) -> int | None:
        """Free space on the recording's disk (None if it cannot be asked)."""
        now = time.monotonic() if now is None else now
        if now - self._free_at >= DISK_PERIOD_S:
            self._free_at = now
            try:
                self._free = shutil.disk_usage(self.folder).free
            except OSError:
                self._free = None
        return self._free


def time_left(free_bytes: int, rate_bps: float) -> str:
    """How long ``free_bytes`` lasts at ``rate_bps``, rounded as a person would say it."""
    if rate_bps <= 0:
        return ""
    seconds = free_bytes / rate_bps
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 100 * 3600:
        hours, minutes = divmod(round(seconds / 60), 60)
        return f"{hours} h {minutes:02d} min"
    return f"{seconds / 86400:.0f} days"
