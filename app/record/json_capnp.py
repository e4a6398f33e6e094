"""A foxglove JSON message -> the Cap'n Proto struct of the same name.

Foxglove's JSON encoding of its schemas: the protobuf field names (``frame_id``; camelCase
names are taken too), ``time`` / ``duration`` as ``{"sec", "nsec"}``, ``bytes`` as base64,
enums as numbers or names. Keys the struct lacks are ignored; a value of the wrong kind is a
ValueError naming its path.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from app.record.protobuf_capnp import member_name

_NUMBER = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float32", "float64"}


def fill_json(builder: Any, value: Any, struct_schema: Any, path: str = "") -> None:
    if not isinstance(value, dict):
        raise ValueError(f"{path or 'message'}: expected an object")
    fields = struct_schema.fields
    for key, item in value.items():
        name = member_name(str(key))
        field = fields.get(name)
        if field is None or field.proto.which() != "slot" or item is None:
            continue
        where = f"{path}.{name}" if path else name
        kind = field.proto.slot.type
        if kind.which() == "struct":
            fill_json(builder.init(name), item, field.schema, where)
        elif kind.which() == "list":
            if not isinstance(item, list):
                raise ValueError(f"{where}: expected a list")
            element = kind.list.elementType.which()
            if element == "struct":
                targets = builder.init(name, len(item))
                for index, (target, each) in enumerate(zip(targets, item, strict=True)):
                    fill_json(target, each, field.schema.elementType, f"{where}[{index}]")
            else:
                schema = field.schema.elementType if element == "enum" else None
                setattr(builder, name, [_scalar(element, v, schema, where) for v in item])
        else:
            schema = field.schema if kind.which() == "enum" else None
            setattr(builder, name, _scalar(kind.which(), item, schema, where))


def _scalar(kind: str, value: Any, enum_schema: Any, where: str) -> Any:
    if kind == "data":
        if not isinstance(value, str):
            raise ValueError(f"{where}: expected base64 text")
        try:
            return base64.b64decode(value, validate=True)
        except binascii.Error:
            raise ValueError(f"{where}: not base64") from None
    if kind == "enum":
        if isinstance(value, str):
            name = member_name(value)
            if name not in enum_schema.enumerants:
                raise ValueError(f"{where}: no enumerant {value!r}")
            return name
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ValueError(f"{where}: expected an enumerant's name or number")
    valid = {
        "text": isinstance(value, str),
        "bool": isinstance(value, bool),
    }.get(kind, kind in _NUMBER and isinstance(value, int | float) and not isinstance(value, bool))
    if not valid:
        raise ValueError(f"{where}: {type(value).__name__} for a {kind}")
    return value
