"""The start-up layout's slow panels, built once the window shows the robot.

A 3D view or a plot costs about a second at start-up here (vispy's and pyqtgraph's imports,
the GL context), while the robot's vitals are ready in a fraction of that. So when the
window opens its first layout, each dock of a panel class that ``loads_slowly`` holds a
"Loading…" note in its place and size, and the panels are built once panels on screen show
live data (or after ``WAIT_S``, with no robot to show), one per event-loop turn so the
window keeps its frame tick between them. A layout opened later builds every panel at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QLabel, QWidget

from app.layouts import DockRecord

WAIT_S = 1.0  # the longest the slow panels wait for the first live data
POLL_MS = 20


def loading_note(title: str) -> QWidget:
    note = QLabel(f"Loading {title}…")
    note.setAlignment(Qt.AlignmentFlag.AlignCenter)
    note.setObjectName("loading-note")
    return note


class SlowPanels(QObject):
    """``ready()`` says whether the window shows live data; ``build(record)`` builds the
    panel of a held dock."""

    def __init__(self, parent: QObject, ready: Callable[[], bool],
                 build: Callable[[DockRecord], None]) -> None:
        super().__init__(parent)
        self._ready = ready
        self._build = build
        self.held: dict[str, DockRecord] = {}  # by dock object name, in layout order
        self._since = 0.0
        self._poll = QTimer(self, interval=POLL_MS)
        self._poll.timeout.connect(self._check)

    def hold(self, record: DockRecord) -> None:
        self.held[record.object_name] = record

    def start(self) -> None:
        if self.held:
            self._since = time.monotonic()
            self._poll.start()

    def forget(self, object_name: str) -> None:
        self.held.pop(object_name, None)

    def _check(self) -> None:
        if self._ready() or time.monotonic() - self._since >= WAIT_S:
            self._poll.stop()
            self._build_one_per_turn()

    def _build_one_per_turn(self) -> None:
        if self.held:
            self._build_next()
            QTimer.singleShot(0, self, self._build_one_per_turn)

    def _build_next(self) -> None:
        name = next(iter(self.held))
        self._build(self.held.pop(name))
