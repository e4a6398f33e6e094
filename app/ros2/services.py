"""A ROS 2 robot's services that the Capabilities panel calls, as an rmw_zenoh client would:
``std_srvs`` Trigger, SetBool and Empty, what robots offer for "reset", "enable motors",
"dock".

The robot's capabilities, a fleet ``UiCapabilities`` made from its graph, list each of them
as a service named by its name under the robot's namespace. Trigger and Empty are one button
each. SetBool is two buttons, ``<name>: true`` and ``<name>: false``, because the graph
does not tell its state, so no on/off switch shows one. Every one is of warning danger: the
station cannot know what a robot's service does, so the operator is asked first.

A call from the panel is a fleet ``Command.service`` on the robot's service key, heard on the
station's own session only. It is said as the request: a zenoh get on the service's key,
with its CDR and the attachment a client gives. The answer, its success and message, or its
absence, comes back as a ``RobotMessage`` of the robot, as one of ours answers a call.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import zenoh

from app.bus.keys import command_keys, uplink_key
from app.bus.session import BusSession
from app.codec.decode import decode, encoding_for
from app.codec.errors import DecodeError
from app.codec.fields import active_member
from app.codec.registry import registry
from app.ros2.graph import RosRobot, RosTopic
from app.ros2.rmw_keys import build_attachment, topic_key

if TYPE_CHECKING:
    from app.ros2.cdr import RosTypes
    from app.ros2.commands import RosNode

TRIGGER, SET_BOOL, EMPTY = "std_srvs/srv/Trigger", "std_srvs/srv/SetBool", "std_srvs/srv/Empty"
# std_srvs (ros2/common_interfaces): (request, response); an empty structure has one uint8,
# as rosidl makes it
EMPTY_STRUCT = "uint8 structure_needs_at_least_one_member\n"
ANSWER = "bool success\nstring message\n"
DEFINITIONS = {TRIGGER: (EMPTY_STRUCT, ANSWER), SET_BOOL: ("bool data\n", ANSWER),
               EMPTY: (EMPTY_STRUCT, EMPTY_STRUCT)}
CALLABLE = (TRIGGER, SET_BOOL, EMPTY)
SET_BOOL_STATES = {"true": True, "false": False}  # the button's suffix -> the request's data
ANSWER_TIMEOUT_S = 10.0  # rmw_zenoh's client waits for ever; the operator is told sooner
UPLINK = "fleet.Uplink"
COMMAND = "fleet.Command"
ROLE = "operator"  # the role a call needs: as driving

# (fleet key, encoding, payload) said within the station: app.ros2.streams.Deliver, less
# what a service's samples never have
Say = Callable[[str, str, bytes], None]


def definitions() -> dict[str, Any]:
    """The definitions, as rosbags parses them (``RosTypes`` registers them)."""
    from rosbags.typesys import get_types_from_msg

    types: dict[str, Any] = {}
    for service_type, (request, response) in DEFINITIONS.items():
        types.update(get_types_from_msg(request, request_type(service_type)))
        types.update(get_types_from_msg(response, response_type(service_type)))
    return types


def request_type(service_type: str) -> str:
    """The name rosbags' store knows a service's request by: ``std_srvs/srv/Trigger`` ->
    ``std_srvs/srv/msg/Trigger_Request`` (it puts every type under ``msg``)."""
    return f"{service_type.replace('/srv/', '/srv/msg/', 1)}_Request"


def response_type(service_type: str) -> str:
    """The same for its response."""
    return f"{service_type.replace('/srv/', '/srv/msg/', 1)}_Response"


def callable_services(robot: RosRobot) -> tuple[RosTopic, ...]:
    return tuple(s for s in robot.services if s.type_name in CALLABLE)


def buttons(service: RosTopic) -> list[str]:
    """The names of a service's buttons in the capabilities."""
    if service.type_name == SET_BOOL:
        return [f"{service.local}: {state}" for state in SET_BOOL_STATES]
    return [service.local]


def capabilities_of(robot: RosRobot, sent_ms: int) -> bytes:
    """The robot's fleet Uplink ``capabilities``: a button per callable service."""
    uplink = registry().struct(UPLINK).new_message(robotId=robot.robot_id, unixTimeMs=sent_ms)
    named = [(service, name) for service in callable_services(robot)
             for name in buttons(service)]
    listed = uplink.init("capabilities").init("services", len(named))
    for entry, (service, name) in zip(listed, named, strict=True):
        entry.name = entry.label = name
        entry.type = "trigger"
        entry.dangerLevel = "warning"
        entry.minRole = ROLE
        entry.description = (f"ROS 2 service {service.name} ({service.type_name}): the "
                             "station cannot know what it does")
    return bytes(uplink.to_bytes())


