"""Takes the fleet map screenshot: a simulated depot (``fieldstation sim --fleet N``, its
own process) seen by the station as a client, one rover e-stopped, under Xvfb.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot_fleet_map.py \
        [N [OUTPUT.png]]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QTimer

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "docs" / "fleet_map.png"
SETTLE_MS = 15000  # robots announce, catalogs arrive, faults cycle
ESTOPPED = "rover-2"



def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    output = Path(sys.argv[2]) if len(sys.argv) > 2 else OUTPUT
    os.environ.setdefault("FIELDSTATION_CONFIG_DIR", tempfile.mkdtemp(prefix="fs-shot-"))
    from app.station.connection import free_loopback_endpoint

    endpoint = free_loopback_endpoint()
    sim = subprocess.Popen([sys.executable, "-m", "app.cli", "sim", "--fleet", str(count),
                            "--heavy", "0", "--listen", endpoint], cwd=REPO)
    try:
        return _shoot(endpoint, output)
    finally:
        sim.terminate()
        sim.wait(20)


def _shoot(endpoint: str, output: Path) -> int:
    from app.bus.keys import command_key
    from app.bus.publisher import Publisher, Traffic
    from app.codec.registry import registry
    from app.qt.application import create_application
    from app.qt.main_window import MainWindow
    from app.qt.start import config_dir, panel_registry
    from app.station.connection import ConnectionChoice

    app = create_application()
    window = MainWindow(panel_registry(), ConnectionChoice(
        simulation=False, mode="client", endpoints=[endpoint]), config_dir())
    window.close_all_panels()
    panel = window.open_panel("fleet_map", area="left")
    window.resize(1400, 900)
    window.show()
    publishers: list[Publisher] = []

    def engage() -> None:
        bus = window.station.bus
        if bus is None:
            QTimer.singleShot(500, engage)
            return
        if not publishers:
            publishers.append(Publisher(bus, command_key(ESTOPPED, "estop"), "fleet.Command",
                                        Traffic.ESTOP))
        command = registry().struct("fleet.Command").new_message(robotId=ESTOPPED, seq=1)
        command.init("estop").engage, command.estop.reason = True, "screenshot"
        publishers[0].put(command)
        QTimer.singleShot(1000, engage)  # repeated, as the station does, until reported

    def pick() -> None:
        window.set_active_robot("humanoid-1")

    def shoot() -> None:
        panel.view.fit()
        app.processEvents()
        output.parent.mkdir(exist_ok=True)
        window.grab().save(str(output))
        print(f"saved {output}: {panel.summary.text()}; {panel.problems.text()}")
        window.close()

    QTimer.singleShot(3000, engage)
    QTimer.singleShot(4000, pick)
    QTimer.singleShot(SETTLE_MS, shoot)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
