"""Foreign MCAP channels -> our samples: foxglove protobuf messages as Cap'n Proto ``foxglove.X``.

Another tool's file (the Foxglove SDK, a ROS bridge) carries foxglove schemas as protobuf:
schema encoding ``protobuf`` whose data is a FileDescriptorSet, message encoding
``protobuf``. Each message is decoded through those stored descriptors and copied, field by
name, into the struct schemas/foxglove.capnp translates it to (app.record.protobuf_capnp),
so the result is the sample a robot would have published, and everything downstream
(codec, converters, panels) reads it unchanged. Foxglove JSON channels (``json`` messages,
``jsonschema`` schemas) are read the same way, by the struct alone (app.record.json_capnp).
A channel plays on ``fleet/<robotId>/<topic>``, the characters zenoh reserves made ``_``.
:func:`foreign_translator` reads these and rosbag2's ROS 2 channels (app.record.ros2_bag).
"""

from __future__ import annotations

import json
import re
from typing import Any

import capnp
from google.protobuf.descriptor_pb2 import FileDescriptorSet
from google.protobuf.descriptor_pool import DescriptorPool
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass

from app.bus.keys import DEFAULT_ROOT, check_key_expr, robot_key
from app.codec.decode import encoding_for
from app.codec.registry import registry
from app.record.format import (
    ForeignChannel,
    ForeignChannelInfo,
    ForeignError,
    Translated,
    Translator,
)
from app.record.json_capnp import fill_json
from app.record.protobuf_capnp import Filler, compile_filler

FAMILY = "foxglove"
# Characters zenoh reserves in a key (wildcards, `$*`, selectors); '/' separates chunks.
_RESERVED = re.compile(r"[*$#?]")


def topic_key(robot_id: str, topic: str, root: str = DEFAULT_ROOT) -> str:
    """``/cam/image`` of robot ``r1`` -> ``fleet/r1/cam/image``: empty chunks dropped, the
    characters zenoh reserves replaced by ``_``."""
    chunks = [_RESERVED.sub("_", chunk) for chunk in topic.split("/") if chunk]
    return check_key_expr("/".join([robot_key(robot_id, root), *(chunks or ["_"])]))


class ProtobufChannel:
    """One foreign protobuf channel, translating each message to its capnp payload."""

    def __init__(self, key: str, type_name: str, message_class: Any, struct_type: Any,
                 fill: Filler) -> None:
        self.key = key
        self.encoding = encoding_for(type_name)
        self.type_name = type_name
        self._message_class = message_class
        self._struct_type = struct_type
        self._fill = fill

    def translate(self, data: bytes) -> Translated:
        message: Message = self._message_class()
        try:
            message.ParseFromString(data)
        except DecodeError as exc:
            raise ForeignError(f"{self.key}: not a protobuf {self.type_name}: {exc}") from None
        builder = self._struct_type.new_message()
        try:
            self._fill(builder, message)
        except (capnp.KjException, ValueError, TypeError, OverflowError) as exc:
            # capnp refuses a value its field cannot hold (a negative number for a UInt32)
            raise ForeignError(f"{self.key}: {self.type_name} does not translate: "
                               f"{_first_line(exc)}") from None
        return builder.to_bytes(), None


class JsonChannel:
    """One foreign foxglove JSON channel."""

    def __init__(self, key: str, type_name: str, struct_type: Any) -> None:
        self.key = key
        self.encoding = encoding_for(type_name)
        self.type_name = type_name
        self._struct_type = struct_type

    def translate(self, data: bytes) -> Translated:
        builder = self._struct_type.new_message()
        try:
            fill_json(builder, json.loads(data), self._struct_type.schema)
        except (capnp.KjException, ValueError, TypeError, OverflowError, RecursionError) as exc:
            # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
            raise ForeignError(f"{self.key}: {self.type_name} JSON does not translate: "
                               f"{_first_line(exc)}") from None
        return builder.to_bytes(), None


def foxglove_translator(info: ForeignChannelInfo, robot_id: str) -> ForeignChannel | None:
    """A :data:`~app.record.format.Translator`: the channel if it is a foxglove type that
    schemas/foxglove.capnp defines (by the same name), in protobuf or JSON, else None."""
    package, _, name = info.schema_name.rpartition(".")
    type_name = f"{FAMILY}.{name.replace('_', '')}"
    struct_type = registry().structs.get(type_name)
    if package != FAMILY or struct_type is None:
        return None
    encodings = (info.message_encoding, info.schema_encoding)
    if encodings == ("json", "jsonschema"):
        return JsonChannel(topic_key(robot_id, info.topic), type_name, struct_type)
    if encodings != ("protobuf", "protobuf"):
        return None
    descriptor = _message_descriptor(info.schema_data, info.schema_name)
    if descriptor is None:
        return None
    return ProtobufChannel(topic_key(robot_id, info.topic), type_name,
                           GetMessageClass(descriptor), struct_type,
                           compile_filler(descriptor, struct_type.schema))


def foreign_translator() -> Translator:
    """A new :data:`~app.record.format.Translator` for one file another tool wrote:
    foxglove protobuf and JSON channels, then rosbag2's ROS 2 ``cdr`` ones (whose
    definitions it keeps for that file)."""
    from app.record.ros2_bag import Ros2Translator  # it uses topic_key, from here

    ros2 = Ros2Translator()

    def translate(info: ForeignChannelInfo, robot_id: str) -> ForeignChannel | None:
        channel = foxglove_translator(info, robot_id)
        return channel if channel is not None else ros2(info, robot_id)

    return translate


def _first_line(exc: BaseException) -> str:
    """capnp's messages go on with a stack trace: the reason is the first line."""
    return (str(exc).splitlines() or [type(exc).__name__])[0]


def _message_descriptor(schema_data: bytes, full_name: str) -> Any:
    """``full_name``'s descriptor from a serialised FileDescriptorSet, or None if the set is
    damaged or lacks it."""
    try:
        files = {file.name: file for file in FileDescriptorSet.FromString(schema_data).file}
        pool = DescriptorPool()
        added: set[str] = set()

        def add(name: str) -> None:  # dependencies first, as the pool requires
            if name in added or name not in files:
                return
            added.add(name)
            for dependency in files[name].dependency:
                add(dependency)
            pool.Add(files[name])

        for name in files:
            add(name)
        return pool.FindMessageTypeByName(full_name)
    except (DecodeError, TypeError, KeyError):
        return None
