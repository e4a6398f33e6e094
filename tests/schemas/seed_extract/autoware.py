"""Manifest of the autoware seed (004): a protoc-gen-doc page of several .proto packages.

Layout of the seed text (one item per line, headings end in ``#``):

- ``<package>.proto#`` opens a package section; ``Top`` lines are navigation artefacts.
- ``<Name>#`` (``Outer.Inner#`` for nested types) opens a message or enum, optionally
  followed by prose, then a table:
  ``Field Type Label Description`` rows ``name type [repeated] [description ...]`` (message),
  ``Name Number Description`` rows ``NAME number [description ...]`` (enum).
- A heading without a table is an empty message (``traffic_simulator_msgs.Property``).
- ``Scalar Value Types#`` ends the documentation; everything after it is ignored.

Seed defect handled here: the ``std_msgs.proto`` section has no message heading, only the
prose "Protobuf definition of std_msgs::msgs::Header type in ROS 2." and a field table.
A table without a heading is named from such a sentence (``<package>::msg(s)::<Name>`` or
``<package>/msg/<Name>``, the package being the current one); anything else is an error.

Type references are resolved like protoc does: ``pkg.Type`` names another package;
otherwise the innermost enclosing scope first (``TrafficLight.Color`` inside
``simulation_api_schema``). Every reference must resolve or extract() raises.

Manifest names are the capnp names: qualified ``<package>.<Type>`` (nested:
``simulation_api_schema.TrafficLight.Color``), members via naming.member_name, field
types as capnp primitives or the referenced type's simple name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tests.schemas.seed_extract.naming import member_name, type_name

SCALARS = {
    "double": "Float64", "float": "Float32",
    "int32": "Int32", "sint32": "Int32", "sfixed32": "Int32",
    "int64": "Int64", "sint64": "Int64", "sfixed64": "Int64",
    "uint32": "UInt32", "fixed32": "UInt32",
    "uint64": "UInt64", "fixed64": "UInt64",
    "bool": "Bool", "string": "Text", "bytes": "Data",
}
LABELS = ("repeated", "optional", "required")
FIELD_HEADER = "Field Type Label Description"
ENUM_HEADER = "Name Number Description"
END_HEADING = "Scalar Value Types"

_PACKAGE_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\.proto#$")
_TYPE_HEADING_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)#$")
_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_TYPE_REF_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
_ENUM_NUMBER_RE = re.compile(r"^-?[0-9]+$")


@dataclass
class SeedField:
    name: str           # seed spelling
    type: str           # seed spelling (scalar or type reference)
    label: str          # "" or one of LABELS
    description: str


@dataclass
class SeedType:
    package: str
    name: str           # seed spelling, nested with dots ("TrafficLight.Color")
    kind: str           # "struct" or "enum"
    doc: str = ""
    fields: list[SeedField] = field(default_factory=list)
    values: list[tuple[str, int, str]] = field(default_factory=list)


def parse(text: str) -> tuple[list[str], list[SeedType]]:
    """Packages (in seed order) and every documented message/enum (in seed order)."""
    lines = [line.strip() for line in text.splitlines()]
    packages: list[str] = []
    types: list[SeedType] = []
    package: str | None = None
    pending: SeedType | None = None   # heading seen, table (if any) not yet
    prose: list[str] = []             # prose lines since the last heading
    i = 0

    def flush_pending() -> None:
        nonlocal pending
        if pending is not None:       # heading without a table: empty message
            types.append(pending)
            pending = None

    while i < len(lines):
        line = lines[i]
        i += 1
        if not line or line == "Top":
            continue
        if line == END_HEADING + "#":
            break
        m = _PACKAGE_RE.match(line)
        if m:
            flush_pending()
            package = m.group(1)
            if package in packages:
                raise ValueError(f"package {package} documented twice")
            packages.append(package)
            prose = []
            continue
        if package is None:           # page header before the first package
            continue
        m = _TYPE_HEADING_RE.match(line)
        if m:
            flush_pending()
            pending = SeedType(package, m.group(1), "struct")
            prose = []
            continue
        if line in (FIELD_HEADER, ENUM_HEADER):
            if pending is None:
                pending = SeedType(package, _name_from_prose(package, prose, line), "struct")
            current = pending
            pending = None
            current.kind = "struct" if line == FIELD_HEADER else "enum"
            current.doc = " ".join(prose)
            while i < len(lines) and lines[i]:
                row = lines[i]
                i += 1
                if current.kind == "struct":
                    current.fields.append(_field_row(current, row))
                else:
                    current.values.append(_enum_row(current, row))
            types.append(current)
            prose = []
            continue
        prose.append(line)            # description text of the pending type
        if pending is not None:
            pending.doc = " ".join(prose)
    flush_pending()

    seen: set[tuple[str, str]] = set()
    for t in types:
        if (t.package, t.name) in seen:
            raise ValueError(f"{t.package}.{t.name} documented twice")
        seen.add((t.package, t.name))
    return packages, types


_PROSE_NAME_RE = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*)(?:::msgs?::|/msgs?/)([A-Za-z_][A-Za-z0-9_]*)")


def _name_from_prose(package: str, prose: list[str], header: str) -> str:
    for line in prose:
        for m in _PROSE_NAME_RE.finditer(line):
            if m.group(1) == package:
                return m.group(2)
    raise ValueError(f"{package}: table {header!r} without a heading and no name in its prose")


def _field_row(owner: SeedType, row: str) -> SeedField:
    tokens = row.split()
    if len(tokens) < 2 or not _IDENT_RE.match(tokens[0]) or not _TYPE_REF_RE.match(tokens[1]):
        raise ValueError(f"{owner.package}.{owner.name}: malformed field row {row!r}")
    label = tokens[2] if len(tokens) > 2 and tokens[2] in LABELS else ""
    rest = tokens[3:] if label else tokens[2:]
    return SeedField(tokens[0], tokens[1], label, " ".join(rest))


def _enum_row(owner: SeedType, row: str) -> tuple[str, int, str]:
    tokens = row.split()
    if len(tokens) < 2 or not _IDENT_RE.match(tokens[0]) or not _ENUM_NUMBER_RE.match(tokens[1]):
        raise ValueError(f"{owner.package}.{owner.name}: malformed enum row {row!r}")
    return tokens[0], int(tokens[1]), " ".join(tokens[2:])


def resolve(ref: str, owner: SeedType, packages: list[str],
            known: dict[tuple[str, str], SeedType]) -> SeedType:
    """The type a field of ``owner`` of seed type ``ref`` refers to (protoc scoping)."""
    first, _, rest = ref.partition(".")
    if rest and first in packages and first != owner.package:
        target = known.get((first, rest))
        if target is None:
            raise ValueError(f"{owner.package}.{owner.name}: unknown type {ref}")
        return target
    if rest and first == owner.package and (owner.package, rest) in known:
        return known[(owner.package, rest)]
    scope = owner.name.split(".")
    while True:
        candidate = ".".join([*scope, ref])
        if (owner.package, candidate) in known:
            return known[(owner.package, candidate)]
        if not scope:
            break
        scope.pop()
    raise ValueError(f"{owner.package}.{owner.name}: unknown type {ref}")


def field_type(f: SeedField, owner: SeedType, packages: list[str],
               known: dict[tuple[str, str], SeedType]) -> str:
    if f.type in SCALARS:
        base = SCALARS[f.type]
    else:
        base = type_name(resolve(f.type, owner, packages, known).name).rsplit(".", 1)[-1]
    return f"List({base})" if f.label == "repeated" else base


def extract(text: str) -> dict:
    packages, types = parse(text)
    known = {(t.package, t.name): t for t in types}
    for t in types:                   # a nested type needs its documented parent
        if "." in t.name and (t.package, t.name.rsplit(".", 1)[0]) not in known:
            raise ValueError(f"{t.package}.{t.name}: parent type is not documented")
    structs: dict[str, dict] = {}
    enums: dict[str, dict] = {}
    for t in types:
        qualified = f"{t.package}.{type_name(t.name)}"
        if t.kind == "struct":
            fields: dict[str, dict] = {}
            for ordinal, f in enumerate(t.fields):
                name = member_name(f.name)
                if name in fields:
                    raise ValueError(f"{qualified}: field name {name} twice")
                fields[name] = {"ordinal": ordinal,
                                "type": field_type(f, t, packages, known)}
            structs[qualified] = fields
        else:
            values: dict[str, int] = {}
            for name, number, _ in t.values:
                cname = member_name(name)
                if cname in values:
                    raise ValueError(f"{qualified}: enumerant {cname} twice")
                values[cname] = number
            enums[qualified] = values
    return {"structs": structs, "enums": enums}
