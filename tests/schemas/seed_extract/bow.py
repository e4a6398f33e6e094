"""Manifest extractor for the `bow` family (seed 001_60c9e6930b4fc48b.txt).

The seed is the text rendering of protoc-gen-doc HTML for several .proto files
(``bow_data_audio.proto``, ``bow_data_common.proto``, ...). The table cells lost
their separators, so every row is the columns glued together:

* message tables (header ``FieldTypeLabelDescription``): ``name type [label] description``,
  e.g. ``SamplesAudioSamplerepeatedSamples is ...`` = ``Samples`` / ``AudioSample`` /
  ``repeated`` / ``Samples is ...``;
* enum tables (header ``NameNumberDescription``): ``NAME number description``,
  e.g. ``H2640h264 compression`` = ``H264`` / ``0`` / ``h264 compression``.

Layout of one .proto section: the file name line, then per message/enum a heading
line (its name, dotted for nested ones: ``AudioSample.CompressionFormatEnum``), an
optional description paragraph and its table; a message with no fields has no table
(``VelocityTargetStatus``). The section ends at ``Top``; the trailing
``Scalar Value Types`` table is protoc-gen-doc boilerplate, not a message.

Field rows are split with the known type names as keys: the protobuf scalars plus
every message/enum heading of the seed. Every possible split
``identifier + known type + optional label + rest`` is generated and the most
plausible kept (see ``_split_field``). Enum rows are split so that the number is the
row's position (PROTOCOL.md: all bow enums are consecutive from 0); a row that
cannot be split that way raises. Any row that does not split raises ``SeedError``,
so a changed seed fails loudly instead of producing a different manifest.

Translation follows PROTOCOL.md: fields numbered @0.. in seed order, names via
naming.py, scalar types by its table, ``repeated X`` -> ``List(X)``, nested ``A.B``
-> nested. ``extract`` returns the manifest; ``parse`` also keeps the .proto file,
the descriptions and the seed spellings (used to write schemas/bow.capnp).
"""

from __future__ import annotations

import re

try:  # imported as a package module (tests.schemas.seed_extract.bow)
    from .naming import member_name, type_name
except ImportError:  # run as a plain script next to naming.py
    from naming import member_name, type_name  # type: ignore

# protobuf scalar -> capnp (PROTOCOL.md's table; the s/fixed variants by their width
# and signedness, the table does not list them and the seed does not use them).
SCALARS = {
    "double": "Float64",
    "float": "Float32",
    "int32": "Int32",
    "uint32": "UInt32",
    "int64": "Int64",
    "uint64": "UInt64",
    "sint32": "Int32",
    "sint64": "Int64",
    "fixed32": "UInt32",
    "fixed64": "UInt64",
    "sfixed32": "Int32",
    "sfixed64": "Int64",
    "bool": "Bool",
    "string": "Text",
    "bytes": "Data",
}
# Scalars PROTOCOL.md's type table does not list: a split using one of them loses to one
# using a listed type: `TimeBetweenScansint64` is `TimeBetweenScans` + int64,
# not `...Scan` + sint64.
UNLISTED_SCALARS = frozenset(
    {"sint32", "sint64", "fixed32", "fixed64", "sfixed32", "sfixed64"}
)
LABELS = ("repeated", "optional", "required")
FIELD_HEADER = "FieldTypeLabelDescription"
ENUM_HEADER = "NameNumberDescription"
FILE_RE = re.compile(r"^[A-Za-z0-9_.-]+\.proto$")
HEADING_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SECTION_END = ("Top", "Scalar Value Types", "On this page")


class SeedError(ValueError):
    """The seed text does not have the layout this parser understands."""


