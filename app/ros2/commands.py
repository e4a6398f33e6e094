"""The station's commands to a ROS 2 robot, said as a ROS 2 node would on rmw_zenoh.

A ROS 2 robot's catalog lists fleet ``Command.teleop`` (app.ros2.source), so the teleop
session, its arming machine, stop bursts, e-stop and command authority drive it as any robot
of ours, through the outbox. :class:`VelocityOutput` hears those commands on the station's
own session only (never another station's) and says each again on the robot's velocity input:
a ``geometry_msgs/Twist`` (or ``TwistStamped``) in CDR on its rmw_zenoh key, with the
attachment and the publisher's liveliness token rmw_zenoh gives every publication, with the
QoS the command came with (a stop reliable and blocking). ``teleop`` is the Twist; an
engaged ``estop`` is a zero Twist (a ROS 2 robot has no standard e-stop input: the station
says stop, and the robot's own timeout, twist_mux's, stops it when nothing more comes).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import threading
import time
from typing import Any

import zenoh

from app.bus.keys import command_key
from app.bus.session import BusSession
from app.codec.decode import decode
from app.codec.errors import DecodeError
from app.codec.fields import active_member
from app.ros2.cdr import RosTypes
from app.ros2.graph import RosTopic
from app.ros2.rmw_keys import (
    DEFAULT_QOS,
    Entity,
    EntityKind,
    build_attachment,
    build_token,
    topic_key,
)

FLEET_COMMAND = "application/capnp;fleet.Command"
GOAL2 = "application/capnp;isaac.Goal2Proto"
STAMPED = "geometry_msgs/msg/TwistStamped"
POSE_STAMPED = "geometry_msgs/msg/PoseStamped"
GOAL_FRAME = "map"  # a goal that names no frame: Nav2's global frame
BASE_FRAME = "base_link"  # a TwistStamped's frame: the robot's body, as Nav2 sends it


class RosNode:
    """The station on a ROS 2 domain: a node ``/fieldstation_<station>`` with a publisher
    token per topic it says something on."""

    def __init__(self, bus: BusSession, station_id: str) -> None:
        self._bus = bus
        self.name = f"fieldstation_{station_id[:8] or 'station'}"
        self._zid = str(bus.zenoh.info.zid())
        self._entity_ids = itertools.count(1)
        self._node_tokens: dict[int, Any] = {}

    def publisher_token(self, domain: int, topic: RosTopic) -> tuple[Any, bytes]:
        """Declares the node on ``domain`` (once) and a publisher of ``topic``; returns the
        publisher's token and its GID."""
        return self._token(domain, topic, EntityKind.PUBLISHER)

    def client_token(self, domain: int, service: RosTopic) -> tuple[Any, bytes]:
        """The same for a client of ``service``."""
        return self._token(domain, service, EntityKind.CLIENT)

    def _token(self, domain: int, topic: RosTopic, kind: EntityKind) -> tuple[Any, bytes]:
        if domain not in self._node_tokens:
            node = Entity(domain, self._zid, 0, 0, EntityKind.NODE, "/", "/", self.name)
            self._node_tokens[domain] = self._bus.declare_token(build_token(node))
        entity = Entity(domain, self._zid, 0, next(self._entity_ids), kind, "/", "/",
                        self.name, topic.name, topic.type_name, topic.type_hash, DEFAULT_QOS)
        return self._bus.declare_token(build_token(entity)), os.urandom(16)

    def close(self) -> None:
        for token in self._node_tokens.values():
            self._bus.release(token)
        self._node_tokens = {}


