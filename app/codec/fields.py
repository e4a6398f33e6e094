"""Generic, schema-driven access to any field of a decoded message.

Used by ``echo``, the inspector and plots: plain Python values (dicts, lists, numbers,
strings), enums by name — or by number when the schema does not know the value (a newer
robot) — and ``Data`` summarised instead of dumped (without copying it).

Reading can fail: a reader's traversal budget runs out, or a large message (checked as it is
read, see app.codec.decode) holds a bad pointer or bad text. ``plain`` and ``get_path`` raise
those as the DecodeError they are.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

import capnp

from app.codec.data_view import data_array
from app.codec.errors import FieldPathError, LimitExceeded, reading

_DynamicEnum = capnp.lib.capnp._DynamicEnum
_DynamicStructReader = capnp.lib.capnp._DynamicStructReader
_DynamicListReader = capnp.lib.capnp._DynamicListReader
_PATH_PART = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


@dataclass(frozen=True)
class DataSummary:
    """A ``Data`` field shown by size and first bytes."""

    size: int
    head: bytes

    def __str__(self) -> str:
        more = "…" if self.size > len(self.head) else ""
        return f"<{self.size} bytes {self.head.hex(' ')}{more}>"


@dataclass(frozen=True)
class ListSummary:
    """A long list shown by its length and first items."""

    length: int
    first: list[Any]


def enum_value(value: Any) -> str | int:
    """The enumerant's name, or its number when this schema does not know it."""
    try:
        return value._as_str()
    except (RuntimeError, capnp.KjException):
        return value.raw


# What reading a message may produce per word of it: a word holds 8 bytes of a List(UInt8),
# two Float32, a few small fields; 16 leaves room. A hostile message can make each byte a
# struct of many fields (bytes read as a list of structs): it is stopped here, in about a
# second for 128 KiB, instead of costing ten.
ITEMS_PER_WORD = 16
ITEMS_BASE = 4096


