"""A generic, deterministic filler: sets every field of any struct via schema reflection.

``fill(builder)`` sets every field of ``builder`` (and of its nested structs, lists and
groups) to a distinct, non-default value and returns what ``app.codec.fields.plain`` must
show for it: numbers, enumerant names, text, ``DataSummary`` for Data, dicts for structs and
lists of two elements. Union members are chosen by ``choice``: each union picks the member
``choice % len(members)`` (in declaration order), so running ``choice`` over
``range(union_choices(schema))`` sets every member of the root's union once.
"""

from __future__ import annotations

from typing import Any

from app.codec.fields import DataSummary
from app.codec.registry import registry

LIST_LENGTH = 2
# Deeper than any registered non-recursive struct (fleet.Command reaches 11 levels).
MAX_DEPTH = 14
# A struct that contains itself (through a list) is expanded at most this many times per path.
MAX_REPEATS = 2
DATA_HEAD = 16  # what plain() keeps of a Data field by default

_INT_VALUES = {
    # kind: (first value, step): signed kinds negative, wide kinds beyond the narrower range
    "int8": (-1, -1),
    "int16": (-1000, -1),
    "int32": (-70_000, -1),
    "int64": (-(2**40), -1),
    "uint8": (1, 1),
    "uint16": (1000, 1),
    "uint32": (70_000, 1),
    "uint64": (2**40, 1),
}
_INT_WRAP = {"int8": 120, "uint8": 250, "int16": 30_000, "uint16": 60_000}


def union_members(schema: Any) -> list[str]:
    """The members of the struct's (unnamed) union, in declaration order."""
    union = set(schema.union_fields)
    return [f.proto.name for f in schema.fields_list if f.proto.name in union]


def union_choices(schema: Any) -> int:
    return max(1, len(union_members(schema)))


def fill(builder: Any, choice: int = 0) -> dict[str, Any]:
    """Sets every field of ``builder``; returns the expected ``plain()`` dict."""
    return _Filler(choice).struct(builder, builder.schema, ())


class _Filler:
    def __init__(self, choice: int) -> None:
        self.choice = choice
        self.counter = 0

    def _next(self) -> int:
        self.counter += 1
        return self.counter

    def struct(self, builder: Any, schema: Any, stack: tuple[int, ...]) -> dict[str, Any]:
        stack = (*stack, schema.node.id)
        members = union_members(schema)
        chosen = members[self.choice % len(members)] if members else None
        expected: dict[str, Any] = {}
        for f in schema.fields_list:
            name = f.proto.name
            if name in members and name != chosen:
                continue
            if f.proto.which() == "group":
                group = builder.init(name) if name in members else getattr(builder, name)
                expected[name] = self.struct(group, f.schema, stack)
            else:
                expected[name] = self.slot(builder, name, f, stack)
        return expected

    def slot(self, builder: Any, name: str, f: Any, stack: tuple[int, ...]) -> Any:
        type_proto = f.proto.slot.type
        kind = type_proto.which()
        if kind == "struct":
            if len(stack) >= MAX_DEPTH:
                raise ValueError(f"{name}: struct nested deeper than MAX_DEPTH={MAX_DEPTH}")
            return self.struct(builder.init(name), f.schema, stack)
        if kind == "list":
            count = self._list_length(type_proto.list.elementType, stack)
            items = builder.init(name, count)
            return self.items(items, type_proto.list.elementType, f.schema, stack)
        value, expected = self.scalar(kind, lambda: f.schema)
        setattr(builder, name, value)
        return expected

    def _list_length(self, element: Any, stack: tuple[int, ...]) -> int:
        """Two elements, or none where a list of structs would nest too deep or recurse."""
        while element.which() == "list":
            element = element.list.elementType
        if element.which() != "struct":
            return LIST_LENGTH
        type_id = element.struct.typeId
        if len(stack) >= MAX_DEPTH - 2 or stack.count(type_id) >= MAX_REPEATS:
            return 0
        return LIST_LENGTH

    def items(self, items: Any, element: Any, schema: Any, stack: tuple[int, ...]) -> list:
        kind = element.which()
        expected = []
        for i in range(len(items)):
            if kind == "struct":
                expected.append(self.struct(items[i], schema.elementType, stack))
            elif kind == "list":
                inner = element.list.elementType
                count = self._list_length(inner, stack)
                sub = items.init(i, count)
                expected.append(self.items(sub, inner, schema.elementType, stack))
            else:
                value, want = self.scalar(kind, lambda: schema.elementType)
                items[i] = value
                expected.append(want)
        return expected

    def scalar(self, kind: str, schema_of: Any) -> tuple[Any, Any]:
        """(value to set, value plain() shows) for a non-pointer or blob kind."""
        n = self._next()
        if kind == "void":
            return None, None
        if kind == "bool":
            return True, True
        if kind in _INT_VALUES:
            first, step = _INT_VALUES[kind]
            value = first + step * (n % _INT_WRAP.get(kind, 1 << 30))
            return value, value
        if kind == "float32":
            return n + 0.5, n + 0.5
        if kind == "float64":
            return n + 0.25, n + 0.25
        if kind == "text":
            return f"text-{n}", f"text-{n}"
        if kind == "data":
            data = bytes((n + i) % 256 for i in range(n % 24 + 3))
            return data, DataSummary(len(data), data[:DATA_HEAD])
        if kind == "enum":
            names = sorted(schema_of().enumerants.items(), key=lambda item: item[1])
            pick = names[1 + n % (len(names) - 1)][0] if len(names) > 1 else names[0][0]
            return pick, pick
        raise ValueError(f"filler cannot set a {kind} field")


def buffer_indices(expected: Any) -> list[int]:
    """Every dataBufferIndex set (isaac ImageProto / TensorProto, at any depth)."""
    found: list[int] = []
    if isinstance(expected, dict):
        for key, value in expected.items():
            if key == "dataBufferIndex":
                found.append(value)
            else:
                found += buffer_indices(value)
    elif isinstance(expected, list):
        for value in expected:
            found += buffer_indices(value)
    return found


def attachment_for(expected: dict[str, Any]) -> bytes | None:
    """A transport.Buffers with a buffer for every index the filled message refers to."""
    indices = buffer_indices(expected)
    if not indices:
        return None
    message = registry().structs["transport.Buffers"].new_message()
    buffers = message.init("buffers", max(indices) + 1)
    for i in range(len(buffers)):
        buffers[i] = bytes([i % 256]) * 3
    return message.to_bytes()


def filled_message(type_name: str, choice: int = 0) -> tuple[bytes, bytes | None, dict[str, Any]]:
    """(payload, attachment or None, expected plain dict) of a fully filled ``type_name``."""
    builder = registry().structs[type_name].new_message()
    expected = fill(builder, choice)
    return builder.to_bytes(), attachment_for(expected), expected
