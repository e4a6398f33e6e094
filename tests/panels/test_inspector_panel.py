"""The inspector on the real simulated fleet over real zenoh: what a field engineer sees."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from app.bus.catalog import Catalog, TopicInfo
from app.bus.keys import command_key
from app.bus.publisher import Publisher, Traffic
from app.codec.registry import registry
from app.station.frame import FrameBatch
from app.station.interests import Latest
from app.station.robots import RobotInfo, StationStatus
from panels.inspector import InspectorPanel
from tests.panels.health import PlainHost

MOTION = "fleet/rover-1/uplink/motion"
CAMERA = "fleet/rover-1/camera/compressed"
JOINTS = "fleet/humanoid-1/proprioception"
TIMEOUT_MS = 10_000
LEFT = Qt.MouseButton.LeftButton


def open_inspector(window: Any, state: dict[str, Any]) -> InspectorPanel:
    panel = window.open_panel("inspector", state)
    assert isinstance(panel, InspectorPanel)
    return panel


def text_at(panel: InspectorPanel, path: str, column: int = 1) -> str | None:
    row = panel.tree.row_at(path)
    return None if row is None else row.text(column)


def expand(panel: InspectorPanel, path: str) -> None:
    row = panel.tree.row_at(path)
    assert row is not None, f"no row {path}"
    row.setExpanded(True)


def go_to(window: Any, x: float, y: float) -> Callable[[], None]:
    """What an operator's go-to does: the rover drives there by itself. Returns a sender
    (call it until the effect shows: the first put may precede zenoh's routing)."""
    publisher = Publisher(window.station.bus, command_key("rover-1", "goTo"), "fleet.Command",
                          Traffic.COMMAND)

    def send() -> None:
        command = registry().struct("fleet.Command").new_message(
            robotId="rover-1", unixTimeMs=time.time_ns() // 1_000_000, seq=1)
        pose = command.init("goTo").init("pose3")
        pose.x, pose.y, pose.qw = x, y, 1.0
        publisher.put(command)

    return send


def test_shows_a_live_value_and_freezes_it(make_main_window, fleet, qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_inspector(window, {"key": MOTION})
    qtbot.waitUntil(lambda: text_at(panel, "robotId") == "rover-1", timeout=TIMEOUT_MS)
    header = panel.header.text()
    assert MOTION in header and "fleet.Uplink" in header and "message clock" in header
    # the union member is a row of its own, typed as a union member, opened by default
    assert text_at(panel, "motion", 2) == "union · MotionTelemetry"
    assert text_at(panel, "motion.gpsFixType") in ("fixedRtk", "floatRtk", "fix3d")  # by name
    assert text_at(panel, "motion.gpsFixType", 2) == "enum GpsFixType"
    expand(panel, "motion.pose")
    first = text_at(panel, "motion.pose.latDeg")
    assert first is not None and first.startswith("47.")
    send = go_to(window, 0.0, 30.0)

    def moved() -> bool:
        send()
        return text_at(panel, "motion.pose.latDeg") != first

    qtbot.waitUntil(moved, timeout=TIMEOUT_MS)
    row = panel.tree.row_at("motion.pose")
    assert row is not None and row.isExpanded()  # updated in place: still open

    qtbot.mouseClick(panel.freeze_button, LEFT)
    assert panel.frozen and "FROZEN" in panel.header.text()
    frozen = text_at(panel, "unixTimeMs")
    qtbot.wait(600)  # six motion messages
    assert text_at(panel, "unixTimeMs") == frozen
    qtbot.mouseClick(panel.freeze_button, LEFT)
    qtbot.waitUntil(lambda: text_at(panel, "unixTimeMs") != frozen, timeout=TIMEOUT_MS)


def test_copies_the_message_as_json(make_main_window, fleet, qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_inspector(window, {"key": MOTION})
    qtbot.waitUntil(lambda: text_at(panel, "robotId") is not None, timeout=TIMEOUT_MS)
    qtbot.mouseClick(panel.freeze_button, LEFT)
    qtbot.mouseClick(panel.copy_button, LEFT)
    copied = json.loads(QGuiApplication.clipboard().text())
    assert copied["robotId"] == "rover-1"
    assert str(copied["unixTimeMs"]) == text_at(panel, "unixTimeMs")
    assert isinstance(copied["motion"]["pose"]["latDeg"], float)
    assert "Copied" in window.statusBar().currentMessage()


def test_summarises_data_and_long_lists(make_main_window, fleet, qtbot) -> None:
    window = make_main_window(show=True)
    camera = open_inspector(window, {"key": CAMERA})
    joints = open_inspector(window, {"key": JOINTS})
    qtbot.waitUntil(lambda: text_at(camera, "data") is not None, timeout=TIMEOUT_MS)
    data = text_at(camera, "data")
    assert data is not None and " bytes: ff d8 ff" in data and data.endswith("…")  # a JPEG
    assert int(data.split(" bytes")[0]) > 1000
    assert text_at(camera, "data", 2) == "Data"
    assert text_at(camera, "format") == "jpeg"
    assert text_at(camera, "timestamp.sec", 2) == "Int64"  # the first level of structs is open

    qtbot.waitUntil(lambda: text_at(joints, "rawJoints") is not None, timeout=TIMEOUT_MS)
    summary = text_at(joints, "rawJoints")
    assert summary is not None and summary.startswith("[46 items]")
    expand(joints, "rawJoints")
    row = joints.tree.row_at("rawJoints")
    assert row is not None and row.childCount() == 17  # the first 16, then what is left out
    assert row.child(0).text(0) == "[0]" and row.child(16).text(1) == "30 more not shown"


def test_a_decode_error_shows_in_red_and_keeps_the_last_value(make_main_window, fleet,
                                                             qtbot) -> None:
    window = make_main_window(show=True)
    key = "fleet/bench-1/uplink/motion"
    panel = open_inspector(window, {"key": key})
    qtbot.waitUntil(lambda: window.station.bus is not None, timeout=TIMEOUT_MS)
    good = Publisher(window.station.bus, key, "fleet.Uplink", Traffic.TELEMETRY)
    garbage = window.station.bus.zenoh.declare_publisher(key, encoding=good.encoding)
    message = registry().struct("fleet.Uplink").new_message(robotId="bench-1")
    message.init("motion").pose.latDeg = 12.5
    payload = message.to_bytes()

    def sent_until(publisher: Any, data: bytes, condition: Callable[[], bool]) -> bool:
        publisher.put(data)
        return condition()

    try:
        qtbot.waitUntil(lambda: sent_until(garbage, b"\x00 not capnp", panel.error.isVisible),
                        timeout=TIMEOUT_MS)  # nothing good yet: the topic's errors say why
        assert "nothing decoded" in panel.header.text()
        qtbot.waitUntil(lambda: sent_until(good, payload,
                                           lambda: text_at(panel, "robotId") == "bench-1"),
                        timeout=TIMEOUT_MS)
        qtbot.waitUntil(lambda: sent_until(garbage, b"\x00\x01 not capnp at all",
                                           panel.error.isVisible), timeout=TIMEOUT_MS)
        assert panel.error.text().startswith("Decode error:")
        assert "f85149" in panel.error.styleSheet()  # red
        assert text_at(panel, "robotId") == "bench-1"  # the last good value stays
        expand(panel, "motion.pose")
        assert text_at(panel, "motion.pose.latDeg") == "12.5"
        qtbot.waitUntil(lambda: sent_until(good, payload, lambda: not panel.error.isVisible()),
                        timeout=TIMEOUT_MS)  # a good message clears it
    finally:
        garbage.undeclare()


def test_state_round_trips_and_restores_opened_rows(make_main_window, fleet, qtbot) -> None:
    window = make_main_window(show=True)
    for state in ({"key": MOTION}, {}, {"key": CAMERA, "expanded": ["data", "timestamp"]}):
        assert open_inspector(window, state).save_state() == state
    panel = open_inspector(window, {"key": MOTION})
    qtbot.waitUntil(lambda: panel.tree.row_at("motion.pose") is not None, timeout=TIMEOUT_MS)
    expand(panel, "motion.pose")
    saved = panel.save_state()
    assert saved == {"key": MOTION, "expanded": ["motion", "motion.pose"]}
    again = open_inspector(window, saved)
    qtbot.waitUntil(lambda: text_at(again, "motion.pose.latDeg") is not None,
                    timeout=TIMEOUT_MS)
    assert again.save_state() == saved
    open_inspector(window, {"key": 5})
    assert "malformed" in window.statusBar().currentMessage()


def test_a_dropped_topic_is_inspected_and_a_field_can_be_plotted(make_main_window, fleet,
                                                                qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_inspector(window, {})
    assert panel.interests() == set()
    assert panel.accept_topic(MOTION, "fleet.Uplink")
    assert panel.key_box.currentText() == MOTION
    qtbot.waitUntil(lambda: text_at(panel, "motion.hasPose") == "true", timeout=TIMEOUT_MS)
    panel.plot_field("motion.velocity.linearMps")
    plots = [p for p in window.panels().values() if p.panel_id == "plot"]
    assert [p.save_state() for p in plots] == [{
        "series": [{"key": MOTION, "path": "motion.velocity.linearMps"}],
        "window_s": 60, "paused": False}]


ACTIVE_MOTION = "fleet/{robot}/uplink/motion"


def test_a_key_naming_the_active_robot_follows_it(make_main_window, two_rovers,
                                                  qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_inspector(window, {"key": ACTIVE_MOTION})
    for robot in ("rover-1", "rover-2"):
        window.set_active_robot(robot)
        motion = f"fleet/{robot}/uplink/motion"
        qtbot.waitUntil(lambda m=motion: f"<b>{m}</b> · fleet.Uplink" in panel.header.text(),
                        timeout=TIMEOUT_MS)
        assert panel.interests() == {Latest(motion)}
        assert text_at(panel, "robotId") == robot
    assert panel.save_state()["key"] == ACTIVE_MOTION  # saved as given: it keeps following


def test_with_no_robot_chosen_it_says_so(qtbot, tmp_path) -> None:
    panel = InspectorPanel(PlainHost(tmp_path))  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.restore_state({"key": ACTIVE_MOTION})
    panel.on_frame(FrameBatch(time.monotonic(), StationStatus(session="online")))
    assert "no robot chosen" in panel.header.text() and panel.interests() == set()


def test_a_key_the_robot_does_not_list_says_so_instead_of_waiting(qtbot, tmp_path) -> None:
    """A layout made on another robot: "Teleop station" shows the active robot's motion,
    which a robot that is not ours may not publish."""
    panel = InspectorPanel(PlainHost(tmp_path))  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.restore_state({"key": ACTIVE_MOTION})
    listed = Catalog("ctr-1", topics=[TopicInfo("fleet/ctr-1/front/image", "isaac.ImageProto")])

    def shown(catalog: Catalog | None) -> str:
        panel.on_frame(FrameBatch(time.monotonic(), StationStatus(session="online"),
                                  active_robot="ctr-1",
                                  robots=[RobotInfo("ctr-1", online=True, catalog=catalog)]))
        return panel.header.text()

    assert "waiting for data" in shown(None)  # its catalog is not in yet
    assert "waiting for data" in shown(Catalog("ctr-1", topics=listed.topics, discovered=True))
    text = shown(listed)
    assert "ctr-1 does not publish uplink/motion (not in its catalog)" in text
    assert "waiting" not in text
    assert "waiting for data" in shown(Catalog("ctr-1", topics=[
        *listed.topics, TopicInfo("fleet/ctr-1/uplink/motion", "fleet.Uplink")]))


def test_a_key_of_a_robot_not_online_says_so_instead_of_waiting(make_main_window, two_rovers,
                                                                 qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_inspector(window, {"key": "fleet/rover-9/uplink/motion"})
    qtbot.waitUntil(lambda: "no robot rover-9 online" in panel.header.text(),
                    timeout=TIMEOUT_MS)
    assert "waiting" not in panel.header.text()