def _paragraphs(lines: list[str]) -> list[list[str]]:
    out: list[list[str]] = []
    cur: list[str] = []
    for line in lines:
        if line.strip():
            cur.append(line.strip())
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def _sections(text: str) -> list[tuple[str, list[list[str]]]]:
    """``[(proto file name, paragraphs after it)]`` in seed order."""
    sections: list[tuple[str, list[str]]] = []
    current: list[str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if FILE_RE.match(line):
            current = []
            sections.append((line, current))
        elif line in SECTION_END:
            current = None
        elif current is not None:
            current.append(line)
    if not sections:
        raise SeedError("no .proto sections found")
    return [(name, _paragraphs(body)) for name, body in sections]


def _is_heading(par: list[str]) -> bool:
    return (
        len(par) == 1
        and bool(HEADING_RE.match(par[0]))
        and par[0]
        not in (
            FIELD_HEADER,
            ENUM_HEADER,
        )
    )


def _blocks(text: str) -> list[dict]:
    """Every documented message/enum: name, kind, file, description, raw rows."""
    blocks: list[dict] = []
    for file_name, pars in _sections(text):
        i = 0
        seen_enum = False
        while i < len(pars):
            par = pars[i]
            if not _is_heading(par):
                raise SeedError(
                    f"{file_name}: expected a message/enum heading, got {par[0]!r}"
                )
            block = {"name": par[0], "file": file_name, "description": "", "rows": []}
            i += 1
            if (
                i < len(pars)
                and not _is_heading(pars[i])
                and pars[i][0]
                not in (
                    FIELD_HEADER,
                    ENUM_HEADER,
                )
            ):
                block["description"] = " ".join(pars[i])
                i += 1
            if i < len(pars) and pars[i][0] in (FIELD_HEADER, ENUM_HEADER):
                block["kind"] = "message" if pars[i][0] == FIELD_HEADER else "enum"
                block["rows"] = pars[i][1:]
                i += 1
            else:
                # protoc-gen-doc prints no table for a message without fields; a proto3
                # enum always has a value 0, so a table-less block must be a message,
                # and protoc-gen-doc lists a file's messages before its enums.
                if seen_enum:
                    raise SeedError(
                        f"{file_name}: table-less block {block['name']} among enums"
                    )
                block["kind"] = "message"
            if block["kind"] == "enum":
                seen_enum = True
            elif seen_enum:
                raise SeedError(f"{file_name}: message {block['name']} after the enums")
            if not block["rows"] and block["kind"] == "enum":
                raise SeedError(f"{file_name}: enum {block['name']} has no values")
            blocks.append(block)
    return blocks


def _split_candidates(
    row: str, known_types: list[str]
) -> list[tuple[str, str, str, str]]:
    """Every ``(name, type, label, description)`` reading of a glued field row."""
    out = []
    for i in range(1, len(row)):
        if not IDENT_RE.match(row[:i]):
            break
        for t in known_types:
            if not row.startswith(t, i):
                continue
            rest = row[i + len(t) :]
            label = next((lab for lab in LABELS if rest.startswith(lab)), "")
            desc = rest[len(label) :]
            if desc[:1].isspace():
                continue  # a description never starts with a blank: the name ate its first word
            out.append((row[:i], t, label, desc))
    return out


def _score(cand: tuple[str, str, str, str]) -> tuple:
    name, typ, _label, desc = cand
    return (
        # the whole row is name+type(+label): the field has no description
        desc == "",
        # descriptions usually start with the field's own name ("Samples is ...")
        bool(re.match(re.escape(name) + r"(?![A-Za-z0-9_])", desc)),
        # a description does not start in the middle of a CamelCase word ("sJoint...")
        not re.match(r"[a-z0-9]+[A-Z]", desc),
        # `...Scansint64` is `Scans` + int64, not `Scan` + sint64 (PROTOCOL.md maps no sint64)
        typ not in UNLISTED_SCALARS,
        # at one position prefer the longer type (`Environment.SensorTypeEnum` over `Environment`)
        len(typ),
    )


def _split_field(
    row: str, known_types: list[str], where: str
) -> tuple[str, str, str, str]:
    cands = _split_candidates(row, known_types)
    if not cands:
        raise SeedError(
            f"{where}: field row does not split into name/type/label/description: {row!r}"
        )
    cands.sort(key=_score, reverse=True)
    if len(cands) > 1 and _score(cands[0]) == _score(cands[1]):
        raise SeedError(
            f"{where}: ambiguous field row {row!r}: {cands[0]} vs {cands[1]}"
        )
    return cands[0]


def _split_enum(row: str, number: int, where: str) -> tuple[str, int, str]:
    """``NAME`` + ``number`` + description; the number is the row's position."""
    digits = str(number)
    found = []
    for i in range(1, len(row) - len(digits) + 1):
        if not IDENT_RE.match(row[:i]):
            break
        if row.startswith(digits, i):
            rest = row[i + len(digits) :]
            if rest[:1].isdigit() or rest[:1].isspace():
                continue  # the number ends before the description, which starts with a word
            found.append((row[:i], number, rest))
    if len(found) != 1:
        raise SeedError(
            f"{where}: enum row {row!r} does not split as NAME{digits}description "
            f"(bow enums are consecutive from 0): {found}"
        )
    return found[0]


def parse(text: str) -> dict:
    """The seed's messages and enums with seed spellings, files and descriptions."""
    blocks = _blocks(text)
    names = [b["name"] for b in blocks]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise SeedError(f"message/enum names documented twice: {dupes}")
    kinds = {b["name"]: b["kind"] for b in blocks}
    for name in names:
        if "." in name:
            parent = name.rsplit(".", 1)[0]
            if kinds.get(parent) != "message":
                raise SeedError(f"{name}: parent {parent} is not a documented message")
    # longest first only for readability of errors; _score decides between splits
    known_types = sorted(set(SCALARS) | set(names), key=lambda t: (-len(t), t))
    for b in blocks:
        where = f"{b['file']}: {b['name']}"
        if b["kind"] == "message":
            fields = []
            for row in b["rows"]:
                fname, ftype, label, desc = _split_field(row, known_types, where)
                fields.append(
                    {"name": fname, "type": ftype, "label": label, "description": desc}
                )
            b["fields"] = fields
        else:
            values = []
            for number, row in enumerate(b["rows"]):
                vname, num, desc = _split_enum(row, number, where)
                values.append({"name": vname, "number": num, "description": desc})
            b["values"] = values
    return {"blocks": blocks}


def capnp_type(seed_type: str, label: str) -> str:
    base = SCALARS.get(seed_type) or type_name(seed_type).rsplit(".", 1)[-1]
    return f"List({base})" if label == "repeated" else base


def extract(text: str) -> dict:
    structs: dict[str, dict] = {}
    enums: dict[str, dict] = {}
    for b in parse(text)["blocks"]:
        qualified = type_name(b["name"])
        if b["kind"] == "message":
            fields: dict[str, dict] = {}
            for ordinal, f in enumerate(b["fields"]):
                name = member_name(f["name"])
                if name in fields:
                    raise SeedError(f"{b['name']}: two fields translate to {name}")
                fields[name] = {
                    "ordinal": ordinal,
                    "type": capnp_type(f["type"], f["label"]),
                }
            structs[qualified] = fields
        else:
            values: dict[str, int] = {}
            for v in b["values"]:
                name = member_name(v["name"])
                if name in values:
                    raise SeedError(f"{b['name']}: two enumerants translate to {name}")
                values[name] = v["number"]
            enums[qualified] = values
    return {"structs": structs, "enums": enums}


if __name__ == "__main__":  # pragma: no cover - debugging aid
    import json
    import sys
    from pathlib import Path

    print(json.dumps(extract(Path(sys.argv[1]).read_text(encoding="utf-8")), indent=1))
