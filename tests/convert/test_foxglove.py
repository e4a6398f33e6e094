"""Foxglove 3D-scene converters through the real wire path: pycapnp builder -> bytes ->
codec.decode -> converter -> display model."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from app.codec.buffers import HeldBuffers, encode_buffers
from app.codec.decode import decode, encoding_for
from app.codec.registry import registry
from app.convert.models import Grid, PointCloud, Poses, SceneChange, Transforms
from app.convert.registry import ConversionError, get_converter, scene_converter_for

SCENE_CONVERTERS = {
    "foxglove.FrameTransform": "foxglove.frame_transform",
    "foxglove.FrameTransforms": "foxglove.frame_transforms",
    "foxglove.SceneUpdate": "foxglove.scene_update",
    "foxglove.PointCloud": "foxglove.point_cloud",
    "foxglove.LaserScan": "foxglove.laser_scan",
    "foxglove.Grid": "foxglove.grid",
    "foxglove.PoseInFrame": "foxglove.pose_in_frame",
    "foxglove.PosesInFrame": "foxglove.poses_in_frame",
}
S = math.sqrt(0.5)
YAW90 = {"x": 0.0, "y": 0.0, "z": S, "w": S}
STAMP = {"sec": 12, "nsec": 500_000_000}
NUMERIC = {"uint8": "<u1", "int8": "<i1", "uint16": "<u2", "int16": "<i2", "uint32": "<u4",
           "int32": "<i4", "float32": "<f4", "float64": "<f8"}


def new(type_name: str, **fields):
    return registry().struct(type_name).new_message(**fields)


def convert(message):
    type_name = registry().name_of(message.schema.node.id)
    payload = message.to_bytes()
    message.clear_write_flag()  # tests change and send the same builder again
    decoded = decode(encoding_for(type_name), payload)
    return get_converter(scene_converter_for(type_name))(decoded)


def pose(xyz=(0.0, 0.0, 0.0), q=None) -> dict:
    x, y, z = xyz
    return {"position": {"x": x, "y": y, "z": z},
            "orientation": q or {"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0}}


@pytest.mark.parametrize("type_name", sorted(SCENE_CONVERTERS))
def test_scene_converter_for_each_type(type_name: str) -> None:
    assert scene_converter_for(type_name) == SCENE_CONVERTERS[type_name]


# -- transforms -------------------------------------------------------------------------------
def transform(parent="map", child="base", xyz=(1.0, 2.0, 3.0), q=None) -> dict:
    x, y, z = xyz
    return {"timestamp": STAMP, "parentFrameId": parent, "childFrameId": child,
            "translation": {"x": x, "y": y, "z": z}, "rotation": q or YAW90}


def test_frame_transform() -> None:
    result = convert(new("foxglove.FrameTransform", **transform()))
    assert isinstance(result, Transforms)
    (t,) = result.transforms
    assert (t.parent, t.child, t.translation, t.stamp) == ("map", "base", (1, 2, 3), 12.5)
    assert t.rotation == pytest.approx((0, 0, S, S))
    unset = convert(new("foxglove.FrameTransform", parentFrameId="a", childFrameId="b"))
    assert unset.transforms[0].rotation == (0, 0, 0, 1)  # zero quaternion: identity
    with pytest.raises(ConversionError, match="both frame names"):
        convert(new("foxglove.FrameTransform", **transform(child="")))
    with pytest.raises(ConversionError, match="not finite"):
        convert(new("foxglove.FrameTransform", **transform(xyz=(0, math.nan, 0))))
    with pytest.raises(ConversionError, match="not finite"):
        convert(new("foxglove.FrameTransform", **transform(q={"w": math.inf})))


def test_frame_transforms_keep_the_finite_ones() -> None:
    message = new("foxglove.FrameTransforms", transforms=[
        transform("map", "odom"), transform("odom", "base", xyz=(math.inf, 0, 0)),
        transform("base", "lidar", xyz=(0, 0, 1))])
    result = convert(message)
    assert [(t.parent, t.child) for t in result.transforms] == [("map", "odom"),
                                                                ("base", "lidar")]
    assert result.transforms[1].translation == (0, 0, 1)
    with pytest.raises(ConversionError, match="none of the 1 frame transforms"):
        convert(new("foxglove.FrameTransforms", transforms=[transform(xyz=(math.nan, 0, 0))]))
    with pytest.raises(ConversionError, match="both frame names"):
        convert(new("foxglove.FrameTransforms", transforms=[transform(parent="")]))
    assert convert(new("foxglove.FrameTransforms")).transforms == ()


# -- poses ------------------------------------------------------------------------------------
def test_pose_in_frame() -> None:
    result = convert(new("foxglove.PoseInFrame", timestamp=STAMP, frameId="map",
                         pose=pose((1, 2, 3), YAW90)))
    assert isinstance(result, Poses) and result.frame_id == "map" and result.stamp == 12.5
    np.testing.assert_allclose(result.poses, [[1, 2, 3, 0, 0, S, S]])
    assert not result.path
    with pytest.raises(ConversionError, match="pose is not finite"):
        convert(new("foxglove.PoseInFrame", pose=pose((math.nan, 0, 0))))


def test_poses_in_frame() -> None:
    message = new("foxglove.PosesInFrame", timestamp=STAMP, frameId="odom",
                  poses=[pose((1, 0, 0)), pose((math.inf, 0, 0)), pose((0, 0, 0), YAW90)])
    result = convert(message)
    assert result.frame_id == "odom" and result.stamp == 12.5 and not result.path
    np.testing.assert_allclose(result.poses, [[1, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, S, S]])
    with pytest.raises(ConversionError, match="none of the 1 poses"):
        convert(new("foxglove.PosesInFrame", poses=[pose(q={"x": math.nan})]))
    assert convert(new("foxglove.PosesInFrame")).poses.shape == (0, 7)


# -- point clouds -----------------------------------------------------------------------------
def cloud(records: np.ndarray, fields: dict[str, str], **extra):
    """A foxglove.PointCloud of a numpy structured array (its itemsize is the stride)."""
    dtype = records.dtype
    packed = [{"name": name, "offset": dtype.fields[name][1], "type": fields[name]}
              for name in fields]
    return new("foxglove.PointCloud", timestamp=STAMP, frameId="lidar",
               pointStride=dtype.itemsize, fields=packed, data=records.tobytes(), **extra)


def records(spec: list[tuple[str, str, int]], itemsize: int, count: int) -> np.ndarray:
    names, formats, offsets = zip(*spec, strict=True)
    dtype = np.dtype({"names": names, "formats": formats, "offsets": offsets,
                      "itemsize": itemsize})
    return np.zeros(count, dtype)


def test_point_cloud_float32_xyz_is_a_view_with_intensity() -> None:
    rec = records([("x", "<f4", 0), ("y", "<f4", 4), ("z", "<f4", 8), ("intensity", "<f4", 12)],
                  16, 3)
    rec["x"], rec["y"], rec["z"], rec["intensity"] = [1, 2, 3], [4, 5, 6], [7, 8, 9], [0.5, 1, 2]
    result = convert(cloud(rec, {"x": "float32", "y": "float32", "z": "float32",
                                 "intensity": "float32"}))
    assert isinstance(result, PointCloud)
    assert (result.frame_id, result.stamp, result.dropped, result.rgb) == ("lidar", 12.5, 0, None)
    np.testing.assert_array_equal(result.xyz, [[1, 4, 7], [2, 5, 8], [3, 6, 9]])
    np.testing.assert_array_equal(result.intensity, [0.5, 1, 2])
    assert result.xyz.dtype == np.float32 and result.xyz.strides == (16, 4)  # viewed, not copied
    assert not result.xyz.flags.writeable and not result.xyz.flags.owndata


@pytest.mark.parametrize("numeric", sorted(NUMERIC))
def test_point_cloud_every_numeric_type_anywhere_in_the_point(numeric: str) -> None:
    dtype = NUMERIC[numeric]
    size = np.dtype(dtype).itemsize
    # z first, a gap, then y and x; the stride leaves padding at the end.
    spec = [("z", dtype, 0), ("y", dtype, 2 * size), ("x", dtype, 3 * size),
            ("intensity", dtype, 4 * size)]
    rec = records(spec, 6 * size, 4)
    rec["x"], rec["y"], rec["z"] = [1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 127]
    rec["intensity"] = [0, 1, 2, 3]
    result = convert(cloud(rec, dict.fromkeys(["x", "y", "z", "intensity"], numeric)))
    np.testing.assert_array_equal(result.xyz, [[1, 5, 9], [2, 6, 10], [3, 7, 11], [4, 8, 127]])
    np.testing.assert_array_equal(result.intensity, [0, 1, 2, 3])
    assert result.xyz.dtype == np.float32 and result.intensity.dtype == np.float32


def test_point_cloud_float64_two_coordinates_and_rgb_fields() -> None:
    rec = records([("x", "<f8", 0), ("y", "<f8", 8), ("red", "<u1", 16), ("green", "<u1", 17),
                   ("blue", "<f4", 20)], 24, 2)
    rec["x"], rec["y"] = [1.5, -2.5], [3.25, 4.0]
    rec["red"], rec["green"], rec["blue"] = [255, 10], [0, 20], [1.0, 0.2]
    result = convert(cloud(rec, {"x": "float64", "y": "float64", "red": "uint8",
                                 "green": "uint8", "blue": "float32"}))
    np.testing.assert_array_equal(result.xyz, [[1.5, 3.25, 0], [-2.5, 4, 0]])
    np.testing.assert_array_equal(result.rgb, [[255, 0, 255], [10, 20, 51]])
    assert result.intensity is None


@pytest.mark.parametrize(("name", "numeric", "packed"), [
    ("rgba", "uint32", [0xFF800401, 0x0A141E28]),  # 0xRRGGBBAA
    ("rgb", "uint32", [0x00FF8004, 0x000A141E]),  # 0x00RRGGBB
    ("rgb", "float32", [0x00FF8004, 0x000A141E]),  # PCL stores those bytes as a float
])
def test_point_cloud_packed_colour(name: str, numeric: str, packed: list[int]) -> None:
    rec = records([("x", "<f4", 0), ("y", "<f4", 4), ("z", "<f4", 8), (name, "<u4", 12)], 16, 2)
    rec[name] = packed
    result = convert(cloud(rec, {"x": "float32", "y": "float32", "z": "float32",
                                 name: numeric}))
    np.testing.assert_array_equal(result.rgb, [[255, 128, 4], [10, 20, 30]])


def test_point_cloud_drops_non_finite_points_with_their_attributes() -> None:
    rec = records([("x", "<f4", 0), ("y", "<f4", 4), ("z", "<f4", 8), ("intensity", "<u2", 12),
                   ("red", "<u1", 14)], 16, 4)
    rec["x"] = [1, np.nan, 3, np.inf]
    rec["intensity"], rec["red"] = [10, 20, 30, 40], [1, 2, 3, 4]
    result = convert(cloud(rec, {"x": "float32", "y": "float32", "z": "float32",
                                 "intensity": "uint16", "red": "uint8"}))
    assert result.dropped == 2 and len(result) == 2
    np.testing.assert_array_equal(result.xyz[:, 0], [1, 3])
    np.testing.assert_array_equal(result.intensity, [10, 30])
    np.testing.assert_array_equal(result.rgb, [[1, 0, 0], [3, 0, 0]])


@pytest.mark.parametrize(("where", "value", "dropped"), [
    ("x", np.nan, 1), ("z", -np.inf, 1),
    ("intensity", np.nan, 0),  # not a coordinate: the point stays
    ("x", 3e38, 0),  # finite, though its square is not
])
def test_point_cloud_of_float32_fields_finds_every_non_finite_coordinate(
        where: str, value: float, dropped: int) -> None:
    rec = records([("x", "<f4", 0), ("y", "<f4", 4), ("z", "<f4", 8), ("intensity", "<f4", 12)],
                  16, 5)
    rec["x"], rec["y"], rec["z"], rec["intensity"] = np.arange(5), 1, 2, 0.5
    rec[where][3] = value
    result = convert(cloud(rec, dict.fromkeys(["x", "y", "z", "intensity"], "float32")))
    assert result.dropped == dropped and len(result) == 5 - dropped
    assert np.isfinite(result.xyz).all()
    if where == "x" and not dropped:
        assert result.xyz[3, 0] == np.float32(3e38)


def test_point_cloud_points_in_the_attachment_are_viewed_there() -> None:
    rec = records([("x", "<f4", 0), ("y", "<f4", 4), ("z", "<f4", 8), ("intensity", "<f4", 12)],
                  16, 3)
    rec["x"], rec["y"], rec["z"], rec["intensity"] = [1, 2, 3], [4, 5, 6], [7, np.nan, 9], 1
    message = cloud(rec, dict.fromkeys(["x", "y", "z", "intensity"], "float32"))
    message.data = b""
    attachment = encode_buffers([rec.tobytes()])
    result = get_converter("foxglove.point_cloud")(
        decode(encoding_for("foxglove.PointCloud"), message.to_bytes(), attachment))
    np.testing.assert_array_equal(result.xyz, [[1, 4, 7], [3, 6, 9]])
    assert result.dropped == 1
    rec["z"][1] = 8
    attachment = encode_buffers([rec.tobytes()])
    result = get_converter("foxglove.point_cloud")(
        decode(encoding_for("foxglove.PointCloud"), message.to_bytes(), attachment))
    assert result.dropped == 0 and result.xyz[1, 2] == 8
    assert np.shares_memory(result.xyz, np.frombuffer(attachment, np.uint8))  # not copied


def test_point_cloud_points_held_in_the_process_are_viewed_where_they_lie() -> None:
    rec = records([("x", "<f4", 0), ("y", "<f4", 4), ("z", "<f4", 8)], 12, 3)
    rec["x"], rec["y"], rec["z"] = [1, 2, 3], [4, 5, 6], [7, 8, 9]
    message = cloud(rec, dict.fromkeys("xyz", "float32"))
    message.data = b""
    lying = bytearray(rec.tobytes())  # where a translated ROS 2 cloud's CDR put them
    held = HeldBuffers([lying])
    payload = message.to_bytes()
    result = get_converter("foxglove.point_cloud")(
        decode(encoding_for("foxglove.PointCloud"), payload, held))
    np.testing.assert_array_equal(result.xyz, [[1, 4, 7], [2, 5, 8], [3, 6, 9]])
    assert np.shares_memory(result.xyz, np.frombuffer(lying, np.uint8))  # not copied
    # as bytes (a recorder, a put): the attachment a robot would send, the same points
    said = bytes(held)
    assert said == encode_buffers([rec.tobytes()]) and len(held) == len(said)
    again = get_converter("foxglove.point_cloud")(
        decode(encoding_for("foxglove.PointCloud"), payload, said))
    np.testing.assert_array_equal(again.xyz, result.xyz)


def test_point_cloud_pose_is_applied() -> None:
    rec = records([("x", "<f4", 0), ("y", "<f4", 4), ("z", "<f4", 8)], 12, 2)
    rec["x"], rec["y"], rec["z"] = [1, 0], [0, 2], [0, 3]
    result = convert(cloud(rec, dict.fromkeys("xyz", "float32"), pose=pose((10, 20, 30), YAW90)))
    np.testing.assert_allclose(result.xyz, [[10, 21, 30], [8, 20, 33]], atol=1e-5)
    with pytest.raises(ConversionError, match="point cloud pose is not finite"):
        convert(cloud(rec, dict.fromkeys("xyz", "float32"), pose=pose((math.nan, 0, 0))))


def test_point_cloud_bad_input() -> None:
    xyz = dict.fromkeys("xyz", "float32")
    rec = records([("x", "<f4", 0), ("y", "<f4", 4), ("z", "<f4", 8)], 12, 3)
    message = cloud(rec, xyz)
    message.data = rec.tobytes()[:-4]
    with pytest.raises(ConversionError, match="32 bytes is not a whole number of 12-byte"):
        convert(message)
    message = cloud(rec, xyz)
    message.pointStride = 0
    with pytest.raises(ConversionError, match="pointStride is 0"):
        convert(message)
    message = cloud(rec, xyz)
    message.pointStride = 8
    message.data = bytes(16)
    with pytest.raises(ConversionError, match=r"'z' \(float32 at offset 8\) does not fit"):
        convert(message)
    with pytest.raises(ConversionError, match="fewer than 2 of x, y, z"):
        convert(cloud(rec, {"x": "float32"}))
    for bad, text in (("unknown", "unknown"), (42, "number 42")):
        message = cloud(rec, xyz)
        message.fields[1].type = bad
        with pytest.raises(ConversionError, match=f"'y' has numeric type {text}"):
            convert(message)
    rec16 = records([("x", "<f4", 0), ("y", "<f4", 4), ("rgb", "<u2", 8)], 12, 1)
    with pytest.raises(ConversionError, match="needs 4 bytes"):
        convert(cloud(rec16, {"x": "float32", "y": "float32", "rgb": "uint16"}))


def test_empty_point_cloud() -> None:
    result = convert(new("foxglove.PointCloud", pointStride=12, fields=[
        {"name": "x", "offset": 0, "type": "float32"}, {"name": "y", "offset": 4,
                                                        "type": "float32"}]))
    assert result.xyz.shape == (0, 3)


def test_million_point_cloud_is_fast() -> None:
    count = 1_000_000
    rec = records([("x", "<f4", 0), ("y", "<f4", 4), ("z", "<f4", 8), ("intensity", "<f4", 12),
                   ("ring", "<u2", 16)], 20, count)
    rec["x"] = np.arange(count)
    rec["x"][::1000] = np.nan
    type_name = "foxglove.PointCloud"
    message = cloud(rec, {"x": "float32", "y": "float32", "z": "float32",
                          "intensity": "float32", "ring": "uint16"}, pose=pose((1, 0, 0)))
    decoded = decode(encoding_for(type_name), message.to_bytes())
    converter = get_converter(scene_converter_for(type_name))
    converter(decoded)  # warm up
    start = time.process_time()  # CPU time: the test machine's cores are shared
    result = converter(decoded)
    elapsed = time.process_time() - start
    assert len(result) == count - 1000 and result.dropped == 1000
    assert result.xyz[0, 0] == 2.0  # point 0 was NaN; x + 1 from the pose
    assert elapsed < 0.5, f"{elapsed * 1000:.0f} ms"  # tens of ms on an idle core


# -- laser scans ------------------------------------------------------------------------------
def test_laser_scan() -> None:
    message = new("foxglove.LaserScan", timestamp=STAMP, frameId="laser",
                  pose=pose((0, 0, 1), YAW90), startAngle=0.0, endAngle=math.pi,
                  ranges=[1.0, math.nan, 2.0, 0.0, 4.0], intensities=[1.0, 2.0, 3.0, 4.0, 5.0])
    result = convert(message)
    assert (result.frame_id, result.stamp, result.dropped) == ("laser", 12.5, 2)
    # Bearings 0, pi/4, pi/2, 3pi/4, pi in the scan; the pose turns them by +90 degrees.
    np.testing.assert_allclose(result.xyz, [[0, 1, 1], [-2, 0, 1], [0, -4, 1]], atol=1e-6)
    np.testing.assert_array_equal(result.intensity, [1, 3, 5])
    message.intensities = [1.0]
    with pytest.raises(ConversionError, match="1 intensities for 5 ranges"):
        convert(message)
    message.intensities = []
    message.endAngle = math.inf
    with pytest.raises(ConversionError, match="angles are not finite"):
        convert(message)
    message.endAngle = 1.0
    message.pose.orientation.w = math.nan
    with pytest.raises(ConversionError, match="laser scan pose is not finite"):
        convert(message)


# -- grids ------------------------------------------------------------------------------------
def grid(cells: np.ndarray, fields: dict[str, str], columns: int, row_stride: int, **extra):
    dtype = cells.dtype
    packed = [{"name": name, "offset": dtype.fields[name][1], "type": fields[name]}
              for name in fields]
    data = np.frombuffer(cells.tobytes(), np.uint8).reshape(-1, columns * dtype.itemsize)
    rows = np.zeros((len(data), row_stride), np.uint8)  # padding at the end of each row
    rows[:, : data.shape[1]] = data
    values = {"timestamp": STAMP, "frameId": "map", "pose": pose((1, 2, 0)),
              "columnCount": columns, "rowStride": row_stride, "cellStride": dtype.itemsize,
              "cellSize": {"x": 0.5, "y": 0.25}, "fields": packed, "data": rows.tobytes()}
    return new("foxglove.Grid", **{**values, **extra})


@pytest.mark.parametrize("numeric", sorted(NUMERIC))
def test_grid_first_value_field_of_every_type(numeric: str) -> None:
    cells = records([("red", "<u1", 0), ("height", NUMERIC[numeric], 8)], 16, 6)
    cells["height"] = [1, 2, 3, 4, 5, 100]
    cells["red"] = 255
    result = convert(grid(cells, {"red": "uint8", "height": numeric}, 3, 64))
    assert isinstance(result, Grid)
    assert result.values.dtype == np.float32 and result.values.shape == (2, 3)
    np.testing.assert_array_equal(result.values, [[1, 2, 3], [4, 5, 100]])
    assert result.cell_size == (0.5, 0.25) and result.value_range == (1, 100)
    assert result.origin == (1, 2, 0, 0, 0, 0, 1)
    assert (result.frame_id, result.stamp) == ("map", 12.5)


def test_grid_non_finite_values_are_nan() -> None:
    cells = records([("cost", "<f8", 0)], 8, 4)
    cells["cost"] = [0.5, np.inf, np.nan, -1.5]
    result = convert(grid(cells, {"cost": "float64"}, 2, 16))
    np.testing.assert_array_equal(result.values, [[0.5, np.nan], [np.nan, -1.5]])
    assert result.value_range == (-1.5, 0.5)


def test_grid_bad_input() -> None:
    cells = records([("v", "<u1", 0)], 2, 4)
    fields = {"v": "uint8"}
    with pytest.raises(ConversionError, match="cell size"):
        convert(grid(cells, fields, 2, 4, cellSize={"x": 0.0, "y": 1.0}))
    with pytest.raises(ConversionError, match="none may be 0"):
        convert(grid(cells, fields, 2, 4, rowStride=0))
    with pytest.raises(ConversionError, match="none may be 0"):
        convert(grid(cells, fields, 2, 4, columnCount=0))
    with pytest.raises(ConversionError, match="3 cells of 2 bytes do not fit in a 4-byte row"):
        convert(grid(cells, fields, 2, 4, columnCount=3))
    message = grid(cells, fields, 2, 4)
    message.data = bytes(7)
    with pytest.raises(ConversionError, match="7 bytes is not a whole, non-zero number"):
        convert(message)
    message.data = b""
    with pytest.raises(ConversionError, match="0 bytes"):
        convert(message)
    with pytest.raises(ConversionError, match="no field of a known numeric type"):
        convert(grid(cells, {"v": "unknown"}, 2, 4))
    wide = records([("v", "<f8", 0)], 8, 2)
    with pytest.raises(ConversionError, match="does not fit in a 4-byte cell"):
        convert(grid(wide, {"v": "float64"}, 1, 8, cellStride=4))
    with pytest.raises(ConversionError, match="grid pose is not finite"):
        convert(grid(cells, fields, 2, 4, pose=pose((0, math.inf, 0))))


# -- scene updates ----------------------------------------------------------------------------
RED = {"r": 1.0, "g": 0.0, "b": 0.0, "a": 1.0}
GREEN = {"r": 0.0, "g": 1.0, "b": 0.0, "a": 0.5}


def points(*xyz) -> list[dict]:
    return [{"x": x, "y": y, "z": z} for x, y, z in xyz]


def full_entity() -> dict:
    return {
        "timestamp": STAMP, "frameId": "map", "id": "car-1",
        "lifetime": {"sec": 2, "nsec": 250_000_000},
        "metadata": [{"key": "kind", "value": "car"}],
        "arrows": [{"pose": pose((1, 0, 0)), "shaftLength": 1.0, "shaftDiameter": 0.1,
                    "headLength": 0.3, "headDiameter": 0.2, "color": RED}],
        "cubes": [{"pose": pose((0, 0, 1), YAW90), "size": {"x": 4.0, "y": 2.0, "z": 1.5},
                   "color": GREEN}],
        "spheres": [{"pose": pose(), "size": {"x": 1.0, "y": 1.0, "z": 2.0}, "color": RED}],
        "cylinders": [{"pose": pose(), "size": {"x": 1.0, "y": 1.0, "z": 3.0},
                       "bottomScale": 1.0, "topScale": 0.0, "color": RED}],
        "lines": [
            {"type": "lineStrip", "pose": pose(), "thickness": 2.0,
             "points": points((0, 0, 0), (1, 0, 0), (1, 1, 0)), "color": RED},
            {"type": "lineLoop", "pose": pose(), "thickness": 0.1,
             "points": points((0, 0, 0), (1, 0, 0), (1, 1, 0)), "colors": [RED, GREEN, RED]},
            {"type": "lineList", "pose": pose(), "thickness": 1.0,
             "points": points((0, 0, 0), (1, 0, 0)), "color": GREEN, "indices": [0, 1, 1, 0]},
        ],
        "triangles": [{"pose": pose((0, 0, 5)), "points": points((0, 0, 0), (1, 0, 0), (0, 1, 0),
                                                                 (1, 1, 0)),
                       "colors": [RED, GREEN, RED, GREEN], "indices": [0, 1, 2, 2, 1, 3]}],
        "texts": [{"pose": pose((0, 0, 2)), "billboard": True, "fontSize": 0.5,
                   "color": GREEN, "text": "hello"}],
        "models": [{"pose": pose(), "url": "package://car.glb"}],
    }


def test_scene_update_every_primitive() -> None:
    message = new("foxglove.SceneUpdate", entities=[full_entity()], deletions=[
        {"type": "matchingId", "id": "old-1"}, {"type": "matchingId", "id": "old-2"}])
    result = convert(message)
    assert isinstance(result, SceneChange)
    assert result.deletions == ("old-1", "old-2") and not result.delete_all
    (entity,) = result.entities
    assert (entity.id, entity.frame_id, entity.stamp, entity.lifetime_s) == \
        ("car-1", "map", 12.5, 2.25)
    assert entity.label == "kind: car\nmodel not loaded: package://car.glb"
    kinds = [p.kind for p in entity.primitives]
    assert kinds == ["arrow", "cube", "sphere", "cylinder", "line_strip", "line_loop", "lines",
                     "triangles", "text", "text"]
    arrow, cube, sphere, cylinder, strip, loop, lines, triangles, text, model = \
        entity.primitives
    assert model.text == "model not loaded: package://car.glb"
    assert model.pose == (0, 0, 0, 0, 0, 0, 1)
    assert arrow.pose == (1, 0, 0, 0, 0, 0, 1) and arrow.size == pytest.approx((1.3, 0.1, 0.2))
    assert arrow.color == (1, 0, 0, 1)
    assert cube.size == (4, 2, 1.5) and cube.pose == pytest.approx((0, 0, 1, 0, 0, S, S))
    assert cube.color == (0, 1, 0, 0.5)
    assert sphere.size == (1, 1, 2)
    assert cylinder.size == (1, 1, 3) and cylinder.cylinder_scales == (1, 0)
    np.testing.assert_array_equal(strip.points, [[0, 0, 0], [1, 0, 0], [1, 1, 0]])
    assert strip.points.dtype == np.float32 and strip.colors is None and strip.indices is None
    assert strip.width == 2.0 and strip.color == (1, 0, 0, 1)
    np.testing.assert_array_equal(loop.colors, [[1, 0, 0, 1], [0, 1, 0, 0.5], [1, 0, 0, 1]])
    assert loop.width == pytest.approx(0.1)
    assert lines.indices.dtype == np.uint32
    np.testing.assert_array_equal(lines.indices, [0, 1, 1, 0])
    assert triangles.pose[:3] == (0, 0, 5) and len(triangles.points) == 4
    np.testing.assert_array_equal(triangles.indices, [0, 1, 2, 2, 1, 3])
    assert triangles.colors.shape == (4, 4)
    assert text.text == "hello" and text.size == (0.5, 0.5, 0.5) and text.pose[2] == 2


def test_scene_update_models_are_named_never_loaded() -> None:
    long_url = "http://example.com/\n" + "a" * 500
    message = new("foxglove.SceneUpdate", entities=[{"id": "m", "models": [
        {"pose": pose((1, 2, 3)), "url": long_url},
        {"pose": pose(), "mediaType": "model/gltf-binary", "data": b"glTF" + bytes(60)},
    ]}])
    (entity,) = convert(message).entities
    url_text = "model not loaded: http://example.com/?" + "a" * 180 + "…"
    embedded_text = "model not loaded: embedded model/gltf-binary (64 bytes)"
    assert [p.text for p in entity.primitives] == [url_text, embedded_text]
    assert entity.primitives[0].pose[:3] == (1, 2, 3)
    assert entity.label == f"{url_text}\n{embedded_text}"


def test_scene_update_delete_all_and_defaults() -> None:
    message = new("foxglove.SceneUpdate", deletions=[{"type": "all"}],
                  entities=[{"id": "empty"}])
    result = convert(message)
    assert result.delete_all and result.deletions == ()
    (entity,) = result.entities
    assert (entity.primitives, entity.lifetime_s, entity.label, entity.frame_id) == \
        ((), 0.0, "", "")
    negative = new("foxglove.SceneUpdate", entities=[{"id": "a", "lifetime": {"sec": -3}}])
    assert convert(negative).entities[0].lifetime_s == 0.0
    unknown = new("foxglove.SceneUpdate", deletions=[{"type": "matchingId", "id": "x"}])
    unknown.deletions[0].type = 9  # a newer robot's deletion type: ignored
    assert convert(unknown).deletions == ()


def test_scene_update_leaves_out_non_finite_primitives() -> None:
    entity = full_entity()
    entity["cubes"][0]["size"]["x"] = math.nan
    entity["lines"][0]["points"][1]["y"] = math.inf
    entity["texts"][0]["pose"]["orientation"]["w"] = math.nan
    (result,) = convert(new("foxglove.SceneUpdate", entities=[entity])).entities
    assert [p.kind for p in result.primitives] == ["arrow", "sphere", "cylinder", "line_loop",
                                                   "lines", "triangles", "text"]  # the model
    assert "3 primitive(s) with values that are not finite not shown" in result.label


def test_scene_update_unknown_line_type_is_noted() -> None:
    message = new("foxglove.SceneUpdate", entities=[full_entity()])
    message.entities[0].lines[1].type = 7
    (entity,) = convert(message).entities
    assert [p.kind for p in entity.primitives].count("line_loop") == 0
    assert "line 1 of unknown type 7 not shown" in entity.label


def test_scene_update_bad_primitives() -> None:
    entity = full_entity()
    entity["lines"][1]["colors"] = [RED, GREEN]
    with pytest.raises(ConversionError, match="'car-1' line 1: 2 colors for 3 points"):
        convert(new("foxglove.SceneUpdate", entities=[entity]))
    entity = full_entity()
    entity["lines"][2]["indices"] = [0, 2]
    with pytest.raises(ConversionError, match="line 2: index 2 of 2 points"):
        convert(new("foxglove.SceneUpdate", entities=[entity]))
    entity = full_entity()
    entity["triangles"][0]["indices"] = [0, 1, 2, 3]
    with pytest.raises(ConversionError, match="triangle list 0: 4 vertices are not whole"):
        convert(new("foxglove.SceneUpdate", entities=[entity]))
    entity = full_entity()
    del entity["triangles"][0]["indices"], entity["triangles"][0]["colors"]
    with pytest.raises(ConversionError, match="4 vertices are not whole triangles"):
        convert(new("foxglove.SceneUpdate", entities=[entity]))