class ServiceCaller:
    """Hears this station's service calls to one ROS 2 robot and makes them as requests of
    its services, a client of each on ``node``; says each answer as a ``RobotMessage`` of
    the robot."""

    def __init__(self, bus: BusSession, root: str, robot: RosRobot, node: RosNode,
                 types: RosTypes, say: Say) -> None:
        self.services = callable_services(robot)
        self._robot_id = robot.robot_id
        self._bus = bus
        self._types = types
        self._say = say
        self._message_key = uplink_key(robot.robot_id, "message", root)
        self._by_button = {b: s for s in self.services for b in buttons(s)}
        self._clients = {s.name: node.client_token(s.domain, s) for s in self.services}
        self._seq = itertools.count(1)
        self._seq_lock = threading.Lock()
        self._subscribers = [
            bus.keep(bus.zenoh.declare_subscriber(
                key, self._receive, allowed_origin=zenoh.Locality.SESSION_LOCAL))
            for key in command_keys(robot.robot_id, "service", root)]

    def close(self) -> None:
        for handle in self._subscribers + [token for token, _ in self._clients.values()]:
            self._bus.release(handle)

    def _receive(self, sample: Any) -> None:
        try:
            command = decode(encoding_for(COMMAND), sample.payload.to_bytes()).root
        except DecodeError:
            return  # our own outbox's bytes: cannot happen
        if active_member(command) != "service":
            return
        button = str(command.service.name)
        service = self._by_button.get(button)
        if service is None:
            self._tell("warn", f"{button}: no such service on {self._robot_id}")
            return
        # a get waits for its answer: not on zenoh's thread
        threading.Thread(target=self._call, args=(button, service), daemon=True,
                         name=f"ros2 call {service.name}").start()

    def _call(self, button: str, service: RosTopic) -> None:
        asked = request_type(service.type_name)
        if service.type_name == SET_BOOL:
            request = self._types.message(asked, data=SET_BOOL_STATES[button.rsplit(" ", 1)[1]])
        else:
            request = self._types.message(asked, structure_needs_at_least_one_member=0)
        payload = self._types.encode(asked, request)
        with self._seq_lock:
            attachment = build_attachment(next(self._seq), time.time_ns(),
                                          self._clients[service.name][1])
        key = topic_key(service.domain, service.name, service.type_name, service.type_hash)
        answer = f"{button}: no answer from {service.name} in {ANSWER_TIMEOUT_S:g} s"
        level = "warn"
        with contextlib.suppress(zenoh.ZError):  # the session closed under it: no answer
            for reply in self._bus.zenoh.get(
                    key, payload=payload, attachment=attachment,
                    target=zenoh.QueryTarget.ALL_COMPLETE,
                    consolidation=zenoh.ConsolidationMode.NONE, timeout=ANSWER_TIMEOUT_S):
                level, answer = self._answer(button, service, reply)
                break
        self._tell(level, answer)

    def _answer(self, button: str, service: RosTopic, reply: Any) -> tuple[str, str]:
        if reply.err is not None:
            return "warn", f"{button}: {service.name} refused the call: " \
                           f"{reply.err.payload.to_string()}"
        try:
            response = self._types.decode(response_type(service.type_name),
                                          reply.ok.payload.to_bytes())
        except DecodeError as exc:
            return "warn", f"{button}: {service.name} answered what is no " \
                           f"{service.type_name} response: {exc}"
        if service.type_name == EMPTY:
            return "info", f"{button}: done"
        said = f" — {response.message}" if response.message else ""
        if response.success:
            return "info", f"{button}: succeeded{said}"
        return "warn", f"{button}: failed{said}"

    def _tell(self, level: str, text: str) -> None:
        uplink = registry().struct(UPLINK).new_message(
            robotId=self._robot_id, unixTimeMs=time.time_ns() // 10**6)
        message = uplink.init("message")
        message.level, message.text = level, text
        self._say(self._message_key, encoding_for(UPLINK), bytes(uplink.to_bytes()))
