"""The start-up baseline: a bare PySide6 window of the station's size that prints
``first-paint <unix time>`` after its first paint and quits (like the app with
``FIELDSTATION_EXIT_AFTER_FIRST_PAINT=1``). Runs as a script, or from the bundle with
``FIELDSTATION_BARE_WINDOW=1 dist/fieldstation/fieldstation``; only PySide6 is imported.
"""

from __future__ import annotations

import sys
import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QWidget


class _FirstPaint(QObject):
    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self._window.removeEventFilter(self)
            QTimer.singleShot(0, self._report)  # once the frame is drawn and flushed
        return False

    def _report(self) -> None:
        print(f"first-paint {time.time():.6f}", flush=True)
        self._window.close()


def main() -> int:
    app = QApplication(sys.argv[:1])
    window = QWidget()
    window.setWindowTitle("bare PySide6 window")
    window.resize(1400, 860)
    _FirstPaint(window)
    window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
