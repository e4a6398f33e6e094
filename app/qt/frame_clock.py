"""The one GUI-thread tick that hands each visible panel its batch.

It ticks at a steady rate, and early when a worker says something that must be shown at
once is ready (a camera frame): ``wake()`` may be called from any thread; the early tick
comes at most ``max_hz`` times a second, so a busy camera cannot flood the GUI thread, and
not at all while the steady ticks themselves come late: then the GUI thread is already
behind (a software-rendered 3D view composing the window), and every extra tick would only
add to what it cannot keep up with.

After an early tick the next steady one is two periods away, not one: a 30 fps camera's
frames came just after the steady tick that followed the last one (33.3 ms apart against
33 ms), inside the minimum gap, and a third of them waited 16 ms more for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer, Signal

DEFAULT_HZ = 30.0
MAX_HZ = 60.0
BEHIND_S = 1.0  # a steady tick a whole period late (a frame missed): no early ticks...
BEHIND_HOLD_S = 1.0  # ...for this long after it
STEADY_AFTER_EARLY = 2.0  # periods from an early tick to the next steady one


class FrameClock(QObject):
    _woken = Signal()

    def __init__(self, tick: Callable[[], None], hz: float = DEFAULT_HZ,
                 parent: QObject | None = None, max_hz: float = MAX_HZ) -> None:
        super().__init__(parent)
        self._tick = tick
        self._min_gap_s = 1 / max_hz
        self._period_s = 1 / hz
        self._last = -1.0
        self._due = -1.0  # when the next steady tick should come
        self._behind_until = -1.0
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(round(1000 / hz))
        self._timer.timeout.connect(self._steady)
        self._early = QTimer(self)
        self._early.setSingleShot(True)
        self._early.setTimerType(Qt.TimerType.PreciseTimer)
        self._early.timeout.connect(self._run_early)
        self._woken.connect(self._on_wake, Qt.ConnectionType.QueuedConnection)

    def start(self) -> None:
        self._due = -1.0  # a pause is not lateness
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        self._early.stop()

    @property
    def running(self) -> bool:
        return self._timer.isActive()

    def wake(self) -> None:
        """Asks for a tick as soon as allowed; safe from any thread."""
        self._woken.emit()

    def _on_wake(self) -> None:
        if not self.running or self._early.isActive() or self.behind():
            return
        wait_s = self._last + self._min_gap_s - time.monotonic()
        if wait_s <= 0:
            self._run_early()
        else:
            self._early.start(max(1, round(wait_s * 1000)))

    def behind(self) -> bool:
        """Whether the steady ticks came late lately (early ticks are then refused)."""
        return time.monotonic() < self._behind_until

    def _steady(self) -> None:
        now = time.monotonic()
        if self._due > 0 and now - self._due > BEHIND_S * self._period_s:
            self._behind_until = now + BEHIND_HOLD_S
        self._run(self._period_s)

    def _run_early(self) -> None:
        self._run(self._period_s * STEADY_AFTER_EARLY)

    def _run(self, next_steady_s: float) -> None:
        self._last = time.monotonic()
        self._due = self._last + next_steady_s
        self._early.stop()
        if self._timer.isActive():  # the steady ticks follow on from this one
            self._timer.start(max(1, round((self._due - self._last) * 1000)))
        self._tick()