def items_budget(message_bytes: int) -> int:
    """The most values ``plain`` may produce for a message of this size."""
    return ITEMS_PER_WORD * (message_bytes // 8) + ITEMS_BASE


def plain(value: Any, max_list: int | None = None, data_head: int = 16,
          max_items: int | None = None) -> Any:
    """Converts a capnp reader value to plain Python, recursively; a list longer than
    ``max_list`` costs only the items it shows. More than ``max_items`` values (see
    :func:`items_budget`) is LimitExceeded."""
    with reading():
        return _Plain(max_list, data_head, max_items).value(value)


class _Plain:
    def __init__(self, max_list: int | None, data_head: int, max_items: int | None) -> None:
        self.max_list, self.data_head = max_list, data_head
        self.left = max_items

    def value(self, value: Any) -> Any:
        if self.left is not None:
            self.left -= 1
            if self.left < 0:
                raise LimitExceeded("the message expands to too many values to show")
        if isinstance(value, _DynamicStructReader):
            return {name: self.value(v) for name, v in struct_items(value)}
        if isinstance(value, _DynamicListReader):
            count = len(value)
            if self.max_list is not None and count > self.max_list:
                return ListSummary(count, [self.value(value[i]) for i in range(self.max_list)])
            return [self.value(v) for v in value]
        if isinstance(value, _DynamicEnum):
            return enum_value(value)
        if isinstance(value, bytes | memoryview) or _is_array(value):  # Data field views
            return DataSummary(len(value), bytes(value[:self.data_head]))
        return value


UNKNOWN_MEMBER = "(unknown union member)"


def active_member(reader: Any) -> str | None:
    """The union member that is set; None for a struct without a union, or when a newer
    robot set a member this schema does not know."""
    if not reader.schema.union_fields:
        return None
    try:
        return reader._which_str()
    except capnp.KjException:
        return None


def struct_items(reader: Any) -> list[tuple[str, Any]]:
    """(name, value) of each field that is present: all plain fields, the active union member.
    A union member this schema does not know shows as ``UNKNOWN_MEMBER: True``. Data fields
    are read-only uint8 arrays viewing the message, not copies."""
    schema = reader.schema
    fields = _fields_of(schema)
    union_fields = fields.union
    active = active_member(reader) if union_fields else None
    items = [
        (name, _value(reader, name, kind))
        for name, kind in fields.kinds
        if name not in union_fields or name == active
    ]
    if union_fields and active is None:
        items.append((UNKNOWN_MEMBER, True))
    return items


@dataclass(frozen=True)
class _Fields:
    kinds: tuple[tuple[str, str], ...]  # (name, "struct" / "data" / "group" / ...)
    union: frozenset[str]


# A struct schema's fields, worked out once: asking the schema for each field's kind at
# every read cost more than reading the value.
_FIELDS: dict[int, _Fields] = {}


def _fields_of(schema: Any) -> _Fields:
    node_id = schema.node.id
    fields = _FIELDS.get(node_id)
    if fields is None:
        kinds = []
        for name, field in schema.fields.items():
            proto = field.proto
            kinds.append((name, proto.slot.type.which() if proto.which() == "slot"
                          else "group"))
        fields = _FIELDS[node_id] = _Fields(tuple(kinds), frozenset(schema.union_fields))
    return fields


def _value(reader: Any, name: str, kind: str) -> Any:
    """None for a struct-typed field whose pointer is null (not a struct of zeros that nobody
    sent)."""
    if kind == "struct" and not reader._has(name):
        return None
    if kind == "data":
        return data_array(reader, name)
    return reader._get(name)


def get_path(reader: Any, path: str) -> Any:
    """The value at ``a.b[2].c``; enums by name. Raises FieldPathError for a bad path,
    and returns None for a union member that is not the active one."""
    with reading():
        return _get_path(reader, path)


def _get_path(reader: Any, path: str) -> Any:
    value = reader
    for name, index in _parse_path(path):
        if name:
            if not isinstance(value, _DynamicStructReader) or name not in value.schema.fieldnames:
                raise FieldPathError(f"{path}: no field {name!r}")
            union_fields = value.schema.union_fields
            if name in union_fields and active_member(value) != name:
                return None
            value = value._get(name)
        else:
            if not isinstance(value, _DynamicListReader):
                raise FieldPathError(f"{path}: [{index}] on something that is not a list")
            if int(index) >= len(value):
                raise FieldPathError(f"{path}: index {index} past the end ({len(value)})")
            value = value[int(index)]
    if isinstance(value, _DynamicEnum):
        return enum_value(value)
    return value


@functools.lru_cache(maxsize=1024)  # the same few paths, read on every vital sample
def _parse_path(path: str) -> tuple[tuple[str, str], ...]:
    parts: list[tuple[str, str]] = []
    for chunk in path.split("."):
        matches = list(_PATH_PART.finditer(chunk))
        if not chunk or "".join(m.group(0) for m in matches) != chunk:
            raise FieldPathError(f"not a field path: {path!r}")
        parts += [(m.group(1) or "", m.group(2) or "") for m in matches]
    return tuple(parts)


NUMERIC = frozenset(
    {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
     "float32", "float64"}
)


def numeric_paths(schema: Any, prefix: str = "", depth: int = 6) -> list[str]:
    """Paths of the numeric fields reachable without indexing lists (for plot pickers)."""
    paths: list[str] = []
    for f in schema.fields_list:
        name = prefix + f.proto.name
        if f.proto.which() == "group":
            if depth > 0:
                paths += numeric_paths(f.schema, name + ".", depth - 1)
            continue
        kind = f.proto.slot.type.which()
        if kind in NUMERIC:
            paths.append(name)
        elif kind == "struct" and depth > 0:
            paths += numeric_paths(f.schema, name + ".", depth - 1)
    return paths


def _is_array(value: Any) -> bool:
    """A numpy array, without importing numpy (it is imported once a Data field is read)."""
    return type(value).__module__ == "numpy" and type(value).__name__ == "ndarray"
