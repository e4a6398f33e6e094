"""Takes the command-authority screenshot: two stations side by side on one simulated
fleet (``fieldstation sim``, its own process), Ana's in control of rover-1 and Bo's
watching it (its safety bar and robots panel say who holds it), under Xvfb.

    xvfb-run -a -s "-screen 0 3300x1000x24" .venv/bin/python scripts/screenshot_two_stations.py \
        [OUTPUT.png]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from PySide6.QtCore import QTimer

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "docs" / "two_stations.png"
SETTLE_MS = 12000
ROBOT = "rover-1"


def main() -> int:
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT
    from app.station.connection import free_loopback_endpoint

    endpoint = free_loopback_endpoint()
    sim = subprocess.Popen([sys.executable, "-m", "app.cli", "sim", "--listen", endpoint],
                           cwd=REPO)
    try:
        return _shoot(endpoint, output)
    finally:
        sim.terminate()
        sim.wait(20)


def _shoot(endpoint: str, output: Path) -> int:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QPainter, QPixmap

    from app.qt.application import create_application
    from app.qt.main_window import MainWindow
    from app.qt.start import panel_registry
    from app.station.connection import ConnectionChoice
    from app.station.identity import StationIdentity, save_identity

    app = create_application()
    windows = []
    for name in ("Ana", "Bo"):
        folder = Path(tempfile.mkdtemp(prefix=f"fs-{name}-"))
        save_identity(folder, StationIdentity.new(name))
        window = MainWindow(panel_registry(), ConnectionChoice(
            simulation=False, mode="client", endpoints=[endpoint]), folder)
        window.close_all_panels()
        window.open_panel("robots", area="left")
        window.open_panel("fleet_map", area="right")
        window.resize(1580, 760)
        window.show()
        # the robots panel wide enough for its Control column, the map beside it
        window.resizeDocks([window._docks["robots#1"], window._docks["fleet_map#1"]],
                           [1100, 480], Qt.Orientation.Horizontal)
        windows.append(window)
    ana, bo = windows

    def take() -> None:
        for window in windows:
            window.set_active_robot(ROBOT)
        threading.Thread(target=ana.station.authority.take, args=(ROBOT,),
                         daemon=True).start()

    def shoot() -> None:
        app.processEvents()
        shots = [w.grab() for w in windows]
        canvas = QPixmap(sum(s.width() for s in shots) + 16, max(s.height() for s in shots))
        canvas.fill()
        painter = QPainter(canvas)
        painter.drawPixmap(0, 0, shots[0])
        painter.drawPixmap(shots[0].width() + 16, 0, shots[1])
        painter.end()
        output.parent.mkdir(exist_ok=True)
        canvas.save(str(output))
        print(f"saved {output}: Ana's bar '{ana.control_bar.label.full_text()}', Bo's bar "
              f"'{bo.control_bar.label.full_text()}'")
        for window in windows:
            window.close()

    QTimer.singleShot(5000, take)
    QTimer.singleShot(SETTLE_MS, shoot)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
