"""The committed seed manifest, the seeds and the loaded schemas agree — and the comparator
that says so reports every kind of drift."""

from __future__ import annotations

import copy
import json

import pytest

from app.codec.registry import build_registry
from tests.schemas.schema_check import (
    MANIFEST_PATH,
    SEED_FILES,
    compare,
    extract_from_seed,
    seed_dir,
)

FAMILIES = sorted(SEED_FILES)


@pytest.fixture(scope="module")
def manifest() -> dict:
    return json.loads(MANIFEST_PATH.read_text(encoding="utf-8"))


def test_manifest_covers_every_seed_family(manifest):
    assert sorted(manifest) == FAMILIES
    for family in FAMILIES:
        assert manifest[family]["structs"], family
        assert manifest[family]["enums"], family


@pytest.mark.parametrize("family", FAMILIES)
def test_committed_manifest_matches_the_seed(family, manifest):
    seed = seed_dir() / SEED_FILES[family]
    if not seed.is_file():
        pytest.skip(f"seed {seed} not available (set FIELDSTATION_SEEDS to the seeds folder)")
    assert extract_from_seed(family) == manifest[family], (
        "seed and committed manifest differ: regenerate with "
        "`python -m tests.schemas.schema_check --write` and review the diff"
    )


@pytest.mark.parametrize("family", FAMILIES)
def test_schemas_match_the_committed_manifest(family, manifest):
    assert compare(family, manifest[family]) == []


# ---- the comparator reports drift ---------------------------------------------------


def _first_field(family_manifest: dict, type_prefix: str = "") -> tuple[str, str, dict]:
    for struct, fields in sorted(family_manifest["structs"].items()):
        for name, spec in sorted(fields.items()):
            if spec["type"].startswith(type_prefix):
                return struct, name, spec
    raise AssertionError("no such field")


@pytest.mark.parametrize("family", FAMILIES)
def test_changed_ordinal_is_reported(family, manifest):
    changed = copy.deepcopy(manifest[family])
    struct, name, spec = _first_field(changed)
    spec["ordinal"] += 1
    problems = compare(family, changed)
    assert problems == [
        f"{family}.{struct}.{name}: ordinal @{spec['ordinal'] - 1}, seed says @{spec['ordinal']}"
    ]


@pytest.mark.parametrize("family", FAMILIES)
def test_renamed_field_is_reported(family, manifest):
    changed = copy.deepcopy(manifest[family])
    struct, name, _spec = _first_field(changed)
    changed["structs"][struct][name + "Renamed"] = changed["structs"][struct].pop(name)
    assert compare(family, changed) == [f"{family}.{struct}: missing field {name}Renamed"]


@pytest.mark.parametrize("family", FAMILIES)
def test_changed_type_is_reported(family, manifest):
    changed = copy.deepcopy(manifest[family])
    struct, name, spec = _first_field(changed, "Float")
    wrong = "Float32" if spec["type"] == "Float64" else "Float64"
    spec["type"] = wrong
    problems = compare(family, changed)
    assert len(problems) == 1
    assert problems[0].startswith(f"{family}.{struct}.{name}: type ")
    assert problems[0].endswith(f"seed says {wrong}")


def test_changed_list_element_type_is_reported(manifest):
    changed = copy.deepcopy(manifest["fleet"])
    changed["structs"]["ShapeData"]["multiLineString"]["type"] = "List(GeoPoint2)"
    assert compare("fleet", changed) == [
        "fleet.ShapeData.multiLineString: type List(List(GeoPoint2)), seed says List(GeoPoint2)"
    ]


@pytest.mark.parametrize("family", FAMILIES)
def test_changed_enum_value_is_reported(family, manifest):
    changed = copy.deepcopy(manifest[family])
    enum, enumerants = sorted(changed["enums"].items())[0]
    enumerant, number = sorted(enumerants.items())[0]
    enumerants[enumerant] = number + 100
    assert compare(family, changed) == [
        f"{family}.{enum}.{enumerant}: value {number}, seed says {number + 100}"
    ]


def test_renamed_enumerant_is_reported(manifest):
    changed = copy.deepcopy(manifest["fleet"])
    changed["enums"]["LayerRole"]["keepOut"] = changed["enums"]["LayerRole"].pop("keepout")
    assert compare("fleet", changed) == ["fleet.LayerRole.keepOut: value None, seed says 2"]


@pytest.mark.parametrize("family", FAMILIES)
def test_struct_missing_from_the_schemas_is_reported(family, manifest):
    struct = sorted(manifest[family]["structs"])[0]
    reg = build_registry([family])
    del reg.structs[f"{family}.{struct}"]
    assert compare(family, manifest[family], reg) == [f"missing struct {family}.{struct}"]


@pytest.mark.parametrize("family", FAMILIES)
def test_enum_missing_from_the_schemas_is_reported(family, manifest):
    enum = sorted(manifest[family]["enums"])[0]
    reg = build_registry([family])
    del reg.enums[f"{family}.{enum}"]
    assert compare(family, manifest[family], reg) == [f"missing enum {family}.{enum}"]
