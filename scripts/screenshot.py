"""Takes the README screenshot: the app on the embedded simulated fleet, under Xvfb.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot.py \
        [LAYOUT [OUTPUT.png]]

With ``--contract-robot`` first, the window is 1920×1080 and connects (``--no-sim
--connect``) to ``tests/contract_robot.py``, a robot written from the wire contract alone
(default output ``docs/contract_robot.png``):

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python scripts/screenshot.py \
        --contract-robot [LAYOUT [OUTPUT.png]]

With ``--depot N`` first, it connects as a client to a depot of N light robots
(``fieldstation sim --fleet N --light``, a process of its own; default output
``docs/depot.png``), after 30 s:

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python scripts/screenshot.py \
        --depot 1000 [LAYOUT [OUTPUT.png]]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "docs" / "screenshot.png"
CONTRACT_OUTPUT = REPO / "docs" / "contract_robot.png"
DEPOT_OUTPUT = REPO / "docs" / "depot.png"
DEPOT_SETTLE_MS = 30000  # a thousand robots announce, their catalogs come in one query
SETTLE_MS = 9000  # robots announce, catalogs arrive, plots fill


def take(arrange: Callable[[Any], None], output: Path, settle_ms: int = SETTLE_MS,
         report: Callable[[Any], str] = lambda window: "", endpoints: list[str] | None = None
         ) -> int:
    """Opens the window on the embedded fleet (or, given ``endpoints``, connected there
    without it) from a fresh config dir, lets ``arrange`` place its panels and saves the
    window to ``output`` after ``settle_ms``: the robot shown is the one the station chose
    by itself, as on a first start."""
    os.environ.setdefault("FIELDSTATION_CONFIG_DIR", tempfile.mkdtemp(prefix="fs-shot-"))
    from app.qt.application import create_application
    from app.qt.main_window import MainWindow
    from app.qt.start import config_dir, panel_registry
    from app.station.connection import ConnectionChoice

    app = create_application()
    choice = ConnectionChoice(simulation=False, endpoints=endpoints) if endpoints else \
        ConnectionChoice(simulation=True)
    window = MainWindow(panel_registry(), choice, config_dir())
    arrange(window)

    def shoot() -> None:
        output.parent.mkdir(exist_ok=True)
        window.grab().save(str(output))
        print(f"saved {output}{report(window)}")
        window.close()

    QTimer.singleShot(settle_ms, shoot)
    return app.exec()


def main() -> int:
    args = sys.argv[1:]
    contract = bool(args) and args[0] == "--contract-robot"
    depot = int(args[1]) if len(args) > 1 and args[0] == "--depot" else 0
    args = args[1:] if contract else args[2:] if depot else args
    layout = args[0] if args else "Field laptop"
    output = Path(args[1]) if len(args) > 1 else CONTRACT_OUTPUT if contract else \
        DEPOT_OUTPUT if depot else OUTPUT
    size = (1920, 1080) if contract or depot else (1600, 960)

    def arrange(window: Any) -> None:
        window.resize(*size)
        window.load_named_layout(layout)
        window.show()

    if depot:
        from app.station.connection import free_loopback_endpoint

        endpoint = free_loopback_endpoint()
        sim = subprocess.Popen([sys.executable, "-m", "app.cli", "sim", "--fleet", str(depot),
                                "--light", "--listen", endpoint], cwd=REPO)
        try:
            return take(arrange, output, settle_ms=DEPOT_SETTLE_MS, endpoints=[endpoint])
        finally:
            sim.terminate()
            sim.wait(20)
    if not contract:
        return take(arrange, output)
    sys.path.insert(0, str(REPO))
    from tests.conftest import free_port
    from tests.contract_robot import ContractRobot

    endpoint = f"tcp/127.0.0.1:{free_port()}"
    with ContractRobot("ctr-1", listen=endpoint):
        return take(arrange, output, settle_ms=6000, endpoints=[endpoint])


if __name__ == "__main__":
    sys.exit(main())
