"""rosbag2 MCAP channels (``ros2 bag record -s mcap``) -> our samples, as a live ROS 2 robot's.

A rosbag2 channel carries CDR messages (message encoding ``cdr``) and its type's definition
(schema encoding ``ros2msg``: the type's ``.msg`` text, then each type it uses after a line of
``=`` and ``MSG: pkg/msg/Name``; or ``ros2idl``, the same with ``IDL:`` sections). Each
channel's definitions are parsed by rosbags into the file's one
:class:`~app.ros2.cdr.RosTypes` store, so a type decodes by the definition the file carries;
its messages are translated as a live robot's are (app.ros2.translate) and play on the key
the live robot's would. A bag does not say which node published what, so a robot is a
namespace with its own ``tf`` or ``odom`` (as each robot of a multi-robot setup has them):
``/rover_1/scan`` is then robot ``rover_1``'s ``fleet/rover_1/scan``; every other topic is
the file's robot's, under its full name (``/camera/image_raw`` of a one-robot bag is
``fleet/<file>/camera/image_raw``). A battery plays on ``fleet/<robot>/uplink/battery``; a
type with nothing to draw (a custom one) as its own struct (app.ros2.generic), for the
inspector and plots. A definition that does not parse and a message that does not decode
are said in one line each, never fatal.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from typing import Any

from app.codec.decode import encoding_for
from app.codec.errors import DecodeError
from app.record.foreign import topic_key
from app.record.format import ForeignChannel, ForeignChannelInfo, ForeignError, Translated
from app.ros2.cdr import RosTypes
from app.ros2.translate import Translation, Untranslatable, translate, translation_for

CDR = "cdr"
ROS2MSG = "ros2msg"
ROS2IDL = "ros2idl"
# A ROS 2 name segment (the design article "Topic and Service name mapping")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# What a robot's own namespace holds in a multi-robot setup (Nav2's, Gazebo's)
ROBOT_TOPICS = ("tf", "odom")
# The line of '=' and the header that start each type's section after the first
_SECTION = re.compile(r"^=+[ \t]*\n(MSG|IDL):[ \t]*(\S+)[ \t]*$", re.MULTILINE)
# An IDL preprocessor line (#include "std_msgs/msg/Header.idl"), which rosbags does not parse
_DIRECTIVE = re.compile(r"^[ \t]*#.*$", re.MULTILINE)


def robot_namespaces(file_topics: tuple[str, ...]) -> frozenset[str]:
    """The namespaces of a file that are robots: those with their own tf or odom."""
    return frozenset(chunks[0] for topic in file_topics
                     if len(chunks := topic.strip("/").split("/")) == 2
                     and chunks[1] in ROBOT_TOPICS and _NAME.match(chunks[0]))


def robot_and_name(topic: str, file_robot: str, robots: frozenset[str]) -> tuple[str, str]:
    """``/rover_1/scan`` -> (``rover_1``, ``scan``) when ``rover_1`` is one of the file's
    ``robots``; else the file's robot and the topic's full name."""
    chunks = [chunk for chunk in topic.split("/") if chunk]
    if len(chunks) > 1 and chunks[0] in robots:
        return chunks[0], "/".join(chunks[1:])
    return file_robot, "/".join(chunks)


def full_type_name(name: str) -> str:
    """``pkg/msg/Name`` (a definition may say ``pkg/Name``)."""
    package, _, rest = name.partition("/")
    return f"{package}/msg/{rest}" if rest and "/" not in rest else name


def parse_definitions(ros_type: str, schema_encoding: str, text: str) -> dict[str, Any]:
    """rosbags' parse of a channel's definitions (``get_types_from_msg`` of each ``MSG:``
    section, ``get_types_from_idl`` of each ``IDL:`` one): the typesdict ``RosTypes.add``
    takes. Raises whatever rosbags raises on a text that does not parse."""
    from rosbags.typesys import get_types_from_idl, get_types_from_msg

    kind = "MSG" if schema_encoding == ROS2MSG else "IDL"
    parts = _SECTION.split(text.replace("\r\n", "\n"))
    sections = [(parts[i], parts[i + 1], parts[i + 2]) for i in range(1, len(parts), 3)]
    if parts[0].strip() or not sections:  # else the text starts with a section (rosbag2's IDL)
        sections.insert(0, (kind, ros_type, parts[0]))
    types: dict[str, Any] = {}
    for section, name, body in sections:
        if section != kind:
            raise ValueError(f"an {section} section in a {schema_encoding} definition")
        if kind == "MSG":  # an empty one is a message without fields (std_msgs/msg/Empty)
            types.update(get_types_from_msg(body.strip("\n") + "\n", full_type_name(name)))
        else:  # rosidl's #include lines name files: each type they bring has its section
            types.update(get_types_from_idl(_DIRECTIVE.sub("", body).strip("\n") + "\n"))
    return types


class CdrChannel:
    """One rosbag2 channel: each CDR message decoded by the file's definitions and
    translated, to one sample or (a DiagnosticArray) one per status."""

    def __init__(self, key: str, ros_type: str, translation: Translation, types: RosTypes,
                 robot_id: str) -> None:
        self.key = key
        self.encoding = encoding_for(translation.type_name)
        self.ros_type = ros_type
        self.translation = translation
        self.types = types
        self.robot_id = robot_id

    def translate(self, data: bytes) -> Sequence[Translated]:
        try:
            message = self.types.decode(self.ros_type, data)
            said = translate(self.translation, self.ros_type, message, self.robot_id)
        except DecodeError as exc:  # its text names the type when it is malformed
            text = str(exc) if str(exc).startswith(self.ros_type) \
                else f"{self.ros_type}: {exc}"
            raise ForeignError(f"{exc.kind}: {text}") from None
        except Untranslatable as exc:
            raise ForeignError(str(exc)) from None
        return said


class Ros2Translator:
    """A :data:`~app.record.format.Translator` for one file's rosbag2 channels (``cdr``
    messages); None for any other channel. Its definitions go to one store per file, so one
    file's custom types never meet another's; a channel whose definition differs from
    another of the same name in the file gets a store of its own."""

    def __init__(self) -> None:
        self._types: RosTypes | None = None
        self._lock = threading.Lock()

    @property
    def types(self) -> RosTypes:
        """The file's types: ROS 2 Jazzy's and every definition its channels carried."""
        with self._lock:
            if self._types is None:
                self._types = RosTypes()
            return self._types

    def __call__(self, info: ForeignChannelInfo, robot_id: str) -> ForeignChannel | None:
        if info.message_encoding != CDR:
            return None
        if not info.schema_name:
            raise ForeignError("cdr messages without a type definition are not readable here")
        ros_type = full_type_name(info.schema_name)
        if info.schema_encoding not in (ROS2MSG, ROS2IDL):
            raise ForeignError(f"{ros_type}: {info.schema_encoding or 'no'} definitions are "
                               "not readable here")
        types = self._store_with(ros_type, info)
        try:
            translation = translation_for(ros_type, info.topic, types)
        except ValueError as exc:  # its own struct: another definition of it came first
            raise ForeignError(f"{ros_type}: {exc}") from None
        if translation is None:  # the graph's plumbing
            raise ForeignError(f"{ros_type} on {info.topic} is no robot's data")
        robot, name = robot_and_name(info.topic, robot_id, robot_namespaces(info.file_topics))
        try:
            key = topic_key(robot, translation.key or name)
        except ValueError as exc:
            raise ForeignError(f"no key for it: {exc}") from None
        return CdrChannel(key, ros_type, translation, types, robot)

    def _store_with(self, ros_type: str, info: ForeignChannelInfo) -> RosTypes:
        """The store that has the channel's definitions."""
        from rosbags.typesys import TypesysError

        encoding = info.schema_encoding
        try:
            definitions = parse_definitions(ros_type, encoding, info.schema_data.decode())
        except Exception as exc:  # any failure of rosbags' parser: this channel is unread
            raise ForeignError(f"its {encoding} definition of {ros_type} does not parse: "
                               f"{_reason(exc)}") from None
        store = self.types
        self._check_complete(ros_type, encoding, definitions, store)
        try:
            store.add(definitions)
            return store
        except TypesysError:
            pass  # another channel's definition of a type it uses differs: a store of its own
        except Exception as exc:  # rosbags could not make classes of it
            raise ForeignError(f"its {encoding} definition of {ros_type} cannot be used: "
                               f"{_reason(exc)}") from None
        own = RosTypes()
        self._check_complete(ros_type, encoding, definitions, own)
        try:
            own.add(definitions)
        except Exception as exc:  # a TypesysError: it differs from ROS 2 Jazzy's own
            why = "differs from ROS 2 Jazzy's" if isinstance(exc, TypesysError) \
                else "cannot be used"
            raise ForeignError(f"its {encoding} definition of {ros_type} {why}: "
                               f"{_reason(exc)}") from None
        return own

    @staticmethod
    def _check_complete(ros_type: str, encoding: str, definitions: dict[str, Any],
                        store: RosTypes) -> None:
        """ForeignError unless the definitions, with the store's, define every type used."""
        missing = sorted(name for name in uses(definitions)
                         if name not in definitions and not store.knows(name))
        if ros_type not in definitions or missing:
            raise ForeignError(f"its {encoding} definition of {ros_type} lacks "
                               f"{', '.join(missing) or ros_type}")


def uses(definitions: dict[str, Any]) -> set[str]:
    """Every type the definitions' fields name (rosbags' parse trees)."""
    from rosbags.interfaces import Nodetype

    names: set[str] = set()

    def walk(node: tuple[int, Any]) -> None:
        kind, description = node
        if kind == Nodetype.NAME:
            names.add(description)
        elif kind in (Nodetype.ARRAY, Nodetype.SEQUENCE):
            walk(description[0])

    for _, fields in definitions.values():
        for _, node in fields:
            walk(node)
    return names


def _reason(exc: BaseException) -> str:
    """The first line of rosbags' message; where its parser stopped, for a text that does
    not parse (its message goes on with the whole text)."""
    lines = str(exc).splitlines()
    if len(lines) > 3 and lines[0].startswith("Could not parse"):
        return f"at {lines[3].strip()[:60]!r}"
    line = (lines or [""])[0].strip().rstrip(":")
    return line or type(exc).__name__
