"""The nodes of a ROS 2 graph as the graph panel lists them, from tokens as rmw_zenoh writes
them (parsed by app.ros2.rmw_keys)."""

from __future__ import annotations

from app.ros2.graph import RosGraph
from app.ros2.rmw_keys import parse_token

ZID_A, ZID_B = "1a2b", "3c4d"
HASH = "RIHS01_" + "0" * 64
QOS = "::,10:,:,:,,"


def token(domain: int, zid: str, entity: int, kind: str, namespace: str, node: str,
          tail: str = "") -> str:
    key = f"@ros2_lv/{domain}/{zid}/0/{entity}/{kind}/%/{namespace}/{node}"
    return f"{key}/{tail}" if tail else key


def test_each_node_lists_what_it_publishes_subscribes_serves_and_calls() -> None:
    graph = RosGraph()
    tokens = [
        token(0, ZID_A, 0, "NN", "%rover_1", "base"),
        token(0, ZID_A, 1, "MP", "%rover_1", "base",
              f"%rover_1%scan/sensor_msgs::msg::dds_::LaserScan_/{HASH}/{QOS}"),
        token(0, ZID_A, 2, "MS", "%rover_1", "base",
              f"%rover_1%cmd_vel/geometry_msgs::msg::dds_::Twist_/{HASH}/{QOS}"),
        token(0, ZID_A, 3, "SS", "%rover_1", "base",
              f"%rover_1%reset/std_srvs::srv::dds_::Empty_/{HASH}/{QOS}"),
        # the same node name in another process is the same node, as ros2 node list says
        token(0, ZID_B, 0, "NN", "%rover_1", "base"),
        token(0, ZID_B, 1, "SC", "%rover_1", "base",
              f"%rover_1%map_server%load_map/nav2_msgs::srv::dds_::LoadMap_/{HASH}/{QOS}"),
        token(3, ZID_B, 0, "NN", "%", "talker"),
    ]
    for key in tokens:
        graph.put(key, parse_token(key))
    base, talker = graph.nodes()
    assert (base.domain, base.robot_id, base.name) == (0, "rover_1", "/rover_1/base")
    assert base.publishers == (("/rover_1/scan", "sensor_msgs/msg/LaserScan"),)
    assert base.subscriptions == (("/rover_1/cmd_vel", "geometry_msgs/msg/Twist"),)
    assert base.services == (("/rover_1/reset", "std_srvs/srv/Empty"),)
    assert base.clients == (("/rover_1/map_server/load_map", "nav2_msgs/srv/LoadMap"),)
    assert (talker.domain, talker.robot_id, talker.name) == (3, "ros2-domain-3", "/talker")
    graph.delete(tokens[-1])
    assert [n.name for n in graph.nodes()] == ["/rover_1/base"]
