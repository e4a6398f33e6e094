"""RViz markers as Foxglove reads them: each kind a primitive of an entity ``<ns>/<id>``,
deletions as deletions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from app.codec.decode import decode, encoding_for
from app.convert.models import SceneChange
from app.convert.registry import get_converter
from app.ros2.cdr import RosTypes
from app.ros2.translate import translate, translation_for

ARRAY = "visualization_msgs/msg/MarkerArray"


@pytest.fixture(scope="module")
def types() -> RosTypes:
    return RosTypes()


def marker(types: RosTypes, kind: int, action: int = 0, points: tuple = (),
           colors: tuple = (), scale: tuple = (1.0, 1.0, 1.0), marker_id: int = 7) -> Any:
    new = types.message
    stamp = new("builtin_interfaces/msg/Time", sec=5, nanosec=0)
    return new(
        "visualization_msgs/msg/Marker",
        header=new("std_msgs/msg/Header", stamp=stamp, frame_id="map"), ns="plan",
        id=marker_id, type=kind, action=action,
        pose=new("geometry_msgs/msg/Pose",
                 position=new("geometry_msgs/msg/Point", x=1.0, y=2.0, z=0.0),
                 orientation=new("geometry_msgs/msg/Quaternion", x=0.0, y=0.0, z=0.0, w=1.0)),
        scale=new("geometry_msgs/msg/Vector3", x=scale[0], y=scale[1], z=scale[2]),
        color=new("std_msgs/msg/ColorRGBA", r=0.0, g=1.0, b=0.0, a=1.0),
        lifetime=new("builtin_interfaces/msg/Duration", sec=0, nanosec=0),
        frame_locked=False,
        points=[new("geometry_msgs/msg/Point", x=p[0], y=p[1], z=p[2]) for p in points],
        colors=[new("std_msgs/msg/ColorRGBA", r=c[0], g=c[1], b=c[2], a=c[3])
                for c in colors],
        texture_resource="", texture=new(
            "sensor_msgs/msg/CompressedImage", header=new(
                "std_msgs/msg/Header", stamp=stamp, frame_id=""), format="",
            data=np.zeros(0, np.uint8)),
        uv_coordinates=[], text="", mesh_resource="",
        mesh_file=new("visualization_msgs/msg/MeshFile", filename="",
                      data=np.zeros(0, np.uint8)),
        mesh_use_embedded_materials=False)


def shown(types: RosTypes, *markers: Any) -> SceneChange:
    """The markers as the station takes them: CDR, decoded, translated, converted."""
    cdr = types.encode(ARRAY, types.message(ARRAY, markers=list(markers)))
    translation = translation_for(ARRAY, "/markers")
    assert translation is not None
    ((said, _),) = translate(translation, ARRAY, types.decode(ARRAY, cdr), "rover_1")
    return get_converter("foxglove.scene_update")(decode(encoding_for("foxglove.SceneUpdate"),
                                                         said))


def test_a_path_as_a_line_strip_and_its_points_as_cubes(types: RosTypes) -> None:
    path = ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (1.0, 1.0, 0.0))
    change = shown(types, marker(types, 4, points=path, scale=(0.05, 0, 0)),
                   marker(types, 8, points=path, marker_id=8,
                          colors=((1, 0, 0, 1), (0, 1, 0, 1), (0, 0, 1, 1))))
    line, dots = change.entities
    assert line.id == "plan/7" and line.frame_id == "map"
    (strip,) = line.primitives
    assert strip.kind == "line_strip" and strip.points is not None
    assert strip.points.tolist() == [list(p) for p in path]
    assert [d.kind for d in dots.primitives] == ["cube"] * 3
    assert [d.pose[:3] for d in dots.primitives] == [(1.0, 2.0, 0.0), (2.0, 2.0, 0.0),
                                                     (2.0, 3.0, 0.0)]
    assert dots.primitives[2].color == (0.0, 0.0, 1.0, 1.0)  # each point its colour


def test_an_arrow_between_two_points_points_from_the_first(types: RosTypes) -> None:
    change = shown(types, marker(types, 0, points=((0, 0, 0), (0, 2, 0)),
                                 scale=(0.1, 0.2, 0.5)))
    (arrow,) = change.entities[0].primitives
    assert arrow.kind == "arrow" and arrow.pose[:3] == (0.0, 0.0, 0.0)
    x, y, z, w = arrow.pose[3:]
    assert (x, y) == pytest.approx((0, 0)) and z == pytest.approx(w)  # +90° about z: +y


def test_delete_and_delete_all_are_deletions(types: RosTypes) -> None:
    change = shown(types, marker(types, 1, action=2), marker(types, 1, action=3))
    assert change.deletions == ("plan/7",) and change.delete_all
    assert change.entities == ()


def test_a_marker_kind_newer_than_these_draws_nothing_and_costs_nothing(
        types: RosTypes) -> None:
    change = shown(types, marker(types, 42), marker(types, 2, marker_id=9))
    assert [len(e.primitives) for e in change.entities] == [0, 1]
