"""What the schema says about a message type, for the inspector's type column and the
plot's field picker. Qt-free."""

from __future__ import annotations

from typing import Any

from app.codec.fields import numeric_paths
from app.codec.registry import registry

NO_DISCRIMINANT = 0xFFFF
_PRIMITIVES = {
    "void": "Void", "bool": "Bool", "int8": "Int8", "int16": "Int16", "int32": "Int32",
    "int64": "Int64", "uint8": "UInt8", "uint16": "UInt16", "uint32": "UInt32",
    "uint64": "UInt64", "float32": "Float32", "float64": "Float64", "text": "Text",
    "data": "Data", "anyPointer": "AnyPointer", "interface": "Interface",
}


def struct_schema(type_name: str) -> Any | None:
    """The capnp struct schema of a wire type name, or None if no schema knows it."""
    struct = registry().find(type_name)
    return None if struct is None else struct.schema


def _short(schema: Any) -> str:
    return schema.node.displayName.split(":", 1)[-1]


def _describe(type_proto: Any, schema: Any) -> str:
    kind = type_proto.which()
    if kind == "struct":
        return _short(schema)
    if kind == "enum":
        return f"enum {_short(schema)}"
    if kind == "list":
        element = type_proto.list.elementType
        inner = schema.elementType if element.which() in ("struct", "enum", "list") else None
        return f"List({_describe(element, inner)})"
    return _PRIMITIVES.get(kind, kind)


class TypeHints:
    """The schema type of each path of one message type (``("motion", "pose")`` ->
    ``union · MotionTelemetry``); cached per path with list indices folded together."""

    def __init__(self, schema: Any) -> None:
        self._root = schema
        self._cache: dict[tuple[Any, ...], str] = {}

    def __call__(self, path: tuple[str | int, ...]) -> str:
        folded = tuple(0 if isinstance(k, int) else k for k in path)
        hint = self._cache.get(folded)
        if hint is None:
            hint = self._cache[folded] = self._walk(folded)
        return hint

    def _walk(self, path: tuple[str | int, ...]) -> str:
        schema, type_proto, hint = self._root, None, ""
        for key in path:
            if isinstance(key, int):
                if type_proto is None or type_proto.which() != "list":
                    return ""
                type_proto = type_proto.list.elementType
                schema = schema.elementType if type_proto.which() in (
                    "struct", "enum", "list") else None
                hint = _describe(type_proto, schema)
                continue
            field = schema.fields.get(key) if type_proto is None or \
                type_proto.which() == "struct" else None
            if field is None:
                return ""
            union = "union · " if field.proto.discriminantValue != NO_DISCRIMINANT else ""
            if field.proto.which() == "group":
                schema, type_proto, hint = field.schema, None, f"{union}group"
                continue
            type_proto = field.proto.slot.type
            schema = field.schema if type_proto.which() in ("struct", "enum", "list") else None
            hint = union + _describe(type_proto, schema)
        return hint


def type_hints(type_name: str) -> TypeHints | None:
    schema = struct_schema(type_name)
    return None if schema is None else TypeHints(schema)


def plot_paths(type_name: str, key: str) -> list[str]:
    """The numeric fields of a type, those of the union member named like the key's last
    segment first (``…/uplink/motion`` of ``fleet.Uplink`` -> ``motion.…``)."""
    schema = struct_schema(type_name)
    if schema is None:
        return []
    paths = numeric_paths(schema)
    member = key.rsplit("/", 1)[-1] + "."
    return sorted(paths, key=lambda p: not p.startswith(member))
