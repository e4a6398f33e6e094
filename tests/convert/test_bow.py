"""bow proprioception and exteroception -> skeleton, point cloud, through real capnp bytes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.convert.bow import euler_matrix, to_scene
from app.convert.models import PointCloud, Scene, SceneChange, Skeletons
from app.convert.registry import ConversionError, get_converter, scene_converter_for
from tests.convert.helpers import convert, new, wire


def set_transform(transform, part, position, euler=(0.0, 0.0, 0.0), link="base") -> None:
    transform.part, transform.linkName = part, link
    transform.position.x, transform.position.y, transform.position.z = position
    transform.eulerAngles.x, transform.eulerAngles.y, transform.eulerAngles.z = euler


def test_scene_converters_for_bow_types() -> None:
    assert scene_converter_for("bow.ProprioceptionSample") == "bow.proprioception"
    assert scene_converter_for("bow.ExteroceptionSample") == "bow.lidar"


def test_axes_map_bow_to_the_scene() -> None:
    # bow X right, Y up, Z forward -> scene x forward, y left, z up
    np.testing.assert_array_equal(to_scene(np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]])),
                                  [[0, -1, 0], [0, 0, 1], [1, 0, 0]])
    # positive yaw about bow +Y turns forward (+Z) to the right (+X)
    np.testing.assert_allclose(euler_matrix(0, math.pi / 2, 0) @ [0, 0, 1], [1, 0, 0],
                               atol=1e-12)


def body_sample():
    """torso (pelvis -> chest), right arm (chest -> right hand, yawed 90° right), right
    gripper (two finger tips, one relative to the hand), head (neck -> camera) whose root
    link is not a link of its parent part."""
    msg = new("bow.ProprioceptionSample")
    parts = msg.init("parts", 4)
    torso, arm, gripper, head = parts
    torso.name, torso.type, torso.rootLink = "torso", "root", "pelvis"
    e = torso.init("effectors", 1)[0]
    e.effectorLinkName = "chest"
    set_transform(e.rootTransform, "pelvis", (0.0, 0.95, 0.0))
    set_transform(e.endTransform, "chest", (0.0, 1.33, 0.0))
    arm.name, arm.type, arm.rootLink, arm.parent = "right_arm", "limb", "chest", "torso"
    e = arm.init("effectors", 1)[0]
    e.effectorLinkName = "right_hand"
    set_transform(e.rootTransform, "chest", (0.0, 1.33, 0.0))
    set_transform(e.endTransform, "right_hand", (0.2, 1.0, 0.1), (0.0, math.pi / 2, 0.0))
    gripper.name, gripper.type = "right_gripper", "gripper"
    gripper.rootLink, gripper.parent = "right_hand", "right_arm"
    thumb, index = gripper.init("effectors", 2)
    thumb.effectorLinkName = "thumb_tip"
    set_transform(thumb.endTransform, "thumb_tip", (0.0, -0.1, 0.05), link="right_hand")
    index.effectorLinkName = "index_tip"  # no rootTransform: the part's rootLink
    set_transform(index.endTransform, "", (0.22, 0.88, 0.14))  # named by effectorLinkName
    head.name, head.type, head.rootLink, head.parent = "head", "limb", "neck", "torso"
    e = head.init("effectors", 1)[0]
    e.effectorLinkName = "head_camera"
    set_transform(e.rootTransform, "neck", (0.0, 1.45, 0.0))
    set_transform(e.endTransform, "head_camera", (0.0, 1.6, 0.1))
    return msg


def test_proprioception_skeleton_joints_and_bones() -> None:
    skeletons = convert(body_sample())
    assert isinstance(skeletons, Skeletons) and skeletons.frame_id == ""
    (skeleton,) = skeletons.skeletons
    names = skeleton.joint_names
    assert names == ("chest", "pelvis", "right_hand", "thumb_tip", "index_tip",
                     "head_camera", "neck")
    expected = {  # scene axes: forward, left, up
        "pelvis": (0.0, 0.0, 0.95),
        "chest": (0.0, 0.0, 1.33),
        "right_hand": (0.1, -0.2, 1.0),
        # (0, -0.1, 0.05) in the hand, yawed 90° right: 0.05 to the right of it, 0.1 down
        "thumb_tip": (0.1, -0.25, 0.9),
        "index_tip": (0.14, -0.22, 0.88),
        "neck": (0.0, 0.0, 1.45),
        "head_camera": (0.1, 0.0, 1.6),
    }
    for name, position in expected.items():
        np.testing.assert_allclose(skeleton.joints[names.index(name)], position, atol=1e-6)
    bones = [(names[a], names[b]) for a, b in skeleton.bones]
    assert bones == [("pelvis", "chest"), ("chest", "right_hand"), ("right_hand", "thumb_tip"),
                     ("right_hand", "index_tip"), ("neck", "head_camera"),
                     ("pelvis", "neck")]  # head's parent torso: its root to the head's root
    assert skeleton.bones.dtype == np.int32 and skeleton.joints.dtype == np.float32
    assert skeleton.valid.all() and skeleton.label == "body"


def test_effectors_outside_parts_are_added() -> None:
    msg = new("bow.ProprioceptionSample")
    e = msg.init("effectors", 1)[0]
    e.effectorLinkName = "tool"
    set_transform(e.rootTransform, "wrist", (0.0, 1.0, 0.0))
    set_transform(e.endTransform, "tool", (0.0, 1.0, 0.2))
    (skeleton,) = convert(msg).skeletons
    assert skeleton.joint_names == ("tool", "wrist")
    np.testing.assert_array_equal(skeleton.bones, [[1, 0]])


def test_non_finite_links_are_not_placed_and_counted() -> None:
    msg = body_sample()
    msg.parts[3].effectors[0].endTransform.position.y = math.nan
    (skeleton,) = convert(msg).skeletons
    index = skeleton.joint_names.index("head_camera")
    assert not skeleton.valid[index] and skeleton.valid.sum() == 6
    assert skeleton.label == "body (1 links not placed)"
    assert np.isfinite(skeleton.joints).all()


def test_links_relative_to_each_other_in_a_loop_are_not_placed() -> None:
    msg = new("bow.ProprioceptionSample")
    e = msg.init("effectors", 1)[0]
    e.effectorLinkName = "a"
    set_transform(e.rootTransform, "b", (0.0, 1.0, 0.0), link="a")
    set_transform(e.endTransform, "a", (0.0, 1.0, 0.0), link="b")
    with pytest.raises(ConversionError, match="none of the 2 body links"):
        convert(msg)


def test_all_links_non_finite_and_empty_samples_are_refused() -> None:
    msg = body_sample()
    for part in msg.parts:
        for effector in part.effectors:
            effector.endTransform.position.x = math.inf
            effector.rootTransform.eulerAngles.z = math.nan
    with pytest.raises(ConversionError, match="none of the 7 body links"):
        convert(msg)
    with pytest.raises(ConversionError, match="no body parts"):
        convert(new("bow.ProprioceptionSample"))


def test_unknown_part_type_does_not_fail() -> None:
    msg = body_sample()
    msg.parts[2].type = 42  # a newer robot's BodyPartTypeEnum
    (skeleton,) = convert(msg).skeletons
    assert len(skeleton.joint_names) == 7


def test_objects_come_with_the_skeleton_in_a_scene() -> None:
    msg = body_sample()
    obj = msg.init("objects", 1)[0]
    obj.name, obj.radius = "cup", 0.04
    set_transform(obj.origin, "", (0.0, 1.0, 0.5))
    obj.endA.y, obj.endB.y = 0.0, 0.1
    scene = convert(msg)
    assert isinstance(scene, Scene)
    skeletons, change = scene.parts
    assert isinstance(skeletons, Skeletons) and isinstance(change, SceneChange)
    assert change.delete_all
    (entity,) = change.entities
    assert entity.id == "object/cup" and entity.label == "cup"
    line, sphere_a, _sphere_b, text = entity.primitives
    np.testing.assert_allclose(line.points, [[0.5, 0, 1.0], [0.5, 0, 1.1]], atol=1e-9)
    assert sphere_a.size == pytest.approx((0.08, 0.08, 0.08))
    assert text.text == "cup"


# -- lidar ---------------------------------------------------------------------------------------
def lidar_sample(data, shape, resolution=90.0, position=(0.0, 1.0, 0.0)):
    msg = new("bow.ExteroceptionSample")
    lidar = msg.init("lidar", 1)[0]
    lidar.source = "lidar"
    lidar.data = list(data)
    lidar.dataShape = list(shape)
    lidar.horizontalAngularResolution = resolution
    set_transform(lidar.transform, "lidar", position)
    return msg, lidar


def test_2d_lidar_ranges_become_points() -> None:
    # azimuth 0 forward, 90 right, 180 (no return), 270 (non-finite)
    msg, _ = lidar_sample([1.0, 2.0, 0.0, math.nan], [4, 1])
    cloud = convert(msg)
    assert isinstance(cloud, PointCloud) and cloud.frame_id == "" and cloud.dropped == 1
    np.testing.assert_allclose(cloud.xyz, [[1.0, 0.0, 1.0], [0.0, -2.0, 1.0]], atol=1e-6)


def test_lidar_angles_default_to_a_full_turn() -> None:
    msg, _ = lidar_sample([1.0, 1.0, 1.0, 1.0], [4, 1], resolution=0.0)
    np.testing.assert_allclose(convert(msg).xyz, [[1, 0, 1], [0, -1, 1], [-1, 0, 1], [0, 1, 1]],
                               atol=1e-6)


def test_3d_lidar_rows_are_elevations() -> None:
    msg, lidar = lidar_sample([1.0, 1.0, 2.0, 2.0], [2, 2], position=(0.0, 0.0, 0.0))
    lidar.verticalStartAngle, lidar.verticalAngularResolution = 0.0, 90.0
    np.testing.assert_allclose(convert(msg).xyz, [[1, 0, 0], [0, -1, 0], [0, 0, 2], [0, 0, 2]],
                               atol=1e-6)


def test_bad_lidar_is_refused() -> None:
    msg = new("bow.ExteroceptionSample")
    msg.init("imu", 1)
    with pytest.raises(ConversionError, match="no lidar"):
        convert(msg)
    msg, _ = lidar_sample([1.0, 2.0, 3.0], [4, 1])
    with pytest.raises(ConversionError, match="do not fill dataShape"):
        convert(msg)
    msg, _ = lidar_sample([math.nan, math.inf], [2, 1])
    with pytest.raises(ConversionError, match="all 2 lidar ranges are non-finite"):
        convert(msg)
    msg, lidar = lidar_sample([1.0], [1, 1])
    lidar.transform.eulerAngles.y = math.nan
    with pytest.raises(ConversionError, match="transform is not finite"):
        convert(msg)
    msg, _ = lidar_sample([], [0, 1])
    with pytest.raises(ConversionError, match="no ranges"):
        convert(msg)


def test_the_simulated_humanoid_converts() -> None:
    from app.sim.humanoid import SimHumanoid

    decoded = wire(SimHumanoid("h1")._proprioception(0.0))
    (skeleton,) = get_converter("bow.proprioception")(decoded).skeletons
    names = skeleton.joint_names
    assert skeleton.valid.all() and {f"right_{d}_tip" for d in ("thumb", "index", "middle",
                                                                  "ring", "pinky")} <= set(names)
    assert skeleton.joints[names.index("left_hand"), 1] > 0.1  # left is +y
    assert skeleton.joints[names.index("head_camera"), 2] > 1.4  # up is +z


def test_objects_alone_are_a_scene_change() -> None:
    msg = new("bow.ProprioceptionSample")
    obj = msg.init("objects", 1)[0]
    obj.endB.z = 0.3
    change = convert(msg)
    assert isinstance(change, SceneChange) and change.entities[0].id == "object/object 0"
    obj.endA.x = math.nan
    with pytest.raises(ConversionError, match="no body parts"):
        convert(msg)
