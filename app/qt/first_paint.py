"""Doing things once the window is on screen: building the panels right after the first
paint (so the window appears at once), and the start-up benchmark probe: with
``FIELDSTATION_EXIT_AFTER_FIRST_PAINT=1`` the GUI prints ``first-paint <unix time>`` once its
window has painted for the first time, then closes; with ``=live`` it goes on until panels
on screen have been handed robot data and painted it, prints ``live-data <unix time>``, and
``all-panels <unix time>`` once the panels built after that are in, then closes
(tests/bench/bench_startup.py)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

ENV = "FIELDSTATION_EXIT_AFTER_FIRST_PAINT"


def requested() -> bool:
    return os.environ.get(ENV, "") not in ("", "0")


class _AfterFirstPaint(QObject):
    def __init__(self, window: QWidget, callback: Callable[[], object]) -> None:
        super().__init__(window)
        self._window = window
        self._callback = callback
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self._window.removeEventFilter(self)
            # The paint event is delivered before the frame is drawn and flushed: act on
            # the next turn of the event loop, once it is on screen.
            QTimer.singleShot(0, self._callback)
        return False


def after_first_paint(window: QWidget, callback: Callable[[], object]) -> None:
    _AfterFirstPaint(window, callback)


def report_and_close(window: QWidget) -> None:
    """The benchmark probe: print the first-paint time (and the live-data time) and close."""
    def report() -> None:
        print(f"first-paint {time.time():.6f}", flush=True)
        if os.environ.get(ENV) == "live":
            _report_live_data(window)
        else:
            window.close()

    after_first_paint(window, report)


def _report_live_data(window: QWidget) -> None:
    """Prints ``live-data <unix time>``, then ``all-panels <unix time>`` once the panels
    built after it (app.qt.slow_panels) are in, then closes."""
    poll = QTimer(window)
    seen: list[str] = []

    def say(what: str) -> None:
        print(f"{what} {time.time():.6f}", flush=True)

    def check() -> None:
        if not seen:
            if getattr(window, "live_data_at", None) is not None:
                seen.append("live-data")
                # The tick that handed the data over is followed by its repaint: say it after.
                QTimer.singleShot(0, lambda: say("live-data"))
        elif not getattr(getattr(window, "slow_panels", None), "held", None):
            poll.stop()
            QTimer.singleShot(0, say_all_and_close)

    def say_all_and_close() -> None:
        say("all-panels")
        window.close()

    poll.timeout.connect(check)
    poll.start(5)
