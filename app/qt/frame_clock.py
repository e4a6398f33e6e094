"""The one GUI-thread tick that hands each visible panel its batch.

It ticks at a steady rate, and early when a worker says something that must be shown at
once is ready (a camera frame): ``wake()`` may be called from any thread; the early tick
comes at most ``max_hz`` times a second, so a busy camera cannot flood the GUI thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer, Signal

DEFAULT_HZ = 30.0
MAX_HZ = 60.0


class FrameClock(QObject):
    _woken = Signal()

    def __init__(self, tick: Callable[[], None], hz: float = DEFAULT_HZ,
                 parent: QObject | None = None, max_hz: float = MAX_HZ) -> None:
        super().__init__(parent)
        self._tick = tick
        self._min_gap_s = 1 / max_hz
        self._last = -1.0
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(round(1000 / hz))
        self._timer.timeout.connect(self._run)
        self._early = QTimer(self)
        self._early.setSingleShot(True)
        self._early.setTimerType(Qt.TimerType.PreciseTimer)
        self._early.timeout.connect(self._run)
        self._woken.connect(self._on_wake, Qt.ConnectionType.QueuedConnection)

    def start(self) -> None:
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
        if not self.running or self._early.isActive():
            return
        wait_s = self._last + self._min_gap_s - time.monotonic()
        if wait_s <= 0:
            self._run()
        else:
            self._early.start(max(1, round(wait_s * 1000)))

    def _run(self) -> None:
        self._last = time.monotonic()
        self._early.stop()
        if self._timer.isActive():
            self._timer.start()  # the steady ticks follow on from this one
        self._tick()
