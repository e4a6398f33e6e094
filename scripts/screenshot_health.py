"""Takes the health screenshot: status tiles, battery, faults, capabilities and mission of
the embedded simulated rover, under Xvfb.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot_health.py
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from screenshot import take  # this folder's: the window on the embedded fleet, saved

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "docs" / "health.png"
SETTLE_MS = 14000  # robots announce, the battery history grows, a fault or two is raised


def main() -> int:
    def arrange(window: Any) -> None:
        window.close_all_panels()
        window.open_panel("status", area="top")
        window.open_panel("battery", area="left")
        window.open_panel("mission", area="left")
        window.open_panel("faults", area="right")
        window.open_panel("capabilities", area="right")
        window.resize(1600, 960)
        window.show()
        docks = window._docks
        window.resizeDocks([docks["status#1"]], [230], Qt.Orientation.Vertical)
        window.resizeDocks([docks["battery#1"], docks["faults#1"]], [620, 980],
                           Qt.Orientation.Horizontal)
        window.resizeDocks([docks["faults#1"], docks["capabilities#1"]], [260, 470],
                           Qt.Orientation.Vertical)

    def report(window: Any) -> str:
        faults = window.panels()["faults#1"]
        return f"; alerts: {window.alerts()}; faults: {faults.summary.text()}"

    return take(arrange, OUTPUT, SETTLE_MS, report)


if __name__ == "__main__":
    sys.exit(main())
