"""Bytes + encoding (+ attachment) -> a validated, typed Cap'n Proto message.

Every failure is a typed :class:`DecodeError`. Every reader of a message gets a traversal
budget from the message's own size (limits.read_budget), so no decode or projection of it
costs more than a few passes over its bytes, and pointers that share sub-trees or lists of
millions of empty elements run out of budget at once.

The validating walk reads every pointer as the schema types it (bounds, far pointers,
nesting, pointer kinds, UTF-8) in Python, at about 0.2-0.5 s per MB of small structs, so it
runs here for messages up to ``EAGER_CHECK_BYTES``, and for larger ones made of no more than
``EAGER_OBJECTS`` structs (a camera image, a point cloud: a few structs around one big
``Data``; walking them typed takes microseconds, where the structural check below took half a
millisecond of each 1080p frame). Any other large message gets the schema-less structural
check of app.codec.structure (numpy, a few ms per MB: bounds, nesting, no object reached
twice, no huge lists of empty elements) and its isaac buffer indices checked; a typed fault
in it (a pointer of the wrong kind, text that is not UTF-8) is raised, as the same typed
DecodeError, by whatever reads that part (``fields.plain``, ``fields.get_path``).

Readers and buffer views stay valid as long as the :class:`DecodedMessage` lives: it pins
the payload and attachment bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.codec.buffers import NO_BUFFERS, HeldBuffers, read_buffers
from app.codec.data_view import data_array
from app.codec.errors import (
    LimitExceeded,
    MissingAttachment,
    OversizedMessage,
    UnknownEncoding,
    UnknownType,
    reading,
)
from app.codec.fields import active_member
from app.codec.framing import split_segments
from app.codec.limits import KIB, Limits, limits_for, read_budget
from app.codec.registry import SchemaRegistry, registry

ENCODING_PREFIX = "application/capnp;"
# isaac structs whose bytes live in the attachment, indexed by dataBufferIndex.
BUFFER_TYPES = ("isaac.ImageProto", "isaac.TensorProto")
EAGER_CHECK_BYTES = 128 * KIB
EAGER_OBJECTS = 64


class _TooManyObjects(Exception):
    """A large message's typed walk would read more than EAGER_OBJECTS objects: checked
    otherwise."""


class _Walk:
    """What one validating walk reads: the whole schema or only the way to isaac buffers,
    and how many more objects it may read (None: no limit)."""

    __slots__ = ("full", "left", "message", "reg")

    def __init__(self, message: DecodedMessage, reg: SchemaRegistry, full: bool,
                 left: int | None = None) -> None:
        self.message, self.reg, self.full, self.left = message, reg, full, left

    def afford(self, objects: int) -> None:
        """Raises _TooManyObjects unless ``objects`` more may be read."""
        if self.left is not None and objects > self.left:
            raise _TooManyObjects

    def visit(self, objects: int = 1) -> None:
        self.afford(objects)
        if self.left is not None:
            self.left -= objects


class DecodedMessage:
    """A validated message. Each access to ``root`` makes a new reader (about a microsecond)
    with its own traversal budget of a few passes over the message, so any projection
    costs at most that, and re-reading a message never runs out of budget."""

    def __init__(self, type_name: str, struct_type: Any, payload: bytes | memoryview,
                 nesting: int, buffers: Sequence[memoryview] = NO_BUFFERS) -> None:
        self.type_name = type_name
        self.buffers = buffers
        self.size = len(payload)
        self._struct_type = struct_type
        self.segments = split_segments(payload)
        self._nesting = nesting
        self.walked = False  # every pointer the schema types was read at decode

    @property
    def root(self) -> Any:
        return self._struct_type.from_segments(
            self.segments,
            traversal_limit_in_words=read_budget(self.size),
            nesting_limit=self._nesting,
        )

    def buffer(self, index: int) -> memoryview:
        """Attachment buffer ``index``: a read-only view of the attachment, not a copy."""
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


def _check_size(payload: bytes | memoryview, limits: Limits) -> None:
    if len(payload) > limits.max_bytes:
        raise OversizedMessage(f"{len(payload)} bytes, limit {limits.max_bytes}")


def read_root(struct_type: Any, payload: bytes | memoryview, limits: Limits) -> Any:
    """The root reader of one framed message, with limits; no validation walk."""
    _check_size(payload, limits)
    return DecodedMessage("", struct_type, payload, limits.nesting).root


def decode(
    encoding: str,
    payload: bytes | memoryview,
    attachment: bytes | memoryview | HeldBuffers | None = None,
    reg: SchemaRegistry | None = None,
) -> DecodedMessage:
    reg = reg or registry()
    type_name = type_name_of(encoding)
    struct_type = reg.find(type_name)
    if struct_type is None:
        raise UnknownType(f"no schema registers {type_name}")
    limits = limits_for(type_name)
    _check_size(payload, limits)
    buffers = read_buffers(attachment) if attachment else NO_BUFFERS
    message = DecodedMessage(type_name, struct_type, payload, limits.nesting, buffers)
    small = message.size <= EAGER_CHECK_BYTES
    with reading():
        try:
            _validate(message.root, struct_type.schema,
                      _Walk(message, reg, True, None if small else EAGER_OBJECTS))
            message.walked = True
            return message
        except _TooManyObjects:
            pass
    sizes = [len(segment) for segment in message.segments]
    body = memoryview(payload)[message.size - sum(sizes) :]
    from app.codec.structure import check_structure  # numpy: off the start-up path

    check_structure(body, [size // 8 for size in sizes], limits.nesting,
                    read_budget(message.size))
    with reading():
        _validate(message.root, struct_type.schema, _Walk(message, reg, False))
    return message


# A walk plan per (struct, full): its pointer fields, with how to touch each; without
# ``full``, only the fields that can lead to an isaac buffer index.
_PLANS: dict[tuple[int, bool], list[tuple[str, Any]]] = {}
_REACHES: dict[int, bool] = {}


@dataclass(frozen=True, slots=True)
class _Node:
    """What a walk needs of a struct's schema node, read once: each read of ``schema.node``
    builds a reader (microseconds), and a walk asked several per struct it passed."""

    id: int
    is_group: bool
    words: int  # data and pointer words of one element
    union_fields: frozenset[str]


# By the schema object's identity (pycapnp keeps one per struct), holding the object so the
# identity is never reused.
_NODES: dict[int, tuple[Any, _Node]] = {}


def _node(schema: Any) -> _Node:
    known = _NODES.get(id(schema))
    if known is None:
        node = schema.node
        struct = node.struct
        known = _NODES[id(schema)] = (schema, _Node(
            node.id, struct.isGroup, struct.dataWordCount + struct.pointerCount,
            frozenset(schema.union_fields)))
    return known[1]


def _plan(schema: Any, full: bool, reg: SchemaRegistry) -> list[tuple[str, Any]]:
    key = (_node(schema).id, full)
    plan = _PLANS.get(key)
    if plan is None:
        plan = []
        for f in schema.fields_list:
            if f.proto.which() == "group":
                step = ("struct", f.schema)
            else:
                step = _step(f.proto.slot.type, lambda f=f: f.schema)
            if step is not None and (full or _step_reaches_buffers(step, reg)):
                plan.append((f.proto.name, step))
        _PLANS[key] = plan
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


def _step_reaches_buffers(step: Any, reg: SchemaRegistry) -> bool:
    while step is not None and step[0] == "list":
        step = step[1]
    return step is not None and step[0] == "struct" and _reaches_buffers(step[1], reg)


def _reaches_buffers(schema: Any, reg: SchemaRegistry) -> bool:
    node_id = _node(schema).id
    if node_id not in _REACHES:
        _REACHES[node_id] = False  # a recursive type reaches buffers only through others
        _REACHES[node_id] = reg.names_by_id.get(node_id) in BUFFER_TYPES or any(
            _step_reaches_buffers(step, reg) for _name, step in _plan(schema, True, reg)
        )
    return _REACHES[node_id]


def _validate(reader: Any, schema: Any, walk: _Walk) -> None:
    """Reads every pointer of the plan, so a wrong kind or bad text raises now."""
    walk.visit()
    reg = walk.reg
    node = _node(schema)
    if reg.names_by_id.get(node.id) in BUFFER_TYPES:
        walk.message.buffer(reader.dataBufferIndex)
    plan = _plan(schema, walk.full, reg)
    if not plan:
        return
    union_fields = node.union_fields
    active = active_member(reader) if union_fields else None
    for name, (kind, inner) in plan:
        if name in union_fields and name != active:
            continue
        if kind == "struct":
            if reader._has(name) or _node(inner).is_group:
                _validate(reader._get(name), inner, walk)
        elif kind == "list":
            _validate_items(reader._get(name), inner, walk)
        elif kind == "data":
            data_array(reader, name)  # checks its bounds (pycapnp's view leaks; this not)
        else:
            reader._get(name)


def _validate_items(items: Any, step: Any, walk: _Walk) -> None:
    count = len(items)
    if step is None or count == 0:
        return
    kind, inner = step
    reg, size = walk.reg, walk.message.size
    if kind == "struct":
        # A struct with fields takes at least a word per element when a writer sends it. A
        # list claiming more (zero-sized elements, or a list of bytes read as structs) would
        # cost seconds to walk or to show: every element shows every field of the schema.
        node = _node(inner)
        if node.words and count > size // 8:
            raise LimitExceeded(f"list of {count} structs in a {size}-byte message")
        if _plan(inner, walk.full, reg) or reg.names_by_id.get(node.id) in BUFFER_TYPES:
            walk.afford(count)  # before reading any: a long list is refused at once
            for item in items:
                _validate(item, inner, walk)
        else:
            items[count - 1]
    elif kind == "list":
        walk.visit(count)
        for item in items:
            _validate_items(item, inner, walk)
    else:
        walk.visit(count)
        list(items)  # text/data elements: reading each one checks its bounds
