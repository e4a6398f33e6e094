"""ROS 2 robots on rmw_zenoh, in the station as robots of its own.

:class:`RosSource` follows the ROS graph on the station's session (rmw_zenoh's liveliness
tokens), tells the station each ROS 2 robot's presence and a catalog made from the graph,
keeps an :class:`~app.ros2.streams.InboundStream` for each topic it can show and an output
(app.ros2.commands) for each robot input the station's commands reach: its velocity input
(teleop, e-stop) and its goal input. Its
:meth:`RosSource.update` runs on the station's worker thread; zenoh's callbacks only note
what changed and wake it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import zenoh

from app.bus.catalog import Catalog, TopicInfo
from app.bus.keys import check_key_expr, command_key, robot_key, uplink_key
from app.bus.presence import RobotPresence
from app.bus.session import BusSession
from app.codec.decode import encoding_for
from app.codec.errors import DecodeError, MalformedMessage
from app.ros2.cdr import RosTypes
from app.ros2.commands import GoalOutput, RosNode, RosOutput, VelocityOutput
from app.ros2.definitions import definition_folders
from app.ros2.graph import RosGraph, RosRobot, RosTopic
from app.ros2.rmw_keys import ADMIN_SPACE, MalformedToken, parse_token
from app.ros2.services import UPLINK, ServiceCaller, callable_services, capabilities_of
from app.ros2.streams import Deliver, InboundStream
from app.ros2.translate import Translation, translation_for

GRAPH_KEY = f"{ADMIN_SPACE}/**"
MODEL = "ROS 2 (rmw_zenoh)"
FLEET_COMMAND = "fleet.Command"
UPLINK_ENCODING = encoding_for(UPLINK)
CAPABILITIES_EVERY_S = 2.0  # a ROS 2 robot's buttons said again, as a robot of ours does
# The velocity input a ROS 2 robot drives from (Nav2, teleop_twist_joy, twist_mux), under
# its namespace
VELOCITY_TOPIC = "cmd_vel"
VELOCITY_TYPES = ("geometry_msgs/msg/Twist", "geometry_msgs/msg/TwistStamped")
# The goal input Nav2's RViz tool sends to, under its namespace; goals reach it as isaac
# goals in the robot's local frame (the only goal command of ours that names its frame)
GOAL_TOPIC, GOAL_TYPE = "goal_pose", "geometry_msgs/msg/PoseStamped"
GOAL2 = "isaac.Goal2Proto"


def goal_key(root: str, robot_id: str) -> str:
    return f"{robot_key(robot_id, root)}/command/goal_pose"


def shown(robot: RosRobot, types: RosTypes | None) -> list[tuple[RosTopic, Translation]]:
    """The robot's topics the station can show, each with its translation (given the
    ``types`` that define them, any type they define: its own struct)."""
    return [(topic, translation) for topic in robot.publishers
            if (translation := translation_for(topic.type_name, topic.name, types))
            is not None]


def ros2_topics(robot: RosRobot, root: str, types: RosTypes | None = None
                ) -> list[tuple[RosTopic, str]]:
    """Every topic the robot publishes, with the key the station says it again on ("" for a
    type it cannot show)."""
    return [(topic, fleet_key(root, topic, translation) if translation is not None else "")
            for topic in robot.publishers
            for translation in [translation_for(topic.type_name, topic.name, types)]]


def fleet_key(root: str, topic: RosTopic, translation: Translation) -> str:
    """Where a topic's translation goes: ``/rover_1/scan`` -> ``fleet/rover_1/scan``, a
    battery to ``fleet/rover_1/uplink/battery`` (a robot of ours says it there)."""
    return check_key_expr(f"{robot_key(topic.robot_id, root)}/{translation.key or topic.local}")


@dataclass(frozen=True)
class VelocityInputs:
    """A ROS 2 robot's velocity inputs (Twist or TwistStamped subscriptions) by their name
    under its namespace, the one chosen for it (None: none chosen) and the one the rule of
    :func:`velocity_input` takes without a choice (None: none)."""

    found: tuple[str, ...] = ()
    chosen: str | None = None
    automatic: str | None = None


def velocity_inputs(robot: RosRobot | None, chosen: str | None) -> VelocityInputs:
    if robot is None:
        return VelocityInputs(chosen=chosen)
    automatic = velocity_input(robot)
    return VelocityInputs(
        tuple(sorted(t.local for t in robot.subscriptions if t.type_name in VELOCITY_TYPES)),
        chosen,
        automatic.local if automatic is not None else None)


def velocity_input(robot: RosRobot, chosen: str | None = None) -> RosTopic | None:
    """The robot's subscription teleop drives. ``chosen`` (configured for the robot, by its
    name under the namespace or its full name): that one, or None while the robot has no
    such input, never another in its place. Else ``<namespace>/cmd_vel`` of a Twist type;
    without one, its only Twist subscription whose name ends in ``cmd_vel``
    (``diff_drive_controller/cmd_vel``). None when there is none, or several and no
    ``cmd_vel`` (a twist_mux's inputs: which one is teleop's is the robot team's call)."""
    twists = [t for t in robot.subscriptions if t.type_name in VELOCITY_TYPES]
    if chosen is not None:
        return next((t for t in twists if chosen in (t.local, t.name)), None)
    exact = next((t for t in twists if t.local == VELOCITY_TOPIC), None)
    if exact is not None:
        return exact
    named = [t for t in twists if t.local.rsplit("/", 1)[-1] == VELOCITY_TOPIC]
    return named[0] if len(named) == 1 else None


def goal_input(robot: RosRobot) -> RosTopic | None:
    """The robot's subscription goals go to: ``<namespace>/goal_pose``, a PoseStamped."""
    return next((t for t in robot.subscriptions
                 if t.local == GOAL_TOPIC and t.type_name == GOAL_TYPE), None)


def catalog_of(robot: RosRobot, root: str, types: RosTypes | None = None,
               velocity: str | None = None) -> Catalog:
    """What the station knows a robot of ours by, made from its graph: the topics it can
    show, fleet ``Command.teleop`` when the robot has a velocity input (``velocity``: the
    one chosen for it, see :func:`velocity_input`), an isaac goal when it has a goal
    input, and fleet service calls with their capabilities and answers when it serves a
    service the station can call (app.ros2.services)."""
    topics = [TopicInfo(fleet_key(root, topic, translation), translation.type_name,
                        latched=topic.transient_local)
              for topic, translation in shown(robot, types)]
    commands = [TopicInfo(command_key(robot.robot_id, "teleop", root), FLEET_COMMAND)] \
        if velocity_input(robot, velocity) is not None else []
    if goal_input(robot) is not None:
        commands.append(TopicInfo(goal_key(root, robot.robot_id), GOAL2))
    if callable_services(robot):  # its buttons, and the answers to their calls
        topics += [TopicInfo(uplink_key(robot.robot_id, member, root), UPLINK)
                   for member in ("capabilities", "message")]
        commands.append(TopicInfo(command_key(robot.robot_id, "service", root), FLEET_COMMAND))
    return Catalog(robot.robot_id, name=robot.robot_id, model=MODEL, families=["ros2"],
                   topics=topics, commands=commands)


class RosSource:
    def __init__(self, bus: BusSession, root: str,
                 on_presence: Callable[[RobotPresence], None],
                 on_catalog: Callable[[str, Catalog], None],
                 count_error: Callable[[str, DecodeError], None],
                 wake: Callable[[], None], station_id: str = "", drive: bool = True,
                 types: RosTypes | None = None, deliver: Deliver | None = None) -> None:
        """``drive``: teleop may drive the robots (a velocity output each); a listing of
        topics says nothing on the graph. ``deliver``: where the translated samples go
        within the process (the station's subscription), else they are put session-local."""
        self._deliver = deliver
        self.graph = RosGraph()
        self._bus = bus
        self._root = root
        self._on_presence = on_presence
        self._on_catalog = on_catalog
        self._count_error = count_error
        self._wake = wake
        self._types = types
        self._seen_version = -1
        self._robots: dict[str, RosRobot] = {}
        self._catalogs: dict[str, Catalog] = {}
        self._streams: dict[str, InboundStream] = {}
        self._outputs: dict[tuple[str, str], RosOutput] = {}  # (robot, "velocity" | "goal")
        self._callers: dict[str, ServiceCaller] = {}  # robot id -> its services' client
        self._capabilities_at = 0.0  # time.monotonic() they were last said
        self._node = RosNode(bus, station_id)
        self._drive = drive
        self._chosen: dict[str, str] = {}  # robot id -> its velocity input chosen
        self._rechoose = False
        self._own_zid = str(bus.zenoh.info.zid())  # the station's own node is no robot
        self._tokens = bus.declare_liveliness_subscriber(GRAPH_KEY, self._on_token)

    def robots(self) -> dict[str, RosRobot]:
        return dict(self._robots)

    def choose_velocity_inputs(self, chosen: Mapping[str, str]) -> None:
        """From the next update teleop drives, of each robot named, the input named (the
        rest by the rule of :func:`velocity_input`); a robot's catalog offers teleop only
        while it has that input."""
        self._chosen = dict(chosen)  # swapped whole, then flagged: the worker reads it
        self._rechoose = True
        self._wake()

    def name_robots(self, names: Mapping[str, str]) -> None:
        """From the next update, the robot the rule calls ``x`` is ``names[x]`` (a
        configured mapping, app.station.ros2_robot_names); one renamed goes offline under
        its old id."""
        self.graph.name_robots(names)
        self._wake()

    def definitions(self) -> tuple[list[str], list[str]]:
        """The types read from .msg files (app.ros2.definitions) and the files refused;
        nothing before the first ROS 2 robot made the store."""
        types = self._types
        return (list(types.custom), list(types.problems)) if types is not None else ([], [])

    @property
    def types(self) -> RosTypes:
        """The ROS 2 types this source knows (rosbags' store, made on first use)."""
        return self._store()

    def update(self) -> None:
        """Robots and their catalogs as the graph has them now; each topic heard as wanted."""
        version = self.graph.version
        if version != self._seen_version or self._rechoose:
            self._seen_version, self._rechoose = version, False
            self._follow(self.graph.robots())
        for stream in list(self._streams.values()):
            stream.update()
        now = time.monotonic()
        if self._callers and now - self._capabilities_at >= CAPABILITIES_EVERY_S:
            self._capabilities_at = now
            self._say_capabilities()

    def close(self) -> None:
        for stream in self._streams.values():
            stream.close()
        for output in self._outputs.values():
            output.close()
        for caller in self._callers.values():
            caller.close()
        self._streams, self._outputs, self._callers = {}, {}, {}
        self._node.close()
        self._bus.release(self._tokens)

    def _on_token(self, sample: Any) -> None:
        key = str(sample.key_expr)
        if sample.kind == zenoh.SampleKind.DELETE:
            self.graph.delete(key)
        else:
            try:
                entity = parse_token(key)
            except MalformedToken as exc:
                self._count_error(ADMIN_SPACE, MalformedMessage(str(exc)))
                return
            if entity.zid == self._own_zid:
                return
            self.graph.put(key, entity)
        self._wake()

    def _follow(self, robots: dict[str, RosRobot]) -> None:
        # what its catalog will offer is ready first: a goal sent as soon as it is listed
        self._keep_streams(robots)
        self._keep_outputs(robots)
        now = time.monotonic()
        gone, came = self._robots.keys() - robots.keys(), robots.keys() - self._robots.keys()
        self._robots = robots
        for robot_id in sorted(gone):
            self._catalogs.pop(robot_id, None)
            self._on_presence(RobotPresence(robot_id, False, now))
        for robot_id, robot in sorted(robots.items()):
            if robot_id in came:
                self._on_presence(RobotPresence(robot_id, True, now))
            catalog = catalog_of(robot, self._root, self._store(),
                                 self._chosen.get(robot_id))
            if catalog != self._catalogs.get(robot_id):
                self._catalogs[robot_id] = catalog
                self._on_catalog(robot_id, catalog)

    def _keep_streams(self, robots: dict[str, RosRobot]) -> None:
        wanted = {fleet_key(self._root, topic, translation): (topic, translation)
                  for robot in robots.values()
                  for topic, translation in shown(robot, self._store())}
        for key in [k for k, s in self._streams.items() if wanted.get(k, ())[:1] != (s.topic,)]:
            self._streams.pop(key).close()
        for key, (topic, translation) in wanted.items():
            if key not in self._streams:
                self._streams[key] = InboundStream(self._bus, key, topic, translation,
                                                   self._store(), self._count_error,
                                                   self._wake, self._deliver)

    def _keep_outputs(self, robots: dict[str, RosRobot]) -> None:
        wanted = {}
        for robot_id, robot in robots.items() if self._drive else ():
            velocity = velocity_input(robot, self._chosen.get(robot_id))
            for kind, topic in (("velocity", velocity), ("goal", goal_input(robot))):
                if topic is not None:
                    wanted[robot_id, kind] = topic
        for slot in [s for s, o in self._outputs.items() if wanted.get(s) != o.topic]:
            self._outputs.pop(slot).close()
        for (robot_id, kind), topic in wanted.items():
            if (robot_id, kind) in self._outputs:
                continue
            self._outputs[robot_id, kind] = VelocityOutput(
                self._bus, self._root, robot_id, topic, self._node, self._store()) \
                if kind == "velocity" else GoalOutput(
                self._bus, goal_key(self._root, robot_id), topic, self._node, self._store())
        self._keep_callers(robots)

    def _keep_callers(self, robots: dict[str, RosRobot]) -> None:
        """A client of each robot's callable services, while the station drives and its
        answers can be said within it; their capabilities said at once when they change."""
        said = self._deliver
        wanted = {robot_id: robot for robot_id, robot in robots.items()
                  if self._drive and said is not None and callable_services(robot)}
        for robot_id in [r for r, c in self._callers.items()
                         if r not in wanted or c.services != callable_services(wanted[r])]:
            self._callers.pop(robot_id).close()
        for robot_id, robot in wanted.items():
            if robot_id not in self._callers and said is not None:
                self._callers[robot_id] = ServiceCaller(
                    self._bus, self._root, robot, self._node, self._store(),
                    lambda key, encoding, payload: said(key, encoding, payload, None, None))
                self._capabilities_at = 0.0

    def _say_capabilities(self) -> None:
        if self._deliver is None:
            return
        sent_ms = time.time_ns() // 10**6
        for robot_id in self._callers:
            robot = self._robots.get(robot_id)
            if robot is not None:
                self._deliver(uplink_key(robot_id, "capabilities", self._root),
                              UPLINK_ENCODING, capabilities_of(robot, sent_ms), None, None)

    def _store(self) -> RosTypes:
        if self._types is None:
            self._types = RosTypes(definition_folders())
        return self._types
