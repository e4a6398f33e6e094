"""Takes the README screenshot: the app on the embedded simulated fleet, under Xvfb.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot.py \
        [LAYOUT [OUTPUT.png]]
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "docs" / "screenshot.png"
SETTLE_MS = 9000  # robots announce, catalogs arrive, plots fill


def take(arrange: Callable[[Any], None], output: Path, settle_ms: int = SETTLE_MS,
         report: Callable[[Any], str] = lambda window: "") -> int:
    """Opens the window on the embedded fleet from a fresh config dir, lets ``arrange`` place
    its panels and saves the window to ``output`` after ``settle_ms``: the robot shown is
    the one the station chose by itself, as on a first start."""
    os.environ.setdefault("FIELDSTATION_CONFIG_DIR", tempfile.mkdtemp(prefix="fs-shot-"))
    from app.qt.application import create_application
    from app.qt.main_window import MainWindow
    from app.qt.start import config_dir, panel_registry
    from app.station.connection import ConnectionChoice

    app = create_application()
    window = MainWindow(panel_registry(), ConnectionChoice(simulation=True), config_dir())
    arrange(window)

    def shoot() -> None:
        output.parent.mkdir(exist_ok=True)
        window.grab().save(str(output))
        print(f"saved {output}{report(window)}")
        window.close()

    QTimer.singleShot(settle_ms, shoot)
    return app.exec()


def main() -> int:
    layout = sys.argv[1] if len(sys.argv) > 1 else "Field laptop"
    output = Path(sys.argv[2]) if len(sys.argv) > 2 else OUTPUT

    def arrange(window: Any) -> None:
        window.load_named_layout(layout)
        window.resize(1600, 960)
        window.show()

    return take(arrange, output)


if __name__ == "__main__":
    sys.exit(main())
