"""The ROS 2 graph as rmw_zenoh's liveliness tokens tell it, and the robots on it.

Pure: :class:`RosGraph` takes tokens as they come and go (``app.ros2.rmw_keys`` parses
them) and answers what the station shows. A robot on a ROS 2 graph is a namespace: the first
segment of its nodes' namespace (``/rover_1/lidar`` is robot ``rover_1``), as multi-robot
ROS 2 setups (Nav2's, Gazebo's) name each robot. Nodes in the root namespace make one robot
per domain, ``ros2-domain-<id>``: a single robot on its own ROS_DOMAIN_ID, as most run.
``names`` (the station's configured mapping, app.station.ros2_robot_names) gives any of
these ids the robot id it is shown and keyed by instead. schemas/README.md ("ROS 2
robots") states this for robot teams.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from app.ros2.rmw_keys import Entity, EntityKind

ROOT_ROBOT = "ros2-domain-{domain}"
# ROS 2 names: letters, digits, '_' (design article "Topic and Service name mapping")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class RosTopic:
    """A topic of a robot, as the graph has it: who publishes or subscribes and how."""

    robot_id: str
    domain: int
    name: str  # fully qualified, /rover_1/scan
    type_name: str  # sensor_msgs/msg/LaserScan
    type_hash: str  # RIHS01_...
    local: str  # the name under the robot's namespace: scan (or the full name, outside it)
    transient_local: bool = False


@dataclass(frozen=True)
class RosRobot:
    robot_id: str
    domain: int
    namespace: str  # "/rover_1", or "" for a domain's root-namespace robot
    nodes: tuple[str, ...]  # fully qualified node names
    publishers: tuple[RosTopic, ...]
    subscriptions: tuple[RosTopic, ...]
    services: tuple[RosTopic, ...] = ()  # served by its nodes: name, srv type, hash


@dataclass(frozen=True)
class RosNodeInfo:
    """A node on the graph and what it offers and uses, each as (name, type), sorted."""

    domain: int
    robot_id: str
    name: str  # fully qualified: /rover_1/lidar
    publishers: tuple[tuple[str, str], ...] = ()
    subscriptions: tuple[tuple[str, str], ...] = ()
    services: tuple[tuple[str, str], ...] = ()
    clients: tuple[tuple[str, str], ...] = ()


def robot_of(entity: Entity, names: Mapping[str, str] | None = None) -> tuple[str, str]:
    """(robot id, its namespace) of a graph entity: the id by the rule, or the one ``names``
    gives that id."""
    first = entity.namespace.strip("/").split("/", 1)[0]
    if first and _NAME.match(first):
        ruled, namespace = first, f"/{first}"
    else:
        ruled, namespace = ROOT_ROBOT.format(domain=entity.domain), ""
    return (names.get(ruled, ruled) if names else ruled), namespace


def local_name(topic: str, namespace: str) -> str:
    """A topic's name under the robot's namespace (``/rover_1/scan`` -> ``scan``)."""
    if namespace and topic.startswith(namespace + "/"):
        return topic[len(namespace) + 1 :]
    return topic.lstrip("/")


class RosGraph:
    """Every token alive; thread-safe (tokens arrive on zenoh's threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._alive: dict[str, Entity] = {}
        self._names: Mapping[str, str] = {}
        self.version = 0  # changes whenever the graph does, or its robots' names

    def put(self, key: str, entity: Entity) -> None:
        with self._lock:
            self._alive[key] = entity
            self.version += 1

    def delete(self, key: str) -> None:
        with self._lock:
            if self._alive.pop(key, None) is not None:
                self.version += 1

    def clear(self) -> None:
        with self._lock:
            self._alive.clear()
            self.version += 1

    def name_robots(self, names: Mapping[str, str]) -> None:
        """Robot id by the rule -> the id it is known by (:func:`robot_of`)."""
        with self._lock:
            self._names = dict(names)
            self.version += 1

    def entities(self) -> list[Entity]:
        with self._lock:
            return list(self._alive.values())

    def robots(self) -> dict[str, RosRobot]:
        """Each robot with a node alive, by id."""
        with self._lock:
            entities, names = list(self._alive.values()), self._names
        return robots_of(entities, names)

    def nodes(self) -> list[RosNodeInfo]:
        with self._lock:
            entities, names = list(self._alive.values()), self._names
        return nodes_of(entities, names)


_SIDES = (EntityKind.PUBLISHER, EntityKind.SUBSCRIPTION, EntityKind.SERVICE,
          EntityKind.CLIENT)


def nodes_of(entities: Iterable[Entity], names: Mapping[str, str] | None = None
             ) -> list[RosNodeInfo]:
    """Every node, by domain, robot and name (nodes of one name in several processes are
    one, as ``ros2 node list`` shows them)."""
    found: dict[tuple[int, str, str], dict[EntityKind, set[tuple[str, str]]]] = {}
    for entity in entities:
        robot_id, _ = robot_of(entity, names)
        name = f"{entity.namespace.rstrip('/')}/{entity.node_name}"
        sides = found.setdefault((entity.domain, robot_id, name), {})
        if entity.kind in _SIDES and entity.topic:
            sides.setdefault(entity.kind, set()).add((entity.topic, entity.type_name))
    return [RosNodeInfo(domain, robot_id, name,
                        *(tuple(sorted(sides.get(kind, ()))) for kind in _SIDES))
            for (domain, robot_id, name), sides in sorted(found.items())]


def robots_of(entities: Iterable[Entity], names: Mapping[str, str] | None = None
              ) -> dict[str, RosRobot]:
    nodes: dict[str, set[str]] = {}
    domains: dict[str, tuple[int, str]] = {}
    sides: dict[EntityKind, dict[str, dict[str, RosTopic]]] = {
        kind: {} for kind in (EntityKind.PUBLISHER, EntityKind.SUBSCRIPTION,
                              EntityKind.SERVICE)}
    for entity in entities:
        robot_id, namespace = robot_of(entity, names)
        domains.setdefault(robot_id, (entity.domain, namespace))
        node = f"{entity.namespace.rstrip('/')}/{entity.node_name}"
        nodes.setdefault(robot_id, set()).add(node)
        side = sides.get(entity.kind)
        if side is None or not entity.topic:
            continue
        topic = RosTopic(robot_id, entity.domain, entity.topic, entity.type_name,
                         entity.type_hash, local_name(entity.topic, namespace),
                         entity.qos.transient_local if entity.qos else False)
        side.setdefault(robot_id, {})[entity.topic] = topic

    def of(kind: EntityKind, robot_id: str) -> tuple[RosTopic, ...]:
        return tuple(sorted(sides[kind].get(robot_id, {}).values(), key=lambda t: t.name))

    return {
        robot_id: RosRobot(
            robot_id, domain, namespace, tuple(sorted(nodes[robot_id])),
            of(EntityKind.PUBLISHER, robot_id), of(EntityKind.SUBSCRIPTION, robot_id),
            of(EntityKind.SERVICE, robot_id))
        for robot_id, (domain, namespace) in domains.items()
    }
