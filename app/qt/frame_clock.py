"""The one GUI-thread tick that hands each visible panel its batch."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer

DEFAULT_HZ = 30.0


class FrameClock(QObject):
    def __init__(self, tick: Callable[[], None], hz: float = DEFAULT_HZ,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tick = tick
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(round(1000 / hz))
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    @property
    def running(self) -> bool:
        return self._timer.isActive()
