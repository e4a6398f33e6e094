"""Takes the health screenshot: status tiles, battery, faults, capabilities and mission of
the embedded simulated rover, under Xvfb.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot_health.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import Qt, QTimer

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "docs" / "health.png"
SETTLE_MS = 14000  # robots announce, the battery history grows, a fault or two is raised


def main() -> int:
    os.environ.setdefault("FIELDSTATION_CONFIG_DIR", tempfile.mkdtemp(prefix="fs-shot-"))
    from app.qt.application import create_application
    from app.qt.main_window import MainWindow
    from app.qt.start import config_dir, panel_registry
    from app.station.connection import ConnectionChoice

    app = create_application()
    window = MainWindow(panel_registry(), ConnectionChoice(simulation=True), config_dir())
    window.close_all_panels()
    window.open_panel("status", area="top")
    window.open_panel("battery", area="left")
    window.open_panel("mission", area="left")
    faults = window.open_panel("faults", area="right")
    window.open_panel("capabilities", area="right")
    window.resize(1600, 960)
    window.show()
    docks = window._docks
    window.resizeDocks([docks["status#1"]], [230], Qt.Orientation.Vertical)
    window.resizeDocks([docks["battery#1"], docks["faults#1"]], [620, 980],
                       Qt.Orientation.Horizontal)
    window.resizeDocks([docks["faults#1"], docks["capabilities#1"]], [260, 470],
                       Qt.Orientation.Vertical)

    def choose_rover() -> None:
        if any(r.robot_id == "rover-1" for r in window.station.robots()):
            window.set_active_robot("rover-1")
        else:
            QTimer.singleShot(500, choose_rover)

    def shoot() -> None:
        OUTPUT.parent.mkdir(exist_ok=True)
        window.grab().save(str(OUTPUT))
        print(f"saved {OUTPUT}; alerts: {window.alerts()}; faults: {faults.summary.text()}")
        window.close()

    QTimer.singleShot(1000, choose_rover)
    QTimer.singleShot(SETTLE_MS, shoot)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
