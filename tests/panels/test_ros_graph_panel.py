"""The ROS 2 graph panel against a ROS 2 robot on rmw_zenoh in another process (real tokens,
tests/ros2_robot.py): its node under its domain and robot, what it publishes and subscribes
to, a filter, and the node gone when the robot goes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QTreeWidgetItem

from app.qt.main_window import MainWindow
from app.station.ros2_robot_names import FILE_NAME
from panels.ros_graph import RosGraphPanel
from tests.ros2_robot import GAUGE_MSG, GAUGE_TYPE, Ros2RobotProcess


def children(item: QTreeWidgetItem) -> dict[str, QTreeWidgetItem]:
    return {item.child(i).text(0): item.child(i) for i in range(item.childCount())}


def entries(node: QTreeWidgetItem, side: str) -> set[tuple[str, str]]:
    group = next((g for label, g in children(node).items() if label.startswith(side)), None)
    if group is None:
        return set()
    return {(g.text(0), g.text(1)) for g in children(group).values()}


def node_item(panel: RosGraphPanel) -> QTreeWidgetItem | None:
    tree = panel.tree
    domains = {tree.topLevelItem(i).text(0): tree.topLevelItem(i)
               for i in range(tree.topLevelItemCount())}
    domain = domains.get("Domain 0")
    robot = children(domain).get("rover_1") if domain is not None else None
    return children(robot).get("/rover_1/base") if robot is not None else None


def test_the_graph_shows_the_robots_node_with_its_topics_and_not_the_stations_own(
        make_main_window: Callable[..., MainWindow], free_endpoint: str, qtbot: Any) -> None:
    window = make_main_window(show=True)
    panel = window.open_panel("ros2_graph")
    assert isinstance(panel, RosGraphPanel)
    qtbot.waitUntil(lambda: window.station.bus is not None, timeout=10_000)
    assert panel.hint.isVisible() and "rmw_zenoh" in panel.hint.text()
    with Ros2RobotProcess(free_endpoint, "rover_1") as robot:
        qtbot.waitUntil(lambda: (node := node_item(panel)) is not None
                        and ("/rover_1/cmd_vel", "geometry_msgs/msg/Twist")
                        in entries(node, "Subscriptions"), timeout=15_000)
        node = node_item(panel)
        assert node is not None and node.isExpanded() and node.text(1) == "node"
        published = entries(node, "Publishers")
        assert ("/rover_1/scan", "sensor_msgs/msg/LaserScan") in published
        assert ("/rover_1/tf_static", "tf2_msgs/msg/TFMessage") in published
        assert ("/rover_1/goal_pose", "geometry_msgs/msg/PoseStamped") in \
            entries(node, "Subscriptions")
        # the station speaks on the graph (its command publishers) but is not shown on it
        assert panel.tree.topLevelItemCount() == 1
        assert panel.count.text() == "1 node"

        panel.filter.setText("LaserScan")
        assert panel.count.text() == "1 node"
        panel.filter.setText("no such thing")
        assert panel.count.text() == "0 of 1 nodes" and node_item(panel) is None
        panel.filter.clear()
        assert node_item(panel) is not None
        robot.stop()
        qtbot.waitUntil(lambda: node_item(panel) is None, timeout=15_000)
    qtbot.waitUntil(panel.hint.isVisible)


def test_the_robots_own_types_read_and_refused_are_said_under_the_graph(
        make_main_window: Callable[..., MainWindow], free_endpoint: str, qtbot: Any,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "msgs" / "fieldstation_test_msgs" / "msg"
    folder.mkdir(parents=True)
    (folder / "Gauge.msg").write_text(GAUGE_MSG)
    (folder / "Bad.msg").write_text("!!!\n")
    monkeypatch.setenv("FIELDSTATION_ROS2_MSGS", str(tmp_path / "msgs"))
    window = make_main_window(show=True)
    panel = window.open_panel("ros2_graph")
    assert isinstance(panel, RosGraphPanel)
    with Ros2RobotProcess(free_endpoint, "rover_1", custom=True):
        qtbot.waitUntil(lambda: panel.definitions.isVisible(), timeout=15_000)
        text = panel.definitions.text()
        assert GAUGE_TYPE in text and "FIELDSTATION_ROS2_MSGS" in text
        assert "Refused: " in text and "Bad.msg" in text


def test_a_robot_named_in_the_config_is_listed_by_its_name_and_refused_entries_said(
        make_main_window: Callable[..., MainWindow], free_endpoint: str, qtbot: Any,
        tmp_path: Path) -> None:
    config = tmp_path / "config"  # the window's config dir (make_main_window)
    config.mkdir()
    (config / FILE_NAME).write_text(json.dumps({"ros2-domain-0": "atlas-2",
                                                "rover_2": "no such id!"}))
    window = make_main_window(show=True)
    panel = window.open_panel("ros2_graph")
    assert isinstance(panel, RosGraphPanel)
    with Ros2RobotProcess(free_endpoint, ""):
        qtbot.waitUntil(lambda: "atlas-2" in robots_listed(panel), timeout=15_000)
        assert robots_listed(panel) == ["atlas-2"]
        # the station follows the graph on its own thread: a moment after the panel
        qtbot.waitUntil(lambda: [r.robot_id for r in window.station.robots()] == ["atlas-2"],
                        timeout=15_000)
        assert panel.definitions.isVisible()
        assert f"Refused: {FILE_NAME}: 'rover_2'" in panel.definitions.text()
        assert "'no such id!' is no robot id" in panel.definitions.text()


def robots_listed(panel: RosGraphPanel) -> list[str]:
    tree = panel.tree
    domains = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    return [name for domain in domains for name in children(domain)]
