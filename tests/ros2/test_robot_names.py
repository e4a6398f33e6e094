"""The ids a station gives ROS 2 robots instead of the rule's (ros2-robots.json in its config
dir): applied to the graph's robots and nodes with their namespaces kept, and each entry
that cannot be used refused with why, the others still applied."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.ros2.graph import RosGraph
from app.ros2.rmw_keys import parse_token
from app.station.ros2_robot_names import FILE_NAME, RobotNames, read_robot_names
from tests.ros2.test_graph_nodes import HASH, QOS, ZID_A, ZID_B, token

TOKENS = [
    token(0, ZID_A, 0, "NN", "%rover_1", "base"),
    token(0, ZID_A, 1, "MP", "%rover_1", "base",
          f"%rover_1%scan/sensor_msgs::msg::dds_::LaserScan_/{HASH}/{QOS}"),
    token(7, ZID_B, 0, "NN", "%", "driver"),
    token(7, ZID_B, 1, "MS", "%", "driver",
          f"%cmd_vel/geometry_msgs::msg::dds_::Twist_/{HASH}/{QOS}"),
]


def graph_of(names: dict[str, str]) -> RosGraph:
    graph = RosGraph()
    for key in TOKENS:
        graph.put(key, parse_token(key))
    graph.name_robots(names)
    return graph


def test_the_rules_ids_are_given_the_names_configured_and_keep_their_namespaces() -> None:
    graph = graph_of({"ros2-domain-7": "atlas-2", "rover_1": "rover-1"})
    robots = graph.robots()
    assert sorted(robots) == ["atlas-2", "rover-1"]
    rover, atlas = robots["rover-1"], robots["atlas-2"]
    assert (rover.namespace, [t.local for t in rover.publishers]) == ("/rover_1", ["scan"])
    assert (atlas.domain, atlas.namespace) == (7, "")
    assert [t.local for t in atlas.subscriptions] == ["cmd_vel"]
    assert [(n.robot_id, n.name) for n in graph.nodes()] == [
        ("rover-1", "/rover_1/base"), ("atlas-2", "/driver")]


def test_a_robot_not_named_keeps_the_rules_id_and_names_changed_apply_at_once() -> None:
    graph = graph_of({"ros2-domain-7": "atlas-2"})
    version = graph.version
    assert sorted(graph.robots()) == ["atlas-2", "rover_1"]
    graph.name_robots({})
    assert graph.version != version  # the source follows the graph again
    assert sorted(graph.robots()) == ["ros2-domain-7", "rover_1"]


def write(folder: Path, text: str) -> RobotNames:
    (folder / FILE_NAME).write_text(text)
    return read_robot_names(folder)


def test_no_file_names_nothing_and_refuses_nothing(tmp_path: Path) -> None:
    assert read_robot_names(tmp_path) == RobotNames()


@pytest.mark.parametrize(("text", "why"), [
    ("{nope", "not JSON"),
    ('["rover_1", "rover-1"]', "not a JSON object"),
])
def test_a_file_that_is_no_mapping_is_refused_whole(tmp_path: Path, text: str,
                                                     why: str) -> None:
    names = write(tmp_path, text)
    assert names.names == {}
    (refused,) = names.refused
    assert refused.startswith(FILE_NAME) and why in refused


def test_each_entry_that_cannot_be_used_is_refused_with_why_and_the_rest_apply(
        tmp_path: Path) -> None:
    names = write(tmp_path, json.dumps({
        "ros2-domain-0": "atlas-1",
        "rover_1": "rover 1",  # a space: no key chunk
        "/rover_2": "rover-2",  # a namespace, not the id the rule makes of it
        "rover_3": 3,
        "rover_4": "atlas-1",  # already ros2-domain-0's
        "rover_5": "rover-5",
    }))
    assert names.names == {"ros2-domain-0": "atlas-1", "rover_5": "rover-5"}
    why = dict(zip(["/rover_2", "rover_1", "rover_3", "rover_4"], names.refused, strict=True))
    assert "is no robot id the ROS 2 rule makes" in why["/rover_2"]
    assert "'rover 1' is no robot id" in why["rover_1"]
    assert "3 is no robot id" in why["rover_3"]
    assert "'atlas-1' is already 'ros2-domain-0''s name" in why["rover_4"]
