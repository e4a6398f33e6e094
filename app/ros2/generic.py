"""Any ROS 2 type as a Cap'n Proto struct made from its definition, so a topic of a type
with no display (``sensor_msgs/Imu``, a team's own ``gripper_msgs/msg/State``) opens in the
inspector, plots by field path and records like every other sample.

The struct is written from the definition rosbags holds (the standard ones, or a rosbag2
file's own) and loaded at run time; it is registered as ``ros2.<pkg>/msg/<Name>``, the
name its samples' encoding carries. Fields keep their order and take the rule of
PROTOCOL.md's translations (``angular_velocity`` is ``angularVelocity``); a ``uint8`` array
is ``Data``, any other array or sequence a ``List``, a nested message a struct. Constants
are left out: they are not data.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import capnp

from app.codec.registry import RESOLVERS, SchemaRegistry, registry

FAMILY = "ros2"
_BASE = {
    "bool": "Bool", "byte": "UInt8", "char": "UInt8", "int8": "Int8", "uint8": "UInt8",
    "int16": "Int16", "uint16": "UInt16", "int32": "Int32", "uint32": "UInt32",
    "int64": "Int64", "uint64": "UInt64", "float32": "Float32", "float64": "Float64",
    "string": "Text", "wstring": "Text",
}
# Words Cap'n Proto reserves, which no field may be named
_KEYWORDS = frozenset({"struct", "enum", "union", "group", "interface", "const", "using",
                       "import", "annotation", "extends", "true", "false", "inf", "void"})
_NAME, _NODE_BASE, _ARRAY, _SEQUENCE = 2, 1, 3, 4  # rosbags Nodetype values
_lock = threading.Lock()
_folder: Path | None = None
_standard: Any = None  # ROS 2 Jazzy's type store, for samples of another run
_texts: dict[str, str] = {}  # the schema each registered struct was made from


def type_name(ros_type: str) -> str:
    """The wire type name of ``ros_type``'s struct: ``ros2.sensor_msgs/msg/Imu``."""
    return f"{FAMILY}.{ros_type}"


def field_name(name: str) -> str:
    """``angular_velocity`` -> ``angularVelocity`` (Cap'n Proto forbids '_' in names)."""
    head, *rest = name.split("_")
    camel = head[:1].lower() + head[1:] + "".join(p[:1].upper() + p[1:] for p in rest if p)
    return f"{camel}Field" if camel in _KEYWORDS else camel or "field"


def struct_name(ros_type: str) -> str:
    """``sensor_msgs/msg/Imu`` -> ``SensorMsgsMsgImu``."""
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[/_]", ros_type) if p)


def schema_text(fielddefs: dict[str, Any], ros_type: str) -> str:
    """A .capnp file with ``ros_type``'s struct and each it uses."""
    file_id = int.from_bytes(hashlib.sha256(ros_type.encode()).digest()[:8], "big") | 1 << 63
    lines = [f"@0x{file_id:016x};", ""]
    done: set[str] = set()
    pending = [ros_type]
    while pending:
        current = pending.pop()
        if current in done:
            continue
        done.add(current)
        lines.append(f"struct {struct_name(current)} {{")
        for number, (name, node) in enumerate(fielddefs[current][1]):
            lines.append(f"  {field_name(name)} @{number} :{_capnp_type(node, pending)};")
        lines += ["}", ""]
    return "\n".join(lines)


def _capnp_type(node: tuple[int, Any], pending: list[str]) -> str:
    kind, description = node
    if kind == _NODE_BASE:
        return _BASE[description[0]]
    if kind == _NAME:
        pending.append(description)
        return struct_name(description)
    element, _ = description  # an array's or a sequence's: (element node, length or bound)
    if element[0] == _NODE_BASE and element[1][0] in ("uint8", "byte", "char"):
        return "Data"
    return f"List({_capnp_type(element, pending)})"


def ensure_struct(fielddefs: dict[str, Any], ros_type: str,
                  reg: SchemaRegistry | None = None) -> Any:
    """``ros_type``'s struct, made and registered on first use (any thread); ValueError
    when another definition of it was made one already (two builds' custom types)."""
    reg = reg or registry()
    name = type_name(ros_type)
    text = schema_text(fielddefs, ros_type)
    global _folder
    with _lock:
        known = reg.structs.get(name)
        if known is not None:
            if _texts.get(name, text) != text:
                raise ValueError(f"another definition of {ros_type} is in use here")
            return known
        if _folder is None:
            _folder = Path(tempfile.mkdtemp(prefix="fieldstation-ros2-"))
        path = _folder / f"{struct_name(ros_type)}.capnp"
        path.write_text(text)
        module = capnp.load(str(path))
        struct = getattr(module, struct_name(ros_type))
        _texts[name] = text
        reg.structs[name] = struct
        reg.names_by_id[struct.schema.node.id] = name
        return struct


def fill(builder: Any, message: Any, fielddefs: dict[str, Any], ros_type: str) -> None:
    """Copies a rosbags message into its struct's builder, field by field."""
    for name, node in fielddefs[ros_type][1]:
        _set(builder, field_name(name), node, getattr(message, name), fielddefs)


def _set(builder: Any, name: str, node: tuple[int, Any], value: Any,
         fielddefs: dict[str, Any]) -> None:
    kind, description = node
    if kind == _NODE_BASE:
        setattr(builder, name, value)
    elif kind == _NAME:
        fill(builder.init(name), value, fielddefs, description)
    else:
        element = description[0]
        if element[0] == _NODE_BASE and element[1][0] in ("uint8", "byte", "char"):
            setattr(builder, name, memoryview(value).cast("B") if hasattr(value, "dtype")
                    else bytes(value))
        elif element[0] == _NODE_BASE:
            setattr(builder, name, value.tolist() if hasattr(value, "tolist") else list(value))
        else:
            items = builder.init(name, len(value))
            for index, item in enumerate(value):
                if element[0] == _NAME:
                    fill(items[index], item, fielddefs, element[1])
                else:  # a list of lists: each set as a whole
                    _set_nested_list(items, index, element, item, fielddefs)


def _set_nested_list(items: Any, index: int, element: tuple[int, Any], value: Any,
                     fielddefs: dict[str, Any]) -> None:
    inner = element[1][0]
    if inner[0] == _NAME:
        sub = items.init(index, len(value))
        for position, item in enumerate(value):
            fill(sub[position], item, fielddefs, inner[1])
    else:
        items[index] = value.tolist() if hasattr(value, "tolist") else list(value)


def resolve_standard(name: str) -> Any:
    """The struct of ``ros2.<a standard ROS 2 type>`` (ROS 2 Jazzy's definitions), for a
    sample recorded by another run; None for any other name."""
    from rosbags.typesys import Stores, get_typestore

    global _standard
    ros_type = name.removeprefix(f"{FAMILY}.")
    with _lock:
        if _standard is None:
            _standard = get_typestore(Stores.ROS2_JAZZY)
    if ros_type not in _standard.fielddefs:
        return None
    return ensure_struct(_standard.fielddefs, ros_type)


def filler(fielddefs: dict[str, Any], ros_type: str) -> Callable[[Any, Any], None]:
    """A :class:`~app.ros2.translate.Translation` fill for ``ros_type``."""
    def fill_builder(builder: Any, message: Any) -> None:
        fill(builder, message, fielddefs, ros_type)

    return fill_builder


RESOLVERS[FAMILY] = resolve_standard
