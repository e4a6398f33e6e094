"""In the window, with a rover, a humanoid and a car online: a capability, a goal, the
E-STOP button and its release, and teleop all land on the active robot's command keys
alone; making another robot active sends the old one its stop burst and nothing more.
Drawn by Mesa under Xvfb (the goal is picked in the 3D view)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from tests.panels.test_scene3d_goal import drag, layer_ok
from tests.teleop.heard import Heard, Pad

pytestmark = [pytest.mark.gl, pytest.mark.slow]
TIMEOUT_MS = 20_000
ROVER = "fleet/rover-1"


def test_every_kind_of_command_goes_to_the_active_robot_only(
        make_main_window, fleet, qtbot, monkeypatch) -> None:
    heard = Heard(fleet)
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: QMessageBox.StandardButton.Yes)
    window = make_main_window(show=True)
    qtbot.waitUntil(lambda: sum(bool(r.online and r.catalog)
                                for r in window.station.robots()) == 3, timeout=TIMEOUT_MS)
    caps = window.open_panel("capabilities")
    window.set_active_robot("rover-1")
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.applicationState()
                    == Qt.ApplicationState.ApplicationActive, timeout=10_000)

    # A capability: the rover's lights.
    qtbot.waitUntil(lambda: "service:lights" in caps.controls, timeout=TIMEOUT_MS)
    caps.controls["service:lights"][0].click()
    qtbot.waitUntil(lambda: any(c.what == "service" for c in heard.of("rover-1")),
                    timeout=TIMEOUT_MS)

    # A goal, picked 3 m ahead of the rover and confirmed.
    scene = window.open_panel("scene3d", {"camera": "orbit"})
    for key in (f"{ROVER}/uplink/motion", f"{ROVER}/tf"):
        qtbot.waitUntil(lambda k=key: layer_ok(scene, k), timeout=TIMEOUT_MS)
    base = scene.model.tree.lookup(scene.fixed_frame(), "rover-1/base_link").matrix
    scene.view.look_at(base[:3, 3], 15.0)
    start, end = scene.view.project(np.array([(base @ [3.0, 0, 0, 1])[:3],
                                              (base @ [4.0, 0, 0, 1])[:3]]))
    scene.goal_tool.button.click()
    drag(scene.view, start, end)
    qtbot.mouseClick(scene.goal_tool.send_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any(c.what == "goTo" for c in heard.of("rover-1")),
                    timeout=TIMEOUT_MS)

    # The E-STOP button, and its confirmed release.
    qtbot.mouseClick(window._estop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any(c.what == "estop" for c in heard.of("rover-1")),
                    timeout=5_000)
    qtbot.waitUntil(lambda: window.estop_engaged(), timeout=5_000)
    window.release_estop_action.trigger()
    qtbot.waitUntil(lambda: not window.estop_engaged(), timeout=10_000)
    # the release goes on being sent until the rover reports it: then it falls silent
    qtbot.waitUntil(lambda: window.teleop().estops() == {}, timeout=10_000)

    # Teleop with the deadman held, from a scripted pad in place of the window's devices.
    window.operator.shutdown()
    pad = Pad(window.teleop(), regrip=True)
    try:
        qtbot.waitUntil(lambda: window.teleop().status().link.live, timeout=8_000)
        pad.deadman = True
        qtbot.waitUntil(lambda: any(c.moving for c in heard.of("rover-1")), timeout=5_000)
        assert heard.of("humanoid-1") == heard.of("car-1") == []
        assert {c.key for c in heard.of("rover-1")} == {
            f"{ROVER}/command/{segment}"
            for segment in ("service", "go_to", "estop", "teleop")}

        # Another robot made active, the deadman still held (and no longer pressed again).
        pad.regrip = False
        switched = time.monotonic()
        window.set_active_robot("humanoid-1")
        qtbot.wait(800)
        after = heard.of("rover-1", since=switched)
        assert after and all(c.what == "teleop" for c in after)
        # A command in flight at the switch may land after it; then one burst of stops,
        # and nothing moving after the first stop.
        stops = after[next(i for i, c in enumerate(after) if not c.moving):]
        assert stops and not any(c.moving for c in stops) and len(stops) <= 3
        assert max(c.at for c in stops) - min(c.at for c in stops) < 0.3
        assert heard.of("humanoid-1") == heard.of("car-1") == []
    finally:
        pad.close()
