"""Bytes + encoding (+ attachment) -> a validated, typed Cap'n Proto reader.

Every failure is a typed :class:`DecodeError`. The whole message is walked once here,
inside its type's traversal and nesting limits, so a reader that leaves this module can be
read anywhere without surprises. Readers stay valid as long as the returned
:class:`DecodedMessage` lives: it pins the payload and attachment bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import capnp

from app.codec.errors import (
    DecodeError,
    LimitExceeded,
    MalformedMessage,
    MissingAttachment,
    OversizedMessage,
    UnknownEncoding,
    UnknownType,
)
from app.codec.fields import active_member
from app.codec.framing import split_segments
from app.codec.limits import ATTACHMENT, Limits, limits_for
from app.codec.registry import SchemaRegistry, registry

ENCODING_PREFIX = "application/capnp;"
# isaac structs whose bytes live in the attachment, indexed by dataBufferIndex.
BUFFER_TYPES = ("isaac.ImageProto", "isaac.TensorProto")
UNLIMITED_WORDS = 2**63 - 1


@dataclass
class DecodedMessage:
    type_name: str
    root: Any
    buffers: list[bytes] = field(default_factory=list)
    size: int = 0

    def buffer(self, index: int) -> bytes:
        if not 0 <= index < len(self.buffers):
            raise MissingAttachment(
                f"{self.type_name} refers to buffer {index}, attachment has {len(self.buffers)}"
            )
        return self.buffers[index]


def encoding_for(type_name: str) -> str:
    return ENCODING_PREFIX + type_name


def type_name_of(encoding: str) -> str:
    encoding = str(encoding)
    if not encoding.startswith(ENCODING_PREFIX) or len(encoding) == len(ENCODING_PREFIX):
        raise UnknownEncoding(f"not a Cap'n Proto encoding: {encoding or '(none)'}")
    return encoding[len(ENCODING_PREFIX) :]


def read_root(struct_type: Any, payload: bytes | memoryview, limits: Limits) -> Any:
    """The root reader of one framed message, with limits; no validation walk."""
    if len(payload) > limits.max_bytes:
        raise OversizedMessage(f"{len(payload)} bytes, limit {limits.max_bytes}")
    segments = split_segments(payload)
    try:
        return struct_type.from_segments(
            segments,
            traversal_limit_in_words=limits.traversal_words,
            nesting_limit=limits.nesting,
        )
    except capnp.KjException as exc:
        raise _translate(exc) from None


def decode(
    encoding: str,
    payload: bytes | memoryview,
    attachment: bytes | memoryview | None = None,
    reg: SchemaRegistry | None = None,
) -> DecodedMessage:
    reg = reg or registry()
    type_name = type_name_of(encoding)
    struct_type = reg.structs.get(type_name)
    if struct_type is None:
        raise UnknownType(f"no schema registers {type_name}")
    limits = limits_for(type_name)
    root = read_root(struct_type, payload, limits)
    buffers = _read_buffers(attachment, reg) if attachment else []
    message = DecodedMessage(type_name, root, buffers, len(payload))
    try:
        _validate(root, struct_type.schema, message, reg)
    except capnp.KjException as exc:
        raise _translate(exc) from None
    except UnicodeDecodeError as exc:
        raise MalformedMessage(f"text that is not UTF-8: {exc.reason}") from None
    # The walk above read every pointer within the type's limits. Readers handed out read the
    # same, validated segments with no traversal budget left to run out on repeated reads.
    message.root = struct_type.from_segments(
        split_segments(payload),
        traversal_limit_in_words=UNLIMITED_WORDS,
        nesting_limit=limits.nesting,
    )
    return message


def _read_buffers(attachment: bytes | memoryview, reg: SchemaRegistry) -> list[bytes]:
    root = read_root(reg.structs["transport.Buffers"], attachment, ATTACHMENT)
    try:
        return list(root.buffers)
    except capnp.KjException as exc:
        raise _translate(exc) from None


def _translate(exc: Exception) -> DecodeError:
    text = str(exc).split("\n", 1)[0]
    detail = text.split("failed: ", 1)[-1]
    if "traversal limit" in text or "too deeply-nested" in text:
        return LimitExceeded(detail)
    return MalformedMessage(detail)


# A walk plan per struct: only its pointer fields, with how to touch each.
_PLANS: dict[int, list[tuple[str, Any]]] = {}


def _plan(schema: Any) -> list[tuple[str, Any]]:
    node_id = schema.node.id
    plan = _PLANS.get(node_id)
    if plan is None:
        plan = _PLANS[node_id] = []
        for f in schema.fields_list:
            if f.proto.which() == "group":
                plan.append((f.proto.name, ("struct", f.schema)))
                continue
            step = _step(f.proto.slot.type, lambda f=f: f.schema)
            if step is not None:
                plan.append((f.proto.name, step))
    return plan


def _step(type_proto: Any, schema_of: Any) -> Any:
    kind = type_proto.which()
    if kind == "struct":
        return ("struct", schema_of())
    if kind == "list":
        element = type_proto.list.elementType
        return ("list", _step(element, lambda: schema_of().elementType))
    if kind in ("text", "data", "anyPointer"):
        return (kind, None)
    return None


def _validate(reader: Any, schema: Any, message: DecodedMessage, reg: SchemaRegistry) -> None:
    """Touches every pointer of the message so framing and limit errors surface now."""
    if reg.names_by_id.get(schema.node.id) in BUFFER_TYPES:
        message.buffer(reader.dataBufferIndex)
    plan = _plan(schema)
    if not plan:
        return
    union_fields = schema.union_fields
    active = active_member(reader)
    for name, (kind, inner) in plan:
        if name in union_fields and name != active:
            continue
        if kind == "struct":
            if reader._has(name) or inner.node.struct.isGroup:
                _validate(reader._get(name), inner, message, reg)
        elif kind == "list":
            _validate_items(reader._get(name), inner, message, reg)
        elif kind == "data":
            # Reading the field checks its bounds. Not get_data_as_view(): in pycapnp 2.2 it
            # leaks a reference to the reader (PyBuffer_FillInfo's, which
            # PyMemoryView_FromBuffer never releases), so every message it touched stayed
            # in memory with its whole payload. A copy of the bytes, freed at once, is what
            # list elements of Data cost already.
            reader._get(name)
        else:
            reader._get(name)


def _validate_items(items: Any, step: Any, message: DecodedMessage, reg: SchemaRegistry) -> None:
    count = len(items)
    if step is None or count == 0:
        return
    kind, inner = step
    if kind == "struct":
        if _plan(inner) or reg.names_by_id.get(inner.node.id) in BUFFER_TYPES:
            # Such a struct has fields, so each element takes at least a word on the wire: a
            # list claiming more (zero-sized elements) would make this walk cost seconds.
            if count > message.size // 8:
                raise LimitExceeded(f"list of {count} structs in a {message.size}-byte message")
            for item in items:
                _validate(item, inner, message, reg)
        else:
            items[count - 1]
    elif kind == "list":
        for item in items:
            _validate_items(item, inner, message, reg)
    else:
        list(items)  # text/data elements: reading each one checks its bounds
