"""fleet envelopes and spatial types -> display models, through real Cap'n Proto bytes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.codec.decode import decode, encoding_for
from app.convert.fleet import (
    KEEPOUT_ALPHA,
    NEUTRAL,
    OBJECT_COLORS,
    ROLE_COLORS,
    heading_quaternion,
)
from app.convert.models import WGS84, Poses, Scene, SceneChange
from app.convert.registry import ConversionError, get_converter, scene_converter_for
from tests.convert.helpers import convert, new

LON, LAT, ALT = 8.5456, 47.3977, 408.0




def set_pose(pose, lon=LON, lat=LAT, alt=ALT, heading=0.0) -> None:
    pose.lonDeg, pose.latDeg, pose.altitudeM, pose.headingDeg = lon, lat, alt, heading


def set_ring(builder_list, points) -> None:
    for item, (lon, lat) in zip(builder_list, points, strict=True):
        item.lon, item.lat = lon, lat


def uplink(member: str):
    message = new("fleet.Uplink")
    message.robotId, message.unixTimeMs = "rover-1", 1_700_000_000_500
    return message, message.init(member)


@pytest.mark.parametrize("type_name, name", [
    ("fleet.Uplink", "fleet.uplink"), ("fleet.Command", "fleet.command"),
    ("fleet.Object", "fleet.object"), ("fleet.ObjectOp", "fleet.object_op"),
    ("fleet.ReportedShapeOp", "fleet.reported_shape_op"),
    ("fleet.SpatialDirectiveOp", "fleet.spatial_directive_op"),
    ("fleet.Shape", "fleet.shape"), ("fleet.Route", "fleet.route"),
])
def test_scene_converter_for_fleet_types(type_name: str, name: str) -> None:
    assert scene_converter_for(type_name) == name


# -- heading convention ------------------------------------------------------------------------
@pytest.mark.parametrize("heading, yaw", [(0.0, 90.0), (90.0, 0.0), (180.0, -90.0),
                                          (270.0, -180.0)])
def test_compass_heading_becomes_enu_yaw(heading: float, yaw: float) -> None:
    qx, qy, qz, qw = heading_quaternion(heading)
    assert (qx, qy) == (0.0, 0.0)
    assert math.degrees(2 * math.atan2(qz, qw)) == pytest.approx(yaw)


# -- motion -------------------------------------------------------------------------------------
def test_motion_geodetic_and_local_poses() -> None:
    message, motion = uplink("motion")
    set_pose(motion.pose, heading=90.0)  # facing east: ENU yaw 0
    motion.hasPose = True
    lp = motion.localPose
    lp.x, lp.y, lp.z, lp.qz, lp.qw = 3.0, -2.0, 0.5, 0.0, 2.0  # not normalised
    motion.hasLocalPose = True
    scene = convert(message)
    assert isinstance(scene, Scene) and len(scene.parts) == 2
    geo, local = scene.parts
    assert geo.frame_id == WGS84 and geo.label == "rover-1" and geo.stamp == 1_700_000_000.5
    np.testing.assert_allclose(geo.poses, [[LON, LAT, ALT, 0, 0, 0, 1]], atol=1e-12)
    assert local.frame_id == "map"  # PROTOCOL.md, when localFrameId is empty
    np.testing.assert_allclose(local.poses, [[3.0, -2.0, 0.5, 0, 0, 0, 1]])


def test_motion_local_frame_id_wins_and_north_heading() -> None:
    message, motion = uplink("motion")
    set_pose(motion.pose, heading=0.0)
    motion.hasPose = True
    motion.localFrameId = "world"
    motion.localPose.qw = 1.0
    motion.hasLocalPose = True
    geo, local = convert(message).parts
    s = math.sqrt(0.5)
    np.testing.assert_allclose(geo.poses[0, 3:], [0, 0, s, s])  # north = ENU yaw +90°
    assert local.frame_id == "world"


def test_motion_without_pose_flags_is_refused() -> None:
    message, motion = uplink("motion")
    set_pose(motion.pose)
    with pytest.raises(ConversionError, match="no pose"):
        convert(message)


def test_motion_non_finite_geodetic_pose_is_dropped_local_kept() -> None:
    message, motion = uplink("motion")
    set_pose(motion.pose, lat=math.nan)
    motion.hasPose = True
    motion.localPose.qw = 1.0
    motion.hasLocalPose = True
    scene = convert(message)
    assert [p.frame_id for p in scene.parts] == ["map"]


def test_motion_all_bad_is_refused() -> None:
    message, motion = uplink("motion")
    set_pose(motion.pose, lon=200.0)  # out of range
    motion.hasPose = True
    motion.localPose.x = math.inf
    motion.hasLocalPose = True
    with pytest.raises(ConversionError, match=r"geodetic pose.*local pose not finite"):
        convert(message)


def test_motion_nan_heading_keeps_position() -> None:
    message, motion = uplink("motion")
    set_pose(motion.pose, heading=math.nan)
    motion.hasPose = True
    (geo,) = convert(message).parts
    np.testing.assert_allclose(geo.poses, [[LON, LAT, ALT, 0, 0, 0, 1]])
    assert "no heading" in geo.label


@pytest.mark.parametrize("member", ["status", "battery", "fault", "mission", "capabilities",
                                    "message"])
def test_members_without_3d_content_have_nothing_to_draw(member: str) -> None:
    message, _ = uplink(member)
    assert convert(message) == Scene()  # well formed: not an error, just nothing to draw
    assert scene_converter_for("fleet.Uplink", f"fleet/r1/uplink/{member}") is None


def test_a_key_that_may_hold_a_pose_stays_a_layer() -> None:
    for key in ("fleet/r1/uplink/motion", "fleet/r1/uplink/objects", "elsewhere/battery"):
        assert scene_converter_for("fleet.Uplink", key) == "fleet.uplink"
    assert scene_converter_for("fleet.Command", "fleet/r1/command/teleop") is None
    assert scene_converter_for("fleet.Command", "fleet/r1/command/go_to") == "fleet.command"


def test_unknown_union_member_is_refused() -> None:
    message, _ = uplink("message")
    payload = bytearray(message.to_bytes())
    assert payload[24] == 8  # Uplink's discriminant: message is member 8
    payload[24] = 42  # a member a newer robot might send
    decoded = decode(encoding_for("fleet.Uplink"), bytes(payload))
    with pytest.raises(ConversionError, match="does not know"):
        get_converter("fleet.uplink")(decoded)


# -- objects --------------------------------------------------------------------------------------
def fill_object(obj, object_type="vehicle", radius=1.5) -> None:
    obj.id, obj.name = "obj-7", "truck"
    obj.unixTimeMs, obj.expiresUnixTimeMs = 1_700_000_000_000, 1_700_000_030_000
    obj.objectType = object_type
    set_pose(obj.location, heading=90.0)
    obj.radiusM = radius


def test_object_upsert_is_a_coloured_cube_with_a_label() -> None:
    message, op = uplink("object")
    fill_object(op.init("upsert"))
    change = convert(message)
    assert isinstance(change, SceneChange) and change.deletions == ()
    (entity,) = change.entities
    assert entity.id == "obj-7" and entity.frame_id == WGS84
    assert entity.stamp == 1_700_000_000.0 and entity.lifetime_s == 30.0
    cube, text = entity.primitives
    assert cube.kind == "cube" and cube.size == (3.0, 3.0, 3.0)
    assert cube.color == OBJECT_COLORS["vehicle"] == (0.2, 0.45, 1.0, 1.0)
    np.testing.assert_allclose(cube.pose, [LON, LAT, ALT, 0, 0, 0, 1], atol=1e-12)
    assert text.kind == "text" and text.text == "truck (vehicle)"
    assert text.pose[:3] == (LON, LAT, ALT + 2.0)  # above the cube: half size + 0.5 m
    assert entity.label == "truck (vehicle)"


def test_object_without_radius_gets_the_default_size() -> None:
    obj = new("fleet.Object")
    fill_object(obj, "person", radius=math.nan)
    (entity,) = convert(obj).entities  # a bare fleet.Object root
    assert entity.primitives[0].size == (1.0, 1.0, 1.0)
    assert entity.primitives[0].color == OBJECT_COLORS["person"]


def test_object_type_from_a_newer_robot_is_neutral() -> None:
    obj = new("fleet.Object")
    fill_object(obj, 42)
    (entity,) = convert(obj).entities
    assert entity.primitives[0].color == NEUTRAL
    assert entity.primitives[1].text == "truck (#42)"


def test_object_delete_and_bad_objects() -> None:
    message, op = uplink("object")
    op.delete = "obj-7"
    assert convert(message) == SceneChange(deletions=("obj-7",))
    op.delete = ""
    with pytest.raises(ConversionError, match="delete without an id"):
        convert(message)
    obj = new("fleet.Object")
    fill_object(obj)
    obj.location.latDeg = math.inf
    with pytest.raises(ConversionError, match="obj-7: location"):
        convert(obj)
    obj.id = ""
    with pytest.raises(ConversionError, match="without an id"):
        convert(obj)


# -- reported shapes ---------------------------------------------------------------------------
SQUARE = [(8.0, 47.0), (8.001, 47.0), (8.001, 47.001), (8.0, 47.001)]
HOLE = [(8.0004, 47.0004), (8.0004, 47.0006), (8.0006, 47.0006), (8.0006, 47.0004)]


def reported(role="coverage"):
    message, op = uplink("reportedShape")
    shape = op.init("upsert")
    shape.identity.id, shape.identity.name = "field-3", "north field"
    shape.areaType = role
    return message, shape


def test_reported_polygon_rings_are_closed_loops() -> None:
    message, shape = reported("hazard")
    shape.minZM = 400.0
    polygon = shape.data.init("polygon")
    set_ring(polygon.init("exterior", 5), [*SQUARE, SQUARE[0]])  # explicitly closed
    set_ring(polygon.init("holes", 1).init(0, 4), HOLE)
    (entity,) = convert(message).entities
    assert entity.id == "field-3" and entity.frame_id == WGS84
    outer, hole, text = entity.primitives
    assert outer.kind == hole.kind == "line_loop"
    assert outer.color == ROLE_COLORS["hazard"] == (1.0, 0.0, 0.0, 1.0)
    np.testing.assert_array_equal(outer.points, [(x, y, 400.0) for x, y in SQUARE])
    np.testing.assert_array_equal(hole.points, [(x, y, 400.0) for x, y in HOLE])
    assert text.text == "north field [hazard]" and entity.label == "north field [hazard]"


def test_reported_points_and_lines() -> None:
    message, shape = reported("plannedPath")
    lines = shape.data.init("multiLineString", 2)
    set_ring(lines.init(0, 2), SQUARE[:2])
    set_ring(lines.init(1, 3), SQUARE[1:])
    entity = convert(message).entities[0]
    kinds = [p.kind for p in entity.primitives]
    assert kinds == ["line_strip", "line_strip", "text"]
    np.testing.assert_array_equal(entity.primitives[0].points, [(8.0, 47.0, 0), (8.001, 47.0, 0)])
    shape.data.init("multiPoint", 2)
    set_ring(shape.data.multiPoint, SQUARE[:2])
    entity = convert(message).entities[0]
    assert [p.kind for p in entity.primitives] == ["sphere", "sphere", "text"]
    assert entity.primitives[1].pose[:3] == (8.001, 47.0, 0.0)


def test_reported_shape_bad_points_are_dropped_and_counted() -> None:
    message, shape = reported()
    line = shape.data.init("lineString", 4)
    set_ring(line, [SQUARE[0], (math.nan, 47.0), SQUARE[1], (8.0, 95.0)])
    entity = convert(message).entities[0]
    assert len(entity.primitives[0].points) == 2
    assert "2 bad points left out" in entity.label


def test_empty_and_degenerate_polygons_are_refused() -> None:
    message, shape = reported()
    shape.data.init("polygon")
    with pytest.raises(ConversionError, match="no drawable geometry"):
        convert(message)
    set_ring(shape.data.polygon.init("exterior", 3), [SQUARE[0], (math.nan, 1.0), SQUARE[1]])
    with pytest.raises(ConversionError, match=r"no drawable geometry \(1 bad points\)"):
        convert(message)


def test_reported_role_from_a_newer_robot_is_neutral() -> None:
    message, shape = reported(40)
    set_ring(shape.data.init("lineString", 2), SQUARE[:2])
    entity = convert(message).entities[0]
    assert entity.primitives[0].color == NEUTRAL and entity.label == "north field [#40]"


def test_reported_shape_delete() -> None:
    message, op = uplink("reportedShape")
    op.delete = "field-3"
    assert convert(message) == SceneChange(deletions=("field-3",))


# -- commands ----------------------------------------------------------------------------------
def command(member: str):
    message = new("fleet.Command")
    message.robotId, message.unixTimeMs, message.seq = "rover-1", 2_000, 7
    return message, message.init(member)


def directive(role="keepout"):
    message, op = command("spatialDirective")
    rule = op.init("upsert")
    rule.directiveId, rule.name = "d-1", "pond"
    rule.startTimeMs, rule.expireTimeMs, rule.hasExpireTimeMs = 1_000, 61_000, True
    shape = rule.spatial.init("shape")
    shape.areaType = role
    return message, shape


def test_keepout_directive_is_a_translucent_extruded_volume() -> None:
    message, shape = directive()
    shape.minZM, shape.maxZM = 400.0, 405.0
    polygon = shape.data.init("polygon")
    set_ring(polygon.init("exterior", 4), SQUARE)
    set_ring(polygon.init("holes", 1).init(0, 4), HOLE)
    (entity,) = convert(message).entities
    assert entity.id == "d-1" and entity.label == "pond [keepout]"
    assert entity.stamp == 1.0 and entity.lifetime_s == 60.0
    outer, hole, volume, _text = entity.primitives
    assert outer.kind == hole.kind == "line_loop"
    assert volume.kind == "triangles"
    assert volume.color == (1.0, 0.1, 0.1, KEEPOUT_ALPHA) and KEEPOUT_ALPHA == 0.3
    points, indices = volume.points, volume.indices
    assert points.shape == (16, 3) and set(points[:, 2]) == {400.0, 405.0}
    # 8 cap triangles top and bottom (square with a square hole) + 2 per wall edge
    assert len(indices) == 3 * (2 * 8 + 2 * 8)
    assert indices.dtype == np.uint32 and indices.max() == 15


def test_keepout_without_height_rule_gets_the_default_height() -> None:
    message, shape = directive()
    set_ring(shape.data.init("polygon").init("exterior", 4), SQUARE)
    volume = convert(message).entities[0].primitives[1]
    assert volume.kind == "triangles" and set(volume.points[:, 2]) == {0.0, 2.0}


def test_other_roles_are_outlines_only() -> None:
    message, shape = directive("workArea")
    set_ring(shape.data.init("polygon").init("exterior", 4), SQUARE)
    entity = convert(message).entities[0]
    assert [p.kind for p in entity.primitives] == ["line_loop", "text"]
    assert entity.primitives[0].color == ROLE_COLORS["workArea"]


def test_route_directive_is_a_line_strip_and_waypoints_arrows() -> None:
    message, op = command("spatialDirective")
    rule = op.init("upsert")
    rule.directiveId = "r-1"
    route = rule.spatial.init("route")
    route.areaType = "preferred"
    path = route.data.init("path", 3)
    for pose, (lon, lat) in zip(path, SQUARE[:3], strict=True):
        set_pose(pose, lon, lat, 400.0)
    path[1].latDeg = math.nan
    entity = convert(message).entities[0]
    strip = entity.primitives[0]
    assert strip.kind == "line_strip"
    np.testing.assert_array_equal(strip.points, [(8.0, 47.0, 400.0), (8.001, 47.001, 400.0)])
    assert "1 bad points left out" in entity.label
    route.data.init("multiWaypoint", 1)
    set_pose(route.data.multiWaypoint[0], heading=180.0)
    arrow = convert(message).entities[0].primitives[0]
    assert arrow.kind == "arrow"
    np.testing.assert_allclose(arrow.pose[3:], heading_quaternion(180.0))


def test_directive_delete_and_missing_id() -> None:
    message, op = command("spatialDirective")
    op.delete = "d-1"
    assert convert(message) == SceneChange(deletions=("d-1",))
    message, _shape = directive()
    message.spatialDirective.upsert.directiveId = ""
    with pytest.raises(ConversionError, match="without an id"):
        convert(message)


def test_feature_op_uses_the_shape_identity() -> None:
    message, op = command("feature")
    shape = op.init("upsert").init("shape")
    shape.identity.id, shape.areaType = "s-9", "target"
    shape.data.init("point").lon, shape.data.point.lat = 8.0, 47.0
    (entity,) = convert(message).entities
    assert entity.id == "s-9" and entity.primitives[0].kind == "sphere"
    assert entity.primitives[0].color == ROLE_COLORS["target"]


def test_goto_geodetic_and_local_targets() -> None:
    message, goto = command("goTo")
    set_pose(goto.init("pose"), heading=90.0)
    goto.speedMps = 1.5
    poses = convert(message)
    assert isinstance(poses, Poses) and poses.frame_id == WGS84
    np.testing.assert_allclose(poses.poses, [[LON, LAT, ALT, 0, 0, 0, 1]], atol=1e-12)
    assert poses.label == "goal at 1.5 m/s"
    p3 = goto.init("pose3")
    p3.x, p3.y, p3.qw = 5.0, 6.0, 1.0
    goto.speedMps = 0.0  # the robot's default speed
    poses = convert(message)
    assert poses.frame_id == "map" and poses.label == "goal"
    np.testing.assert_allclose(poses.poses, [[5, 6, 0, 0, 0, 0, 1]])
    p3.x = math.nan
    with pytest.raises(ConversionError, match="not finite"):
        convert(message)


def test_command_without_3d_content_has_nothing_to_draw() -> None:
    message, _teleop = command("teleop")
    assert convert(message) == Scene()


# -- keep-out volumes ---------------------------------------------------------------------------
def test_huge_keepout_gets_walls_without_caps() -> None:
    message, shape = directive()
    angles = np.linspace(0, 2 * np.pi, 1200, endpoint=False)
    ring = [(8.0 + 0.001 * math.cos(t), 47.0 + 0.001 * math.sin(t)) for t in angles]
    set_ring(shape.data.init("polygon").init("exterior", len(ring)), ring)
    volume = convert(message).entities[0].primitives[1]
    assert volume.kind == "triangles" and len(volume.indices) == 6 * 1200
