"""Isaac 3D-scene converters through the real wire path: pycapnp builder -> bytes (+ Buffers
attachment) -> codec.decode -> converter -> display model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.codec.buffers import encode_buffers, fill_tensor
from app.codec.decode import DecodedMessage, decode, encoding_for
from app.codec.registry import registry
from app.convert.models import Boxes, PointCloud, Poses, Transforms
from app.convert.registry import ConversionError, get_converter, scene_converter_for

SCENE_CONVERTERS = {
    "isaac.PointCloudProto": "isaac.point_cloud",
    "isaac.Detections3Proto": "isaac.detections3",
    "isaac.Pose3dProto": "isaac.pose3d",
    "isaac.PoseTreeProto": "isaac.pose_tree",
    "isaac.PoseTreeEdgeProto": "isaac.pose_tree_edge",
    "isaac.Plan2Proto": "isaac.plan2",
    "isaac.Goal2Proto": "isaac.goal2",
    "isaac.FlatscanProto": "isaac.flatscan",
    "isaac.RangeScanProto": "isaac.range_scan",
    "isaac.Odometry2Proto": "isaac.odometry2",
}
S = math.sqrt(0.5)


def new(type_name: str, **fields):
    return registry().struct(type_name).new_message(**fields)


def wire(message, buffers=None) -> DecodedMessage:
    type_name = registry().name_of(message.schema.node.id)
    attachment = bytes(encode_buffers(buffers)) if buffers is not None else None
    payload = message.to_bytes()
    message.clear_write_flag()  # tests change and send the same builder again
    return decode(encoding_for(type_name), payload, attachment)


def convert(message, buffers=None):
    decoded = wire(message, buffers)
    return get_converter(scene_converter_for(decoded.type_name))(decoded)


def set_pose3(pose, xyz, wxyz=(1.0, 0.0, 0.0, 0.0)) -> None:
    pose.translation.x, pose.translation.y, pose.translation.z = xyz
    q = pose.rotation.q
    q.w, q.x, q.y, q.z = wxyz


def set_pose2(pose, x, y, yaw) -> None:
    pose.translation.x, pose.translation.y = x, y
    pose.rotation.q.x, pose.rotation.q.y = math.cos(yaw), math.sin(yaw)


@pytest.mark.parametrize("type_name", sorted(SCENE_CONVERTERS))
def test_scene_converter_for_each_type(type_name: str) -> None:
    assert scene_converter_for(type_name) == SCENE_CONVERTERS[type_name]


# -- point cloud ------------------------------------------------------------------------------
def cloud(points, intensities=None, colors=None):
    message = new("isaac.PointCloudProto")
    buffers = [points]
    fill_tensor(message.positions, points, 0)
    if intensities is not None:
        fill_tensor(message.intensities, intensities, len(buffers))
        buffers.append(intensities)
    if colors is not None:
        fill_tensor(message.colors, colors, len(buffers))
        buffers.append(colors)
    return message, buffers


def test_point_cloud_with_float_colors_and_intensities() -> None:
    points = np.arange(12, dtype=np.float32).reshape(4, 3)
    colors = np.array([[0, 0.5, 1], [1, 1, 1], [0, 0, 0], [0.2, 0.4, 0.6]], np.float32)
    result = convert(*cloud(points, np.arange(4, dtype=np.float32), colors))
    assert isinstance(result, PointCloud) and result.dropped == 0 and result.frame_id == ""
    np.testing.assert_array_equal(result.xyz, points)
    assert not result.xyz.flags.writeable  # still a view of the attachment
    np.testing.assert_array_equal(result.intensity, [0, 1, 2, 3])
    assert result.rgb.dtype == np.uint8
    np.testing.assert_array_equal(result.rgb, [[0, 128, 255], [255] * 3, [0] * 3, [51, 102, 153]])


def test_point_cloud_uint8_rgba_colors_drop_alpha_and_follow_dropped_points() -> None:
    points = np.array([[1, 2, 3], [np.nan, 0, 0], [4, 5, 6]], np.float32)
    colors = np.array([[10, 20, 30, 255], [1, 2, 3, 4], [40, 50, 60, 0]], np.uint8)
    result = convert(*cloud(points, colors=colors))
    assert result.dropped == 1
    np.testing.assert_array_equal(result.xyz, [[1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(result.rgb, [[10, 20, 30], [40, 50, 60]])


def test_point_cloud_bad_colors() -> None:
    points = np.zeros((4, 3), np.float32)
    with pytest.raises(ConversionError, match="3 colors for 4 points"):
        convert(*cloud(points, colors=np.zeros((3, 3), np.uint8)))
    with pytest.raises(ConversionError, match=r"need \[N, 3\]"):
        convert(*cloud(points, colors=np.zeros((4, 2), np.uint8)))
    message, buffers = cloud(points, colors=np.zeros((4, 3), np.uint8))
    buffers[1] = buffers[1][:3]
    with pytest.raises(ConversionError, match="needs 12"):
        convert(message, buffers)


# -- detections -------------------------------------------------------------------------------
def detections(count: int):
    message = new("isaac.Detections3Proto")
    predictions = message.init("predictions", count)
    poses = message.init("poses", count)
    boxes = message.init("boundingBoxes", count)
    return message, predictions, poses, boxes


def set_box(box, lo, hi) -> None:
    box.min.x, box.min.y, box.min.z = lo
    box.max.x, box.max.y, box.max.z = hi


def test_detections3_boxes() -> None:
    message, predictions, poses, boxes = detections(2)
    predictions[0].label, predictions[0].confidence = "person", 0.9
    predictions[1].label, predictions[1].confidence = "box", 0.25
    # Rotated 90 degrees about z; the box is offset +1 in x in the object's frame.
    set_pose3(poses[0], (10, 20, 0), (S, 0, 0, S))
    set_box(boxes[0], (0, -1, 0), (2, 1, 2))
    set_pose3(poses[1], (1, 2, 3))
    set_box(boxes[1], (-0.5, -0.5, -0.5), (0.5, 0.5, 0.5))
    result = convert(message)
    assert isinstance(result, Boxes) and len(result.boxes) == 2 and result.frame_id == ""
    first, second = result.boxes
    assert first.label == "person" and first.score == pytest.approx(0.9)
    assert first.center == pytest.approx((10, 21, 1))
    assert first.size == pytest.approx((2, 2, 2))
    assert first.rotation == pytest.approx((0, 0, S, S))
    assert second.center == pytest.approx((1, 2, 3)) and second.size == pytest.approx((1, 1, 1))
    assert second.rotation == (0, 0, 0, 1) and second.label == "box"


def test_detections3_without_predictions_or_poses() -> None:
    message = new("isaac.Detections3Proto")
    set_box(message.init("boundingBoxes", 1)[0], (1, 1, 1), (3, 5, 7))
    (box,) = convert(message).boxes
    assert box.center == (2, 3, 4) and box.size == (2, 4, 6)
    assert box.label == "" and math.isnan(box.score)


def test_detections3_drops_bad_boxes_and_refuses_when_none_is_left() -> None:
    message, predictions, poses, boxes = detections(3)
    for i in range(3):
        set_pose3(poses[i], (i, 0, 0))
        set_box(boxes[i], (0, 0, 0), (1, 1, 1))
        predictions[i].label = f"d{i}"
    poses[0].translation.x = math.nan
    set_box(boxes[1], (0, 0, 0), (-1, 1, 1))  # max below min
    assert [b.label for b in convert(message).boxes] == ["d2"]
    boxes[2].max.z = math.inf
    with pytest.raises(ConversionError, match="none of the 3 detections"):
        convert(message)


def test_detections3_mismatched_lists() -> None:
    message, *_ = detections(2)
    message.init("poses", 3)
    with pytest.raises(ConversionError, match="3 poses for 2 bounding boxes"):
        convert(message)
    message = new("isaac.Detections3Proto")
    message.init("predictions", 1)
    with pytest.raises(ConversionError, match="without bounding boxes"):
        convert(message)
    assert convert(new("isaac.Detections3Proto")).boxes == ()


# -- poses ------------------------------------------------------------------------------------
def test_pose3d() -> None:
    message = new("isaac.Pose3dProto")
    set_pose3(message, (1, 2, 3), (0, 0, 0, 2))  # not unit: normalised
    result = convert(message)
    assert isinstance(result, Poses) and result.poses.shape == (1, 7) and not result.path
    np.testing.assert_allclose(result.poses, [[1, 2, 3, 0, 0, 1, 0]])
    unset = convert(new("isaac.Pose3dProto"))  # zero quaternion: identity
    np.testing.assert_array_equal(unset.poses, [[0, 0, 0, 0, 0, 0, 1]])
    message.translation.y = math.inf
    with pytest.raises(ConversionError, match="not finite"):
        convert(message)
    message.translation.y = 0
    message.rotation.q.w = math.nan
    with pytest.raises(ConversionError, match="not finite"):
        convert(message)


def test_plan2_is_a_path_in_its_frame() -> None:
    message = new("isaac.Plan2Proto", planFrame="map")
    poses = message.init("poses", 3)
    set_pose2(poses[0], 0, 0, 0)
    set_pose2(poses[1], 1, 0, math.pi / 2)
    set_pose2(poses[2], 1, 1, math.pi)
    result = convert(message)
    assert result.path and result.frame_id == "map"
    np.testing.assert_allclose(
        result.poses,
        [[0, 0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, S, S], [1, 1, 0, 0, 0, 1, 0]],
        atol=1e-12,
    )
    poses[1].translation.x = math.nan
    assert len(convert(message).poses) == 2
    for pose in poses:
        pose.translation.y = math.inf
    with pytest.raises(ConversionError, match="no pose of the plan"):
        convert(message)
    empty = convert(new("isaac.Plan2Proto"))
    assert empty.poses.shape == (0, 7) and empty.path


def test_goal2() -> None:
    message = new("isaac.Goal2Proto", goalFrame="world", tolerance=0.5)
    set_pose2(message.goal, 3, 4, -math.pi / 2)
    result = convert(message)
    assert result.frame_id == "world" and result.label == "goal ±0.5 m"
    np.testing.assert_allclose(result.poses, [[3, 4, 0, 0, 0, -S, S]])
    message.stopRobot = True
    stop = convert(message)
    assert stop.poses.shape == (0, 7) and stop.label == "stop"
    message.stopRobot = False
    message.goal.rotation.q.x = math.nan
    with pytest.raises(ConversionError, match="goal pose is not finite"):
        convert(message)


def test_odometry2() -> None:
    message = new("isaac.Odometry2Proto", odometryFrame="odom", robotFrame="base_link")
    set_pose2(message.odomTRobot, -1, 2, math.pi / 2)
    message.speed.x = 5.0
    result = convert(message)
    assert result.frame_id == "odom" and result.label == "base_link"
    np.testing.assert_allclose(result.poses, [[-1, 2, 0, 0, 0, S, S]])
    message.odomTRobot.translation.x = -math.inf
    with pytest.raises(ConversionError, match="odometry pose is not finite"):
        convert(message)


# -- transforms -------------------------------------------------------------------------------
def test_pose_tree_edge() -> None:
    message = new("isaac.PoseTreeEdgeProto", lhs="world", rhs="robot")
    set_pose3(message.pose, (1, 2, 3), (S, 0, 0, S))
    (transform,) = convert(message).transforms
    assert (transform.parent, transform.child) == ("world", "robot")
    assert transform.translation == (1, 2, 3)
    assert transform.rotation == pytest.approx((0, 0, S, S)) and transform.stamp == 0
    message.rhs = ""
    with pytest.raises(ConversionError, match="frame names"):
        convert(message)
    message.rhs = "robot"
    message.pose.translation.z = math.nan
    with pytest.raises(ConversionError, match="not finite"):
        convert(message)


def pose_tree(*nodes):
    message = new("isaac.PoseTreeProto", name="robot")
    built = message.init("nodes", len(nodes))
    for node, (name, parent, xyz) in zip(built, nodes, strict=True):
        node.name, node.parentIndex = name, parent
        set_pose3(node.parentTNode, xyz)
        set_pose3(node.worldTNode, (99, 99, 99))  # not used
    return message


def test_pose_tree_from_parent_indices_and_edges() -> None:
    message = pose_tree(("world", -1, (0, 0, 0)), ("base", 0, (1, 0, 0)),
                        ("lidar", 1, (0, 0, 2)), ("camera", -1, (0, 3, 0)))
    edges = message.init("edges", 3)
    edges[0].parentName, edges[0].childName = "world", "base"  # repeats a parent index
    edges[1].parentName, edges[1].childName = "base", "camera"  # the only link of camera
    edges[2].parentName, edges[2].childName = "base", "nowhere"  # no such node
    result = convert(message)
    assert isinstance(result, Transforms)
    assert [(t.parent, t.child, t.translation) for t in result.transforms] == [
        ("world", "base", (1, 0, 0)), ("base", "lidar", (0, 0, 2)), ("base", "camera", (0, 3, 0))
    ]
    assert all(t.rotation == (0, 0, 0, 1) for t in result.transforms)


def test_pose_tree_bad_input() -> None:
    with pytest.raises(ConversionError, match="parent index 5 in a tree of 2 nodes"):
        convert(pose_tree(("world", -1, (0, 0, 0)), ("base", 5, (1, 0, 0))))
    with pytest.raises(ConversionError, match="no name"):
        convert(pose_tree(("world", -1, (0, 0, 0)), ("", 0, (1, 0, 0))))
    kept = convert(pose_tree(("w", -1, (0, 0, 0)), ("a", 0, (math.nan, 0, 0)), ("b", 0, (1, 0, 0))))
    assert [t.child for t in kept.transforms] == ["b"]
    with pytest.raises(ConversionError, match="no node of the pose tree has a finite pose"):
        convert(pose_tree(("w", -1, (0, 0, 0)), ("a", 0, (math.inf, 0, 0))))
    assert convert(new("isaac.PoseTreeProto")).transforms == ()


# -- scans ------------------------------------------------------------------------------------
def test_flatscan() -> None:
    message = new("isaac.FlatscanProto", invalidRangeThreshold=0.1, outOfRangeThreshold=10.0)
    message.angles = [0.0, math.pi / 2, math.pi, 0.3, 0.4, 0.5, math.nan]
    message.ranges = [1.0, 2.0, 3.0, 0.05, 10.0, math.inf, 1.0]
    result = convert(message)
    assert isinstance(result, PointCloud) and result.dropped == 4 and result.intensity is None
    np.testing.assert_allclose(result.xyz, [[1, 0, 0], [0, 2, 0], [-3, 0, 0]], atol=1e-6)
    assert result.xyz.dtype == np.float32 and result.frame_id == ""
    message.outOfRangeThreshold = 0.0  # unset: no upper limit
    assert len(convert(message)) == 4
    message.ranges = [1.0, 2.0]
    with pytest.raises(ConversionError, match="2 ranges for 7 angles"):
        convert(message)


def range_scan(ranges: np.ndarray, theta, phi, intensities=None, **fields):
    message = new("isaac.RangeScanProto", **fields)
    message.theta, message.phi = list(theta), list(phi)
    fill_tensor(message.ranges, ranges, 0)
    buffers = [ranges]
    if intensities is not None:
        fill_tensor(message.intensities, intensities, 1)
        buffers.append(intensities)
    return message, buffers


def test_range_scan_denormalises_and_places_rays() -> None:
    # 2 theta x 2 phi; uint16 ranges: 0xFFFF = rangeDenormalizer metres.
    ranges = np.array([[0xFFFF, 0x7FFF], [0, 0xFFFF]], np.uint16)
    intensities = np.array([[255, 0], [7, 51]], np.uint8)
    message, buffers = range_scan(ranges, [0.0, math.pi / 2], [0.0, math.pi / 6], intensities,
                                  rangeDenormalizer=20.0, intensityDenormalizer=2.0,
                                  invalidRangeThreshold=0.0, outOfRangeThreshold=0.0)
    result = convert(message, buffers)
    assert result.dropped == 1  # the zero range
    half = 0x7FFF / 0xFFFF * 20
    np.testing.assert_allclose(
        result.xyz,
        [[20, 0, 0], [half * math.cos(math.pi / 6), 0, half * 0.5],
         [0, 20 * math.cos(math.pi / 6), 10]],
        rtol=1e-6, atol=1e-5,
    )
    np.testing.assert_allclose(result.intensity, [2.0, 0.0, 0.4])


def test_range_scan_float_ranges_thresholds_and_no_phi() -> None:
    ranges = np.array([0.5, 0.05, 1.0, np.nan], np.float32)  # fractions of the denormalizer
    message, buffers = range_scan(ranges, [0.0, 0.1, math.pi, 0.3], [],
                                  rangeDenormalizer=10.0, invalidRangeThreshold=1.0,
                                  outOfRangeThreshold=10.0)
    result = convert(message, buffers)
    assert result.dropped == 3  # 0.5 m <= invalid, 10 m >= out of range, NaN
    np.testing.assert_allclose(result.xyz, [[5, 0, 0]], atol=1e-6)


def test_range_scan_bad_input() -> None:
    ranges = np.zeros((2, 3), np.uint16)
    message, buffers = range_scan(ranges, [0, 1], [0, 1], rangeDenormalizer=10.0)
    with pytest.raises(ConversionError, match=r"ranges shaped \[2, 3\] for 2 theta x 2 phi"):
        convert(message, buffers)
    message, buffers = range_scan(ranges, [0, 1], [0, 1, 2], rangeDenormalizer=0.0)
    with pytest.raises(ConversionError, match="rangeDenormalizer must be > 0"):
        convert(message, buffers)
    message, buffers = range_scan(ranges, [0, 1], [0, 1, 2], np.zeros(5, np.uint8),
                                  rangeDenormalizer=1.0)
    with pytest.raises(ConversionError, match="5 intensities for 6 rays"):
        convert(message, buffers)
    message, buffers = range_scan(ranges, [0, 1], [0, 1, 2], rangeDenormalizer=1.0)
    with pytest.raises(ConversionError, match="needs 12"):
        convert(message, [buffers[0][:1]])
    message.ranges.elementType = "unknown"
    with pytest.raises(ConversionError, match="element type"):
        convert(message, buffers)
    no_tensor = new("isaac.RangeScanProto", rangeDenormalizer=1.0)
    no_tensor.theta = [0.0]
    with pytest.raises(ConversionError, match="no ranges tensor"):
        convert(no_tensor)
    assert len(convert(new("isaac.RangeScanProto"))) == 0
