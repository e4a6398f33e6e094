"""The station's commands to a ROS 2 robot, said as a ROS 2 node would on rmw_zenoh.

A ROS 2 robot's catalog lists fleet ``Command.teleop`` (app.ros2.source), so the teleop
session, its arming machine, stop bursts, e-stop and command authority drive it as any robot
of ours, through the outbox. :class:`RosCommands` hears those commands on the station's own
session only (never another station's) and says each again on the robot's velocity input:
a ``geometry_msgs/Twist`` (or ``TwistStamped``) in CDR on its rmw_zenoh key, with the
attachment and the publisher's liveliness token rmw_zenoh gives every publication, with the
QoS the command came with (a stop reliable and blocking). ``teleop`` is the Twist; an
engaged ``estop`` is a zero Twist (a ROS 2 robot has no standard e-stop input: the station
says stop, and the robot's own timeout, twist_mux's, stops it when nothing more comes).
"""

from __future__ import annotations

import contextlib
import itertools
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
STAMPED = "geometry_msgs/msg/TwistStamped"
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
        if domain not in self._node_tokens:
            node = Entity(domain, self._zid, 0, 0, EntityKind.NODE, "/", "/", self.name)
            self._node_tokens[domain] = self._bus.declare_token(build_token(node))
        entity = Entity(domain, self._zid, 0, next(self._entity_ids), EntityKind.PUBLISHER,
                        "/", "/", self.name, topic.name, topic.type_name, topic.type_hash,
                        DEFAULT_QOS)
        return self._bus.declare_token(build_token(entity)), os.urandom(16)

    def close(self) -> None:
        for token in self._node_tokens.values():
            self._bus.release(token)
        self._node_tokens = {}


class VelocityOutput:
    """One robot's velocity input: fleet commands heard from this station's own outbox,
    said again there as Twists."""

    def __init__(self, bus: BusSession, root: str, robot_id: str, topic: RosTopic,
                 node: RosNode, types: RosTypes) -> None:
        self.topic = topic
        self._bus = bus
        self._types = types
        self._key = topic_key(topic.domain, topic.name, topic.type_name, topic.type_hash)
        self._token, self._gid = node.publisher_token(topic.domain, topic)
        self._seq = itertools.count(1)
        self._lock = threading.Lock()  # one sequence, in order, whoever calls
        self._subscribers = [
            bus.keep(bus.zenoh.declare_subscriber(
                command_key(robot_id, member, root), self._receive,
                allowed_origin=zenoh.Locality.SESSION_LOCAL))
            for member in ("teleop", "estop")]

    def close(self) -> None:
        for handle in (*self._subscribers, self._token):
            self._bus.release(handle)

    def _receive(self, sample: Any) -> None:
        try:
            command = decode(FLEET_COMMAND, sample.payload.to_bytes()).root
            member = active_member(command)
            if member == "teleop":
                linear, angular = command.teleop.linearMps, command.teleop.angularRps
            elif member == "estop" and command.estop.engage:
                linear = angular = 0.0
            else:
                return
        except DecodeError:
            return  # our own outbox's bytes: cannot happen, and is no robot's business
        self._say(float(linear), float(angular), sample)

    def _say(self, linear: float, angular: float, sample: Any) -> None:
        vector = "geometry_msgs/msg/Vector3"
        twist = self._types.message(
            "geometry_msgs/msg/Twist",
            linear=self._types.message(vector, x=linear, y=0.0, z=0.0),
            angular=self._types.message(vector, x=0.0, y=0.0, z=angular))
        now = time.time_ns()
        if self.topic.type_name == STAMPED:
            stamp = self._types.message("builtin_interfaces/msg/Time", sec=now // 10**9,
                                        nanosec=now % 10**9)
            header = self._types.message("std_msgs/msg/Header", stamp=stamp,
                                         frame_id=BASE_FRAME)
            twist = self._types.message(STAMPED, header=header, twist=twist)
        payload = self._types.encode(self.topic.type_name, twist)
        with self._lock:
            attachment = build_attachment(next(self._seq), now, self._gid)
            with contextlib.suppress(zenoh.ZError):  # the session closed under it (reconnect)
                self._bus.zenoh.put(self._key, payload, attachment=attachment,
                                    congestion_control=sample.congestion_control,
                                    priority=sample.priority, express=sample.express)
