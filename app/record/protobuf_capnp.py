"""A protobuf message -> the Cap'n Proto struct PROTOCOL.md's rule translates it to.

Fields are matched by name, never by number: protobuf ``frame_id`` is capnp ``frameId``, ``K``
is ``k`` (the rule's lowerCamelCase). ``google.protobuf.Timestamp`` and ``Duration`` fill a
``Time {sec, nsec}``; an enum value goes by its enumerant's name, or by its number when the
capnp enum has no such name (a newer writer: the station shows numbers it does not know).
A field only one side has, or whose kinds differ (text against a number), is left out, so a
newer or older schema on either side still translates what the two share.

The walk is compiled once per (message type, struct) into a step per field, and visits only
the fields a message holds (``ListFields``): proto3 leaves zero, empty and false unset, and
those are capnp's defaults too (no struct of the family has a union or another default).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

# (capnp struct builder, protobuf message) -> None
Filler = Callable[[Any, Message], None]
# (capnp struct builder, the value of one protobuf field) -> None
Step = Callable[[Any, Any], None]

TIME_TYPES = ("google.protobuf.Timestamp", "google.protobuf.Duration")
NS = 1_000_000_000
_INTEGER = {
    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_SFIXED64,
}
_FLOAT = {FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT}
_CAPNP_FLOAT = {"float32", "float64"}
_CAPNP_NUMBER = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 *_CAPNP_FLOAT}


def member_name(name: str) -> str:
    """PROTOCOL.md's field and enumerant name rule: (a) SCREAMING_CASE, (b) the rest."""
    if not any(c.islower() for c in name):
        words = [w.lower() for w in name.split("_") if w]
        return words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:]) if words else ""
    joined = re.sub(r"_(.)", lambda m: m.group(1).upper(), name).replace("_", "")
    run = len(joined) - len(joined.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    if 1 < run < len(joined) and joined[run].islower():
        run -= 1
    return joined[:run].lower() + joined[run:]


def compile_filler(descriptor: Descriptor, struct_schema: Any) -> Filler:
    """The function that copies a ``descriptor`` message into a builder of ``struct_schema``."""
    return _Compiler().filler(descriptor, struct_schema)


class _Compiler:
    def __init__(self) -> None:
        # Compiled (or being compiled) pairs: a recursive message type reuses its own steps.
        self._steps: dict[tuple[str, int], dict[str, Step]] = {}

    def filler(self, descriptor: Descriptor, struct_schema: Any) -> Filler:
        fields = struct_schema.fields
        if descriptor.full_name in TIME_TYPES and "sec" in fields and "nsec" in fields:
            return _fill_time
        key = (descriptor.full_name, struct_schema.node.id)
        steps = self._steps.get(key)
        if steps is None:
            steps = self._steps[key] = {}
            for field in descriptor.fields:
                step = self._step(field, fields.get(member_name(field.name)))
                if step is not None:
                    steps[field.name] = step

        def fill(builder: Any, message: Message) -> None:
            for field, value in message.ListFields():
                step = steps.get(field.name)
                if step is not None:
                    step(builder, value)

        return fill

    def _step(self, field: FieldDescriptor, target: Any) -> Step | None:
        if target is None or target.proto.which() != "slot":
            return None
        name = member_name(field.name)
        kind = target.proto.slot.type
        if field.is_repeated:
            if kind.which() != "list":
                return None
            element = kind.list.elementType.which()
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                if element != "struct" or field.message_type.GetOptions().map_entry:
                    return None
                return _messages(name, self.filler(field.message_type,
                                                   target.schema.elementType))
            convert = _value(field, element, lambda: target.schema.elementType)
            return None if convert is None else _values(name, convert)
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if kind.which() != "struct":
                return None
            return _message(name, self.filler(field.message_type, target.schema))
        convert = _value(field, kind.which(), lambda: target.schema)
        return None if convert is None else _scalar(name, convert)


def _value(field: FieldDescriptor, capnp_kind: str,
           capnp_schema: Callable[[], Any]) -> Callable[[Any], Any] | None:
    """How one protobuf scalar becomes the capnp value, or None if the kinds differ."""
    if field.type == FieldDescriptor.TYPE_ENUM:
        return _enum(field.enum_type, capnp_schema()) if capnp_kind == "enum" else None
    compatible = (
        (field.type in _FLOAT and capnp_kind in _CAPNP_FLOAT)
        or (field.type in _INTEGER and capnp_kind in _CAPNP_NUMBER)
        or (field.type == FieldDescriptor.TYPE_BOOL and capnp_kind == "bool")
        or (field.type == FieldDescriptor.TYPE_STRING and capnp_kind == "text")
        or (field.type == FieldDescriptor.TYPE_BYTES and capnp_kind == "data")
    )
    return _same if compatible else None


def _same(value: Any) -> Any:
    return value


def _enum(proto_enum: EnumDescriptor, capnp_enum: Any) -> Callable[[Any], Any]:
    known = capnp_enum.enumerants
    by_number = {
        value.number: member_name(value.name)
        for value in proto_enum.values
        if member_name(value.name) in known
    }

    def convert(number: int) -> str | int:
        return by_number.get(number, number)

    return convert


def _fill_time(builder: Any, message: Message) -> None:
    # Duration nanos carry the sign of its seconds; Time's nsec is 0..1e9 after floor division.
    sec, nsec = divmod(message.seconds * NS + message.nanos, NS)
    builder.sec, builder.nsec = sec, nsec


def _message(name: str, fill: Filler) -> Step:
    def step(builder: Any, value: Message) -> None:
        fill(builder.init(name), value)

    return step


def _messages(name: str, fill: Filler) -> Step:
    def step(builder: Any, items: Any) -> None:
        for target, item in zip(builder.init(name, len(items)), items, strict=True):
            fill(target, item)

    return step


def _scalar(name: str, convert: Callable[[Any], Any]) -> Step:
    if convert is _same:
        def step(builder: Any, value: Any) -> None:
            setattr(builder, name, value)
    else:
        def step(builder: Any, value: Any) -> None:
            setattr(builder, name, convert(value))

    return step


def _values(name: str, convert: Callable[[Any], Any]) -> Step:
    def step(builder: Any, items: Any) -> None:
        setattr(builder, name, list(items) if convert is _same else [convert(v) for v in items])

    return step
