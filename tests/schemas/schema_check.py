"""Compares the loaded schemas of a family against the manifest extracted from its seed.

Run as ``python -m tests.schemas.schema_check FAMILY`` while writing a schema.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from app.codec.registry import SchemaRegistry, build_registry

REPO = Path(__file__).resolve().parents[2]
MANIFEST_PATH = Path(__file__).with_name("seed_manifest.json")
SEED_FILES = {
    "isaac": "000_fc6f2afadf2cf049.txt",
    "bow": "001_60c9e6930b4fc48b.txt",
    "fleet": "002_128ec5ca0a0bbda8.txt",
    "foxglove": "003_65b1d342b53882aa.txt",
    "autoware": "004_6757b08e925c0467.txt",
}
PRIMITIVES = {
    "void": "Void", "bool": "Bool", "int8": "Int8", "int16": "Int16", "int32": "Int32",
    "int64": "Int64", "uint8": "UInt8", "uint16": "UInt16", "uint32": "UInt32",
    "uint64": "UInt64", "float32": "Float32", "float64": "Float64", "text": "Text",
    "data": "Data", "anyPointer": "AnyPointer",
}


def seed_dir() -> Path:
    return Path(os.environ.get("FIELDSTATION_SEEDS", REPO.parent / "shared" / "seeds"))


def extract_from_seed(family: str) -> dict[str, Any]:
    module = importlib.import_module(f"tests.schemas.seed_extract.{family}")
    text = (seed_dir() / SEED_FILES[family]).read_text(encoding="utf-8")
    return module.extract(text)


def type_string(type_proto: Any, reg: SchemaRegistry) -> str:
    kind = type_proto.which()
    if kind == "list":
        return f"List({type_string(type_proto.list.elementType, reg)})"
    if kind in ("struct", "enum"):
        type_id = getattr(type_proto, kind).typeId
        return reg.name_of(type_id).rsplit(".", 1)[-1]
    return PRIMITIVES.get(kind, kind)


def compare(family: str, manifest: dict[str, Any], reg: SchemaRegistry | None = None) -> list[str]:
    """Every way the family's schemas differ from the manifest, as readable lines."""
    reg = reg or build_registry([family])
    problems: list[str] = []
    for name, fields in manifest["structs"].items():
        full = f"{family}.{name}"
        if full not in reg.structs:
            problems.append(f"missing struct {full}")
            continue
        schema = reg.structs[full].schema
        for field_name, expected in fields.items():
            if field_name not in schema.fields:
                problems.append(f"{full}: missing field {field_name}")
                continue
            proto = schema.fields[field_name].proto
            if proto.which() != "slot":
                problems.append(f"{full}.{field_name}: is a {proto.which()}, not a plain field")
                continue
            ordinal = proto.ordinal.explicit if proto.ordinal.which() == "explicit" else None
            if ordinal != expected["ordinal"]:
                problems.append(
                    f"{full}.{field_name}: ordinal @{ordinal}, seed says @{expected['ordinal']}"
                )
            actual_type = type_string(proto.slot.type, reg)
            if actual_type != expected["type"]:
                problems.append(
                    f"{full}.{field_name}: type {actual_type}, seed says {expected['type']}"
                )
    for name, enumerants in manifest["enums"].items():
        full = f"{family}.{name}"
        if full not in reg.enums:
            problems.append(f"missing enum {full}")
            continue
        actual = reg.enums[full].schema.enumerants
        for enumerant, number in enumerants.items():
            if actual.get(enumerant) != number:
                problems.append(
                    f"{full}.{enumerant}: value {actual.get(enumerant)}, seed says {number}"
                )
    return problems


def main(argv: list[str]) -> int:
    families = argv or list(SEED_FILES)
    failed = False
    for family in families:
        manifest = extract_from_seed(family)
        problems = compare(family, manifest)
        counts = (
            f"{len(manifest['structs'])} structs, {len(manifest['enums'])} enums, "
            f"{sum(len(f) for f in manifest['structs'].values())} fields"
        )
        if problems:
            failed = True
            print(f"{family}: {len(problems)} problems ({counts})")
            print("\n".join(f"  {p}" for p in problems))
        else:
            print(f"{family}: OK ({counts})")
    return 1 if failed else 0


def write_manifest() -> None:
    """Regenerates the committed manifest from the seeds."""
    manifest = {family: extract_from_seed(family) for family in SEED_FILES}
    MANIFEST_PATH.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write"]:
        write_manifest()
        sys.exit(0)
    sys.exit(main(sys.argv[1:]))
