"""The 3D panel on the real simulated fleet over real zenoh, drawn by Mesa under Xvfb."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from app.bus.publisher import Publisher, Traffic
from app.codec.registry import registry
from panels.scene3d import DIM_COLOUR, ERROR_COLOUR
from tests.bus.helpers import wait_until_heard, waiting_in

pytestmark = pytest.mark.gl
TIMEOUT_MS = 20_000
ROVER = "fleet/rover-1"


def open_scene(window, robot: str):
    panel = window.open_panel("scene3d", {"camera": "orbit"})
    window.set_active_robot(robot)
    return panel


def layer_ok(panel, key: str) -> bool:
    item = panel._wanted.get(key)
    return item is not None and item.version >= 0 and not item.error and \
        not item.frame_problem


def test_the_rover_cloud_boxes_and_scene_are_drawn(make_main_window, fleet, qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_scene(window, "rover-1")
    for key in (f"{ROVER}/lidar/points", f"{ROVER}/lidar/detections", f"{ROVER}/tf",
                f"{ROVER}/scene", f"{ROVER}/uplink/motion"):
        qtbot.waitUntil(lambda k=key: layer_ok(panel, k), timeout=TIMEOUT_MS)
    cloud = panel._wanted[f"{ROVER}/lidar/points"]
    [group] = panel.model.groups(cloud, panel.model.default_fixed_frame("rover-1"))
    assert group.drawables.points is not None and len(group.drawables.points) == 20_000
    boxes = panel._wanted[f"{ROVER}/lidar/detections"]
    assert any(g.drawables.segments for g in panel.model.groups(boxes, "rover-1/world"))
    assert panel.model.default_fixed_frame("rover-1") in ("rover-1/map", "rover-1/world")
    image = panel.view.render_image()
    background = image[0, 0, :3].astype(int)
    drawn = np.abs(image[..., :3].astype(int) - background).sum(axis=-1) > 40
    assert drawn.mean() > 0.02  # the cloud covers a good part of the view
    qtbot.waitUntil(lambda: "ok" in panel.layer_status(f"{ROVER}/lidar/points",
                                                       window_batch(window))[0],
                    timeout=TIMEOUT_MS)

    def points_drawn() -> int:
        groups = panel.model.groups(cloud_layer(), panel.model.default_fixed_frame("rover-1"))
        return sum(len(g.drawables.points) for g in groups if g.drawables.points is not None)

    def cloud_layer():
        return panel._wanted[f"{ROVER}/lidar/points"]

    boxes_key = f"{ROVER}/lidar/detections"

    def shown_box_picks() -> list:
        picks = panel.view.shown_picks()
        return [(xy, item) for xy, item in zip(picks.xy, picks.payloads, strict=True)
                if item.key == boxes_key]

    # the boxes are placed with the view's next frame, which the render thread draws when due
    qtbot.waitUntil(lambda: bool(shown_box_picks()), timeout=TIMEOUT_MS)
    (x, y), item = shown_box_picks()[0]
    assert panel.view.pick_at(x, y).key == boxes_key  # a click on a box names it
    assert item.type_name == "isaac.Detections3Proto"
    assert panel.view.pick_at(-500, -500) is None

    panel.set_voxel(f"{ROVER}/lidar/points", 1.0)  # for a slow GPU: decimated on the lane
    qtbot.waitUntil(lambda: 0 < points_drawn() < 5_000, timeout=TIMEOUT_MS)
    assert panel.save_state()["layers"][f"{ROVER}/lidar/points"]["voxel_m"] == 1.0


def test_the_humanoid_body_and_the_car_traffic(make_main_window, fleet, qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_scene(window, "humanoid-1")
    body = "fleet/humanoid-1/proprioception"
    qtbot.waitUntil(lambda: layer_ok(panel, body), timeout=TIMEOUT_MS)
    fixed = panel.model.default_fixed_frame("humanoid-1")
    [group] = panel.model.groups(panel._wanted[body], fixed)
    assert len(group.drawables.points) >= 10 and group.drawables.segments  # joints, bones
    window.set_active_robot("car-1")
    traffic = "fleet/car-1/entity_status"
    qtbot.waitUntil(lambda: layer_ok(panel, traffic), timeout=TIMEOUT_MS)
    groups = panel.model.groups(panel._wanted[traffic], panel.model.default_fixed_frame("car-1"))
    texts = [t for g in groups for _, t, _ in g.drawables.texts]
    assert len(texts) >= 3  # the ego car and the NPCs, each a labelled box


def test_an_item_in_an_unknown_frame_is_not_drawn_and_says_why(make_main_window, fleet,
                                                                qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_scene(window, "rover-1")
    # its catalog is in: the station hears only its catalog's small topics and what panels
    # want, so the key below (in no catalog) is heard because the panel wants it
    qtbot.waitUntil(lambda: any(r.robot_id == "rover-1" and r.catalog
                                for r in window.station.robots()), timeout=TIMEOUT_MS)
    key = f"{ROVER}/debug/goal"
    panel.accept_topic(key, "foxglove.PoseInFrame")
    publisher = Publisher(fleet.hub, key, "foxglove.PoseInFrame", Traffic.TELEMETRY)
    pose = registry().structs["foxglove.PoseInFrame"].new_message()
    pose.frameId = "nowhere"
    pose.init("pose").init("orientation").w = 1.0
    payload = pose.to_bytes()
    wait_until_heard(fleet.hub, key, wait=waiting_in(qtbot))

    def shown_reason() -> bool:
        publisher.put(payload)
        item = panel._wanted.get(key)
        return item is not None and "nowhere" in item.frame_problem

    qtbot.waitUntil(shown_reason, timeout=TIMEOUT_MS)
    text, _ = panel.layer_status(key, window_batch(window))
    assert text.startswith("not drawn:") and "rover-1/nowhere" in text
    assert not any(g.startswith(key + "|") for g in panel.view.group_ids())
    publisher.close()


def window_batch(window):
    from app.station.frame import FrameBatch

    station = window.station
    return FrameBatch(0.0, station.status, window.active_robot, station.robots(),
                      station.topics(), lanes=station.feeds.lane_stats())


def test_the_scene_is_placed_only_for_the_views_next_frame(make_main_window, qtbot,
                                                            monkeypatch) -> None:
    """Under a software renderer the view draws a few frames a second: placing the scene at
    every tick between them (up to 60 a second) was work nobody saw."""
    window = make_main_window(show=True)
    panel = open_scene(window, "rover-1")
    placed: list[str] = []
    draw = panel._draw
    monkeypatch.setattr(panel, "_draw", lambda fixed: (placed.append(fixed), draw(fixed)))
    for next_frame_in, expected in ((float("inf"), 0), (1.0, 0), (0.0, 1), (0.02, 2)):
        monkeypatch.setattr(panel.view, "next_frame_in", lambda s=next_frame_in: s)
        panel.on_frame(window_batch(window))
        assert len(placed) == expected, f"next frame in {next_frame_in} s"


def listed_layers(panel) -> dict[str, tuple[str, str]]:
    """The layer list as shown: key -> (status text, status colour)."""
    listed = panel.layer_list
    items = (listed.topLevelItem(i) for i in range(listed.topLevelItemCount()))
    return {item.data(0, Qt.ItemDataRole.UserRole):
            (item.text(1), item.foreground(1).color().name()) for item in items}


def test_a_robots_battery_and_faults_are_no_layers_and_nothing_is_red(make_main_window, fleet,
                                                                      qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_scene(window, "rover-1")
    qtbot.waitUntil(lambda: listed_layers(panel).get(f"{ROVER}/uplink/motion", ("",))[0]
                    .startswith("ok"), timeout=TIMEOUT_MS)
    for member in ("battery", "fault", "message", "capabilities", "status"):
        assert f"{ROVER}/uplink/{member}" not in listed_layers(panel)
    assert not [(key, text) for key, (text, colour) in listed_layers(panel).items()
                if colour == QColor(ERROR_COLOUR).name()]


def test_a_topic_with_nothing_to_draw_is_listed_quietly(make_main_window, fleet, qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_scene(window, "rover-1")
    qtbot.waitUntil(lambda: any(r.robot_id == "rover-1" and r.catalog
                                for r in window.station.robots()), timeout=TIMEOUT_MS)
    key = f"{ROVER}/relay/uplink"  # a foreign robot's key: it might hold a pose
    assert panel.accept_topic(key, "fleet.Uplink")
    publisher = Publisher(fleet.hub, key, "fleet.Uplink", Traffic.TELEMETRY)
    message = registry().struct("fleet.Uplink").new_message(robotId="rover-1", unixTimeMs=1)
    message.init("battery").percentage = 50.0
    payload = message.to_bytes()
    wait_until_heard(fleet.hub, key, wait=waiting_in(qtbot))
    qtbot.waitUntil(lambda: (publisher.put(payload),
                             listed_layers(panel).get(key, ("",))[0])[1] == "nothing to draw",
                    timeout=TIMEOUT_MS)
    assert listed_layers(panel)[key][1] == QColor(DIM_COLOUR).name()
    publisher.close()
