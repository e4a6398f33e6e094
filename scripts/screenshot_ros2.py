"""Takes the ROS 2 screenshot: a fresh station (a new config dir, its default layout) on a
ROS 2 robot that speaks rmw_zenoh (``tests.ros2_robot``, its own process, rosbags' CDR), under
Xvfb. Nothing on the robot was made for Fieldstation.

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python scripts/screenshot_ros2.py \
        [--graph] [OUTPUT.png]

``--graph``: the ROS 2 graph panel, floated out of the layout (docs/ros2_graph.png).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QTimer

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "docs" / "ros2_robot.png"
SETTLE_MS = 15000


def main() -> int:
    sys.path.insert(0, str(REPO))
    from app.station.connection import free_loopback_endpoint
    from tests.ros2_robot import Ros2RobotProcess

    args = sys.argv[1:]
    graph = "--graph" in args
    paths = [a for a in args if a != "--graph"]
    output = Path(paths[0]) if paths else OUTPUT.with_name("ros2_graph.png") if graph else OUTPUT
    endpoint = free_loopback_endpoint()
    with Ros2RobotProcess(endpoint, "rover_1"):
        return _shoot(endpoint, output, graph)


def _shoot(endpoint: str, output: Path, graph: bool) -> int:
    from app.qt.application import create_application
    from app.qt.main_window import MainWindow
    from app.qt.start import panel_registry
    from app.station.connection import ConnectionChoice

    app = create_application()
    window = MainWindow(panel_registry(), ConnectionChoice(
        simulation=False, mode="peer", endpoints=[endpoint]),
        Path(tempfile.mkdtemp(prefix="fs-ros2-")))
    window.resize(1600, 900)
    window.show()
    window.restore_last_layout()  # none yet: the default one, as the app's first start
    shown = window
    if graph:
        shown = window.open_panel("ros2_graph").parentWidget()  # its dock
        shown.setFloating(True)
        shown.resize(900, 640)

    def shoot() -> None:
        if graph:  # opened down to its topics, as an operator clicks through it
            shown.widget().tree.expandAll()
        app.processEvents()
        output.parent.mkdir(exist_ok=True)
        shown.grab().save(str(output))
        robots = [(r.robot_id, r.online) for r in window.station.robots()]
        print(f"saved {output}: robots {robots}, active {window.station.active_robot}")
        window.close()

    QTimer.singleShot(SETTLE_MS, shoot)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
