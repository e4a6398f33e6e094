"""schemas.loader and the registry built from it: every file once, every name right."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import schemas.loader as loader
from app.codec.registry import build_registry, registry

REPO = Path(__file__).resolve().parents[2]


def test_each_file_loads_once_and_is_reused():
    for family in loader.FAMILIES:
        for path in loader.family_files(family):
            assert loader.load_file(path) is loader.load_file(path)
            assert loader.load_family(family)[path.stem] is loader.load_file(path)


def test_building_registries_never_loads_a_file_twice():
    """Counted in a fresh interpreter: every registry, family and file look-up after the
    first reuses the loaded module, so capnp.load runs once per .capnp file."""
    script = """
import json, capnp
calls = []
real_load = capnp.load
capnp.load = lambda path, *a, **k: calls.append(path) or real_load(path, *a, **k)
from app.codec.registry import build_registry, registry
from schemas.loader import FAMILIES, family_files, load_family
registry(); build_registry(); build_registry(["autoware"]); build_registry(["fleet", "isaac"])
for family in FAMILIES:
    load_family(family)
files = [str(p) for f in FAMILIES for p in family_files(f)]
print(json.dumps({"calls": calls, "files": files}))
"""
    run = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert sorted(result["calls"]) == sorted(result["files"])


def test_family_files():
    assert [p.name for p in loader.family_files("fleet")] == ["fleet.capnp"]
    autoware = [p.name for p in loader.family_files("autoware")]
    assert autoware == sorted(autoware)
    assert "traffic_simulator_msgs.capnp" in autoware
    assert "simulation_api_schema.capnp" in autoware
    with pytest.raises(KeyError):
        loader.family_files("ros")


def test_imported_types_are_the_registered_types():
    """A struct used across autoware files (imported) is the same node as the registered
    one, so a field's type always has one name."""
    reg = registry()
    command = reg.structs["autoware.traffic_simulator_msgs.VehicleCommand"].schema
    field = command.fields["ackermannControlCommand"].proto.slot.type
    name = reg.name_of(field.struct.typeId)
    assert name == "autoware.autoware_auto_control_msgs.AckermannControlCommand"


def test_every_node_has_exactly_one_name():
    reg = registry()
    names = {**reg.structs, **reg.enums}
    assert len(reg.names_by_id) == len(names)
    for name, obj in names.items():
        assert reg.name_of(obj.schema.node.id) == name


def test_packaged_family_names_keep_the_package():
    reg = registry()
    sim = reg.structs["autoware.simulation_api_schema.EntityStatus"]
    traffic = reg.structs["autoware.traffic_simulator_msgs.EntityStatus"]
    assert sim.schema.node.id != traffic.schema.node.id
    assert set(sim.schema.fieldnames) != set(traffic.schema.fieldnames)
    assert "autoware.EntityStatus" not in reg.structs
    assert "autoware.geometry_msgs.Pose" in reg.structs
    assert not any(name.startswith("isaac.isaac") for name in reg.structs)


@pytest.mark.parametrize(
    "name",
    ["fleet.Uplink", "fleet.Command", "transport.Buffers", "transport.Catalog",
     "transport.TopicInfo", "foxglove.Time", "isaac.ImageProto", "isaac.TensorProto",
     "isaac.Detections3Proto", "bow.MotorSample", "foxglove.PointCloud",
     "isaac.ObstaclesProto.SphereObstacleProto"],
)
def test_struct_is_registered(name):
    assert name in registry().structs
    assert name not in registry().enums


def test_nested_enum_is_an_enum():
    reg = registry()
    assert "isaac.ColorCameraProto.ColorSpace" in reg.enums
    assert "isaac.ColorCameraProto.ColorSpace" not in reg.structs
    assert reg.enums["isaac.ColorCameraProto.ColorSpace"].schema.enumerants["rgb"] == 1


def test_registry_of_some_families_has_only_those():
    reg = build_registry(["transport", "fleet"])
    assert {name.split(".", 1)[0] for name in reg.structs} == {"transport", "fleet"}
    assert reg.structs["fleet.Uplink"].schema.node.id == (
        registry().structs["fleet.Uplink"].schema.node.id
    )


def test_schema_dir_is_found_from_the_loaders_own_file(tmp_path):
    """Like a wheel or a PyInstaller bundle: the package copied elsewhere, run from yet
    another folder, loads the .capnp files next to its own loader.py."""
    bundle = tmp_path / "bundle"
    shutil.copytree(REPO / "schemas", bundle / "schemas",
                    ignore=shutil.ignore_patterns("__pycache__"))
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    script = """
import json, schemas.loader as l
print(json.dumps({"dir": str(l.SCHEMA_DIR),
                  "files": [str(p) for f in l.FAMILIES for p in l.family_files(f)],
                  "uplink": hasattr(l.load_family("fleet")["fleet"], "Uplink")}))
"""
    run = subprocess.run([sys.executable, "-c", script], cwd=elsewhere, capture_output=True,
                         text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(bundle)})
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert Path(result["dir"]) == (bundle / "schemas").resolve()
    assert result["files"] and all(
        Path(f).resolve().is_relative_to((bundle / "schemas").resolve()) for f in result["files"]
    )
    assert len(result["files"]) == sum(len(loader.family_files(f)) for f in loader.FAMILIES)
    assert result["uplink"]
    assert Path(loader.__file__).resolve().parent == loader.SCHEMA_DIR
