"""Manifest extractor for the `foxglove` family (seed 003_65b1d342b53882aa.txt).

The seed is the markdown rendering of the Foxglove schema docs:

* `## enum Name` sections hold a markdown table ``name | value | description``
  whose rows look like ```NAME` | 0 | text``;
* every other `## Name` section (except `## Contents`) is a message whose
  fields are an HTML ``<table>``: one ``<tr>`` per field with three ``<td>``
  cells: ``<code>field_name</code>``, the type, the description.

Types are written as a primitive (``float64``, ``uint32``, ``string``,
``bytes``, ``boolean``, ``time``, ``duration``), a markdown link to another
section (``[Pose](#pose)``, ``[enum LineType](#enum-linetype)``), optionally
followed by ``[]`` (repeated) or ``[N]`` (fixed array).

Translation follows PROTOCOL.md: fields numbered in seed order from 0, names
via naming.py, ``time``/``duration`` -> ``Time``, fixed arrays -> List(T).
The `## Contents` list is cross-checked against the sections found, and any
type the rule does not cover raises, so a changed seed fails loudly instead of
producing a silently different manifest.
"""

import re

try:  # imported as a package module (tests.schemas.seed_extract.foxglove)
    from .naming import member_name, type_name
except ImportError:  # run as a plain script next to naming.py
    from naming import member_name, type_name  # type: ignore

PRIMITIVES = {
    "float64": "Float64",
    "float32": "Float32",
    "double": "Float64",
    "float": "Float32",
    "int8": "Int8",
    "int16": "Int16",
    "int32": "Int32",
    "int64": "Int64",
    "uint8": "UInt8",
    "uint16": "UInt16",
    "uint32": "UInt32",
    "uint64": "UInt64",
    "bool": "Bool",
    "boolean": "Bool",
    "string": "Text",
    "bytes": "Data",
    # PROTOCOL.md: foxglove `time` and `duration` both map to the family root
    # struct `Time { sec @0 :Int64; nsec @1 :UInt32; }`.
    "time": "Time",
    "duration": "Time",
}

_HEADING = re.compile(r"^##\s+(.+?)\s*$")
_ENUM_ROW = re.compile(r"^\s*`([^`]+)`\s*\|\s*(-?\d+)\s*\|")
_TR = re.compile(r"<tr>(.*?)</tr>", re.S)
_TD = re.compile(r"<td>(.*?)</td>", re.S)
_CODE = re.compile(r"^\s*<code>([^<]+)</code>\s*$")
_TYPE = re.compile(
    r"^(?:\[(?P<link>(?:enum\s+)?[A-Za-z_][A-Za-z0-9_.]*)\]\(#[^)]*\)|(?P<prim>[A-Za-z_][A-Za-z0-9_]*))"
    r"(?P<array>\[\d*\])?$"
)
_CONTENTS_ITEM = re.compile(r"^\s*-\s*\[([^\]]+)\]\(#[^)]*\)\s*$")


def _sections(text):
    """Yield (heading, body_lines) for each `## ` heading outside code fences."""
    heading, body, fenced = None, [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        m = None if fenced else _HEADING.match(line)
        if m:
            if heading is not None:
                yield heading, body
            heading, body = m.group(1), []
        elif heading is not None:
            body.append(line)
    if heading is not None:
        yield heading, body


def _translate_type(cell, where):
    raw = " ".join(cell.split())
    m = _TYPE.match(raw)
    if not m:
        raise ValueError(f"{where}: unparseable type {raw!r}")
    if m.group("link"):
        name = m.group("link")
        if name.startswith("enum"):
            name = name[len("enum"):].strip()
        base = type_name(name).split(".")[-1]
    else:
        prim = m.group("prim")
        if prim not in PRIMITIVES:
            raise ValueError(f"{where}: unknown primitive type {prim!r}")
        base = PRIMITIVES[prim]
    return f"List({base})" if m.group("array") else base


def _parse_enum(name, body):
    values = {}
    for line in body:
        m = _ENUM_ROW.match(line)
        if m:
            member = member_name(m.group(1))
            if member in values:
                raise ValueError(f"enum {name}: duplicate enumerant {member}")
            values[member] = int(m.group(2))
    if not values:
        raise ValueError(f"enum {name}: no rows")
    if sorted(values.values()) != list(range(len(values))):
        raise ValueError(f"enum {name}: values not consecutive from 0: {values}")
    return values


def _parse_struct(name, body):
    fields = {}
    for tr in _TR.findall("\n".join(body)):
        cells = _TD.findall(tr)
        if not cells:  # header row (<th> cells)
            continue
        if len(cells) != 3:
            raise ValueError(f"{name}: field row with {len(cells)} cells")
        m = _CODE.match(cells[0])
        if not m:
            raise ValueError(f"{name}: no <code> field name in {cells[0]!r}")
        field = member_name(m.group(1).strip())
        if field in fields:
            raise ValueError(f"{name}: duplicate field {field}")
        fields[field] = {
            "ordinal": len(fields),
            "type": _translate_type(cells[1], f"{name}.{field}"),
        }
    return fields


def extract(text: str) -> dict:
    structs, enums, contents = {}, {}, None
    for heading, body in _sections(text):
        if heading == "Contents":
            contents = [m.group(1) for m in map(_CONTENTS_ITEM.match, body) if m]
            continue
        if heading.startswith("enum "):
            name = type_name(heading[len("enum "):].strip())
            target = enums
            value = _parse_enum(name, body)
        else:
            name = type_name(heading)
            target = structs
            value = _parse_struct(name, body)
        if name in structs or name in enums:
            raise ValueError(f"duplicate type {name}")
        target[name] = value

    documented = {type_name(c[len("enum "):].strip()) if c.startswith("enum ") else type_name(c)
                  for c in (contents or [])}
    found = set(structs) | set(enums)
    if contents is not None and documented != found:
        raise ValueError(
            f"Contents and sections disagree: only in contents {sorted(documented - found)}, "
            f"only as sections {sorted(found - documented)}"
        )

    known = found | {"Time"}
    for sname, fields in structs.items():
        for fname, info in fields.items():
            base = info["type"]
            while base.startswith("List("):
                base = base[len("List("):-1]
            if base[:1].isupper() and base not in known and base not in PRIMITIVES.values():
                raise ValueError(f"{sname}.{fname}: reference to undocumented type {base}")

    return {
        "structs": dict(sorted(structs.items())),
        "enums": dict(sorted(enums.items())),
    }


if __name__ == "__main__":  # pragma: no cover - manual inspection helper
    import json
    import sys

    with open(sys.argv[1], encoding="utf-8") as fh:
        print(json.dumps(extract(fh.read()), indent=1))
