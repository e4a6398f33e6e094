"""Scene layers: models placed in the fixed frame, or not drawn with the reason."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.convert.models import (
    WGS84,
    Box,
    Boxes,
    PointCloud,
    Poses,
    Primitive,
    Scene,
    SceneChange,
    SceneEntity,
    Transform,
    Transforms,
)
from app.scene.layers import SceneModel


def placed(group, points) -> np.ndarray:
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    return (group.matrix @ np.c_[points, np.ones(len(points))].T).T[:, :3]


def test_a_cloud_in_its_topic_frame_is_placed_through_the_tree() -> None:
    scene = SceneModel()
    tf = scene.layer("fleet/r1/tf", "r1", "foxglove.FrameTransforms", "foxglove.transforms")
    scene.take(tf, Transforms((Transform("map", "base_link", (10.0, 0.0, 0.0)),
                               Transform("base_link", "lidar", (0.0, 0.0, 1.0)))), 1, "")
    cloud = scene.layer("fleet/r1/lidar/points", "r1", "isaac.PointCloudProto",
                        "isaac.point_cloud", topic_frame="lidar")
    xyz = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]], np.float32)
    scene.take(cloud, PointCloud(xyz), 1, "")
    assert scene.default_fixed_frame("r1") == "r1/map"
    [group] = scene.groups(cloud, "r1/map")
    assert group.drawables.points is xyz  # handed on by reference, never copied
    assert placed(group, xyz) == pytest.approx(np.array([[11, 0, 1], [10, 2, 1]]))
    assert cloud.frame_problem == ""


def test_an_item_in_an_unknown_frame_is_not_drawn_and_the_layer_says_why() -> None:
    scene = SceneModel()
    boxes = scene.layer("fleet/r1/boxes", "r1", "isaac.Detections3Proto", "isaac.detections3")
    scene.take(boxes, Boxes((Box((1.0, 0.0, 0.0), (1.0, 1.0, 1.0), label="cone"),),
                            frame_id="nowhere"), 1, "")
    assert scene.groups(boxes, "r1/map") == []
    assert "r1/nowhere" in boxes.frame_problem


def test_a_conversion_error_keeps_the_last_good_model_and_shows_the_error() -> None:
    scene = SceneModel()
    layer = scene.layer("fleet/r1/poses", "r1", "foxglove.PoseInFrame", "foxglove.pose")
    scene.take(layer, Poses(np.array([[0, 0, 0, 0, 0, 0, 1.0]])), 1, "")
    scene.take(layer, None, 2, "NaN pose")
    assert layer.error == "NaN pose" and len(layer.models) == 1
    assert scene.groups(layer, "r1/base_link")


def test_entities_accumulate_expire_and_are_deleted() -> None:
    scene = SceneModel()
    layer = scene.layer("fleet/r1/scene", "r1", "foxglove.SceneUpdate", "foxglove.scene")
    cube = Primitive("cube", size=(1.0, 1.0, 1.0))
    scene.take(layer, SceneChange((SceneEntity("a", (cube,)), SceneEntity("b", (cube,)),
                                   SceneEntity("c", (cube,), lifetime_s=1e-6))), 1, "")
    scene.groups(layer, "r1/base_link")
    assert set(layer.entities) == {"a", "b"}  # c outlived its lifetime
    scene.take(layer, SceneChange(deletions=("a",)), 2, "")
    assert set(layer.entities) == {"b"}
    scene.take(layer, SceneChange(delete_all=True), 3, "")
    assert layer.entities == {}


def test_a_geodetic_pose_with_a_local_one_puts_the_robot_frame_on_the_earth() -> None:
    scene = SceneModel()
    motion = scene.layer("fleet/r1/uplink/motion", "r1", "fleet.Uplink", "fleet.uplink")
    yaw = (0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4))  # facing north
    scene.take(motion, Scene((Poses(np.array([[8.0, 47.0, 400.0, *yaw]]), frame_id=WGS84),
                              Poses(np.array([[5.0, 0.0, 0.0, *yaw]]), frame_id="map"))), 1, "")
    assert scene.datum == (8.0, 47.0, 400.0)
    m = scene.tree.lookup("enu", "r1/map").matrix
    assert (m @ [5.0, 0.0, 0.0, 1.0])[:3] == pytest.approx((0, 0, 0), abs=1e-6)
    assert scene.default_fixed_frame("r1") == "r1/map"
    groups = scene.groups(motion, "enu")  # one group per frame; both poses at the datum
    assert len(groups) == 2
    for group in groups:
        where = placed(group, group.drawables.picks[0].position)[0]
        assert where == pytest.approx((0, 0, 0), abs=1e-6)