class RosOutput:
    """One input of a robot (a subscription of its graph) that this station's own commands
    on ``keys`` are said again on, as an rmw_zenoh publisher of its type would."""

    def __init__(self, bus: BusSession, topic: RosTopic, node: RosNode, types: RosTypes,
                 keys: list[str]) -> None:
        self.topic = topic
        self._bus = bus
        self._types = types
        self._key = topic_key(topic.domain, topic.name, topic.type_name, topic.type_hash)
        self._token, self._gid = node.publisher_token(topic.domain, topic)
        self._seq = itertools.count(1)
        self._lock = threading.Lock()  # one sequence, in order, whoever calls
        self._subscribers = [
            bus.keep(bus.zenoh.declare_subscriber(
                key, self._receive, allowed_origin=zenoh.Locality.SESSION_LOCAL))
            for key in keys]

    def close(self) -> None:
        for handle in (*self._subscribers, self._token):
            self._bus.release(handle)

    def _receive(self, sample: Any) -> None:
        try:
            message = self.message_of(sample)
        except DecodeError:
            return  # our own outbox's bytes: cannot happen, and is no robot's business
        if message is not None:
            self._say(message, sample)

    def message_of(self, sample: Any) -> Any:
        """The ROS message a command says, or None when it says none here."""
        raise NotImplementedError

    def _header(self, frame: str) -> Any:
        now = time.time_ns()
        stamp = self._types.message("builtin_interfaces/msg/Time", sec=now // 10**9,
                                    nanosec=now % 10**9)
        return self._types.message("std_msgs/msg/Header", stamp=stamp, frame_id=frame)

    def _say(self, message: Any, sample: Any) -> None:
        payload = self._types.encode(self.topic.type_name, message)
        with self._lock:
            attachment = build_attachment(next(self._seq), time.time_ns(), self._gid)
            with contextlib.suppress(zenoh.ZError):  # the session closed under it (reconnect)
                self._bus.zenoh.put(self._key, payload, attachment=attachment,
                                    congestion_control=sample.congestion_control,
                                    priority=sample.priority, express=sample.express)


class VelocityOutput(RosOutput):
    """A robot's velocity input: teleop and e-stop commands as Twists."""

    def __init__(self, bus: BusSession, root: str, robot_id: str, topic: RosTopic,
                 node: RosNode, types: RosTypes) -> None:
        super().__init__(bus, topic, node, types,
                         [command_key(robot_id, member, root) for member in ("teleop", "estop")])

    def message_of(self, sample: Any) -> Any:
        command = decode(FLEET_COMMAND, sample.payload.to_bytes()).root
        member = active_member(command)
        if member == "teleop":
            linear, angular = command.teleop.linearMps, command.teleop.angularRps
        elif member == "estop" and command.estop.engage:
            linear = angular = 0.0
        else:
            return None
        vector = "geometry_msgs/msg/Vector3"
        twist = self._types.message(
            "geometry_msgs/msg/Twist",
            linear=self._types.message(vector, x=float(linear), y=0.0, z=0.0),
            angular=self._types.message(vector, x=0.0, y=0.0, z=float(angular)))
        if self.topic.type_name == STAMPED:
            return self._types.message(STAMPED, header=self._header(BASE_FRAME), twist=twist)
        return twist


class GoalOutput(RosOutput):
    """A robot's goal input (``goal_pose``, as Nav2's RViz tool sends): a goal picked in the
    3D view, an isaac ``Goal2Proto`` in the robot's local frame, as a ``PoseStamped``."""

    def __init__(self, bus: BusSession, key: str, topic: RosTopic, node: RosNode,
                 types: RosTypes) -> None:
        super().__init__(bus, topic, node, types, [key])

    def message_of(self, sample: Any) -> Any:
        goal = decode(GOAL2, sample.payload.to_bytes()).root
        x, y = goal.goal.translation.x, goal.goal.translation.y
        yaw = math.atan2(goal.goal.rotation.q.y, goal.goal.rotation.q.x)
        new = self._types.message
        pose = new("geometry_msgs/msg/Pose",
                   position=new("geometry_msgs/msg/Point", x=x, y=y, z=0.0),
                   orientation=new("geometry_msgs/msg/Quaternion", x=0.0, y=0.0,
                                   z=math.sin(yaw / 2), w=math.cos(yaw / 2)))
        return new(POSE_STAMPED, header=self._header(goal.goalFrame or GOAL_FRAME), pose=pose)
