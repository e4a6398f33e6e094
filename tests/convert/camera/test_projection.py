"""Camera calibrations from real bytes (pycapnp -> codec.decode -> ``camera.calibration``),
projection checked by hand and against OpenCV, and 3D boxes drawn into the image."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from app.codec.buffers import encode_buffers
from app.codec.decode import decode, encoding_for
from app.codec.registry import registry
from app.convert.camera.overlays import overlay_from
from app.convert.camera.projection import (
    CameraModel,
    boxes_in,
    camera_model_from,
    project_boxes,
    project_model,
)
from app.convert.models import Box, Boxes
from app.convert.registry import ConversionError, get_converter
from app.scene.frames import TransformTree
from app.sim.kinematics import Pose2D
from app.sim.rover_sensors import RoverSensors
from app.sim.scene import SyntheticScene

K640 = [500.0, 0.0, 320.0, 0.0, 500.0, 240.0, 0.0, 0.0, 1.0]
# Columns: the optical axes (x right, y down, z forward) in base_link (x forward, z up).
BASE_FROM_OPTICAL = np.array([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]])
OPTICAL_FROM_BASE = np.eye(4)
OPTICAL_FROM_BASE[:3, :3] = BASE_FROM_OPTICAL.T


def new(type_name: str, **fields):
    return registry().struct(type_name).new_message(**fields)


def wire(message, buffers=None):
    type_name = registry().name_of(message.schema.node.id)
    payload = message.to_bytes()
    message.clear_write_flag()  # tests edit and re-send the same builder
    attachment = bytes(encode_buffers(buffers)) if buffers is not None else None
    return decode(encoding_for(type_name), payload, attachment)


def calibration(k=K640, d=(), model="", p=None, width=640, height=480, **options):
    message = new("foxglove.CameraCalibration", frameId="cam_optical", width=width,
                  height=height, distortionModel=model, d=list(d), k=list(k),
                  p=list(p if p is not None else [*K640[:3], 0, *K640[3:6], 0, *K640[6:], 0]))
    message.timestamp.sec = 42
    return get_converter("camera.calibration")(wire(message), **options)


def sample_points(count: int = 400, spread: float = 0.9) -> np.ndarray:
    rng = np.random.default_rng(7)
    z = rng.uniform(0.5, 20.0, count)
    xy = rng.uniform(-spread, spread, (count, 2)) * z[:, None]
    return np.column_stack([xy, z])


def cv2_pixels(points: np.ndarray, K: np.ndarray, D: np.ndarray, fisheye: bool = False):
    zero = np.zeros(3)
    if fisheye:
        uv, _ = cv2.fisheye.projectPoints(points.reshape(-1, 1, 3), zero, zero, K, D)
    else:
        uv, _ = cv2.projectPoints(points, zero, zero, K, D)
    return uv.reshape(-1, 2)


# -- calibrations -----------------------------------------------------------------------------
def test_foxglove_calibration_pinhole_by_hand() -> None:
    camera = calibration()
    assert isinstance(camera, CameraModel)
    assert (camera.width, camera.height, camera.frame_id, camera.stamp) == (640, 480,
                                                                             "cam_optical", 42)
    uv, visible = camera.project(np.array([[0.0, 0.0, 5.0], [1.0, -0.5, 5.0], [0, 0, -1]]))
    # K's integer pixels are pixel centres (OpenCV/ROS); ours start at the pixel's corner.
    np.testing.assert_allclose(uv[:2], [[320.5, 240.5], [420.5, 190.5]])
    assert visible.tolist() == [True, True, False] and np.isnan(uv[2]).all()


@pytest.mark.parametrize(("model", "d"), [
    ("plumb_bob", [-0.28, 0.07, 0.0012, -0.0007, 0.011]),
    ("rational_polynomial", [0.6, -0.25, 0.001, 0.002, 0.04, 0.9, -0.12, 0.03]),
])
def test_distortion_matches_opencv(model: str, d: list[float]) -> None:
    k = [612.0, 0.0, 330.5, 0.0, 608.0, 236.25, 0.0, 0.0, 1.0]
    camera = calibration(k, d, model)
    points = sample_points()
    uv, visible = camera.project(points)
    assert visible.all()
    expected = cv2_pixels(points, np.array(k).reshape(3, 3), np.array(d))
    assert np.abs(uv - 0.5 - expected).max() < 0.01


@pytest.mark.parametrize("model", ["equidistant", "fisheye"])
def test_equidistant_matches_opencv_fisheye(model: str) -> None:
    k, d = [380.0, 0.0, 640.0, 0.0, 381.0, 400.0, 0.0, 0.0, 1.0], [0.08, -0.03, 0.006, -0.001]
    camera = calibration(k, d, model, width=1280, height=800)
    points = sample_points(spread=2.5)  # up to ~68 degrees off the axis
    uv, visible = camera.project(points)
    assert visible.all()
    expected = cv2_pixels(points, np.array(k).reshape(3, 3), np.array(d), fisheye=True)
    assert np.abs(uv - 0.5 - expected).max() < 0.01


def test_points_where_the_lens_model_folds_back_are_not_visible() -> None:
    # r (1 - 0.5 r^2) grows only up to r = 0.816: a point at r = 2 would land at -2, i.e.
    # inside the image on the wrong side.
    camera = calibration(d=[-0.5, 0, 0, 0, 0], model="plumb_bob")
    uv, visible = camera.project(np.array([[0.5, 0.0, 1.0], [2.0, 0.0, 1.0]]))
    assert visible.tolist() == [True, False] and np.isnan(uv[1]).all()


def test_rectified_uses_p_and_ignores_distortion() -> None:
    fx = 400.0
    p = [fx, 0.0, 300.0, -fx * 0.12, 0.0, fx, 200.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    camera = calibration(d=[-0.3, 0.1, 0, 0, 0], model="plumb_bob", p=p, rectified=True)
    assert not camera.distorted
    uv, _ = camera.project(np.array([[1.0, 0.5, 4.0]]))
    # [u v w] = P [X Y Z 1]: u = (400 + 1200 - 48) / 4, v = (200 + 800) / 4
    np.testing.assert_allclose(uv, [[388.0 + 0.5, 250.0 + 0.5]])


def test_scaled_camera_for_a_downscaled_image() -> None:
    camera = calibration()
    half = camera.scaled(320, 240)
    points = sample_points(50)
    full_uv, _ = camera.project(points)
    half_uv, _ = half.project(points)
    np.testing.assert_allclose(half_uv, full_uv / 2)


def isaac_pinhole(message, rows=480, cols=640) -> None:
    message.rows, message.cols = rows, cols
    message.focal.x, message.focal.y = 520.0, 500.0  # (row, col): fy, fx
    message.center.x, message.center.y = 250.0, 310.0  # (row, col): cy, cx


def test_isaac_pinhole_is_row_column() -> None:
    message = new("isaac.PinholeProto")
    isaac_pinhole(message)
    camera = camera_model_from(wire(message))
    np.testing.assert_array_equal(camera.K, [[500, 0, 310], [0, 520, 250], [0, 0, 1]])
    assert (camera.width, camera.height, camera.origin_shift) == (640, 480, 0.0)
    uv, _ = camera.project(np.array([[1.0, 0.5, 5.0]]))
    np.testing.assert_allclose(uv, [[310 + 100, 250 + 52]])


def test_isaac_brown_and_fisheye_match_opencv() -> None:
    message = new("isaac.CameraIntrinsicsProto")
    isaac_pinhole(message.pinhole)
    r0, r1, r2, t0, t1 = -0.25, 0.06, 0.01, 0.0015, -0.0008
    message.distortion.model = "brown"
    message.distortion.coefficients.coefficients = [r0, r1, r2, t0, t1]
    camera = camera_model_from(wire(message))
    assert camera.distortion == "plumb_bob"
    points = sample_points()
    uv, visible = camera.project(points)
    assert visible.all()
    expected = cv2_pixels(points, camera.K, np.array([r0, r1, t0, t1, r2]))
    assert np.abs(uv - expected).max() < 0.01

    message.distortion.model = "fisheye"
    message.distortion.coefficients.coefficients = [0.05, -0.01, 0.002, -0.0003]
    camera = camera_model_from(wire(message))
    uv, _ = camera.project(points)
    expected = cv2_pixels(points, camera.K, camera.D, fisheye=True)
    assert np.abs(uv - expected).max() < 0.01


def test_isaac_camera_messages() -> None:
    color = new("isaac.ColorCameraProto")
    isaac_pinhole(color.pinhole)
    color.distortion.model = "brown"
    color.distortion.coefficients.coefficients = [-0.1, 0.0, 0.0, 0.0, 0.0]
    assert camera_model_from(wire(color)).distorted

    depth = new("isaac.DepthCameraProto")
    isaac_pinhole(depth.pinhole, rows=0, cols=0)  # size from the image instead
    image = depth.depthImage
    image.elementType, image.rows, image.cols, image.channels = "float32", 120, 160, 1
    camera = camera_model_from(wire(depth, [np.ones((120, 160), np.float32)]))
    assert (camera.width, camera.height, camera.distorted) == (160, 120, False)


BAD_CALIBRATIONS = [
    ({"k": [0.0] * 9}, "not a camera matrix"),
    ({"k": [math.nan, *K640[1:]]}, "not finite"),
    ({"k": K640[:8]}, "K has 8 values"),
    ({"d": [0.1, 0.0, 0.0, 0.0], "model": "plumb_bob"}, "4 distortion coefficients"),
    ({"d": [0.1] * 5, "model": "rational_polynomial"}, "5 distortion coefficients"),
    ({"d": [math.nan] * 5, "model": "plumb_bob"}, "not finite"),
    ({"d": [0.1] * 5, "model": "kannala_brandt"}, "unknown distortion model"),
    ({"width": 0}, "image size 0x480"),
    ({"p": [1.0] * 11, "rectified": True}, "P has 11 values"),
]


@pytest.mark.parametrize(("fields", "reason"), BAD_CALIBRATIONS)
def test_bad_calibrations_are_refused(fields: dict, reason: str) -> None:
    with pytest.raises(ConversionError, match=reason):
        calibration(**fields)


def test_bad_isaac_calibrations_are_refused() -> None:
    message = new("isaac.CameraIntrinsicsProto")
    isaac_pinhole(message.pinhole)
    message.distortion.model = "fisheye"
    message.distortion.coefficients.coefficients = [0.1] * 5
    with pytest.raises(ConversionError, match="5 distortion coefficients"):
        camera_model_from(wire(message))
    message.pinhole.focal.x = 0.0
    with pytest.raises(ConversionError, match="not a camera matrix"):
        camera_model_from(wire(message))
    with pytest.raises(ConversionError, match="no camera calibration"):
        camera_model_from(wire(new("isaac.Pose3dProto")))


# -- boxes ------------------------------------------------------------------------------------
def endpoints(shape) -> set[tuple[float, float]]:
    return {(round(x, 6), round(y, 6)) for x, y in shape.xy}


def test_box_five_metres_ahead_lands_where_computed_by_hand() -> None:
    camera = calibration()
    boxes = Boxes((Box((5.0, 0.0, 0.0), (1.0, 1.0, 1.0), label="crate", score=0.8),),
                  frame_id="base_link", stamp=3.0)
    result = project_boxes(boxes, camera, OPTICAL_FROM_BASE)
    lines, text = result.shapes
    assert lines.kind == "line_list" and len(lines.xy) == 24  # 12 edges, straight
    # Near face at 4.5 m, far face at 5.5 m, corners +-0.5 m: u = 500 * x / z + 320.5.
    near, far = 500 * 0.5 / 4.5, 500 * 0.5 / 5.5
    expected = {(round(320.5 + sx * d, 6), round(240.5 + sy * d, 6))
                for d in (near, far) for sx in (-1, 1) for sy in (-1, 1)}
    assert endpoints(lines) == expected
    assert text.kind == "text" and text.text == "crate 0.80"
    assert text.xy[0, 0] == pytest.approx(320.5 - near)
    assert result.stamp == 3.0 and result.frame_id == "cam_optical" and result.dropped == 0


def test_box_half_behind_the_camera_draws_only_its_visible_part() -> None:
    camera = calibration()
    # In the optical frame: z from -0.5 (behind) to 1.5 (in front).
    result = project_boxes([Box((0.0, 0.0, 0.5), (1.0, 1.0, 2.0))], camera, np.eye(4))
    (lines,) = result.shapes
    assert np.isfinite(lines.xy).all()
    pairs = lines.xy.reshape(-1, 2, 2)
    assert len(pairs) == 8  # the far face's 4 edges + the 4 edges along z, clipped
    far = 500 * 0.5 / 1.5
    far_corners = {(round(320.5 + sx * far, 6), round(240.5 + sy * far, 6))
                   for sx in (-1, 1) for sy in (-1, 1)}
    assert far_corners <= endpoints(lines)
    # The clipped edges end on the near plane (z = 0.01 m): far out, away from the centre.
    clipped = [p for p in lines.xy if abs(p[0] - 320.5) > 1000]
    assert len(clipped) == 4
    assert all(abs(abs(p[0] - 320.5) - 500 * 0.5 / 0.01) < 1e-6 for p in clipped)


def test_box_behind_the_camera_draws_nothing() -> None:
    result = project_boxes([Box((0.0, 0.0, -3.0), (1.0, 1.0, 1.0), label="x")],
                           calibration(), np.eye(4))
    assert result.shapes == () and result.dropped == 0


def test_distorted_box_edges_follow_the_lens() -> None:
    k, d = [612.0, 0.0, 330.5, 0.0, 608.0, 236.25, 0.0, 0.0, 1.0], [-0.3, 0.09, 0, 0, 0]
    camera = calibration(k, d, "plumb_bob")
    box = Box((0.0, 0.0, 4.0), (5.0, 3.0, 2.0))
    (lines,) = project_boxes([box], camera, np.eye(4)).shapes
    assert len(lines.xy) == 12 * 8 * 2  # each edge in 8 pieces
    # Every piece's ends lie on OpenCV's projection of the edge.
    corners = np.array([[x, y, z] for x in (-2.5, 2.5) for y in (-1.5, 1.5) for z in (3, 5)])
    t = np.linspace(0, 1, 9)[:, None]
    along = np.concatenate([corners[a] + (corners[b] - corners[a]) * t
                            for a in range(8) for b in range(a + 1, 8)
                            if np.count_nonzero(corners[a] != corners[b]) == 1])
    expected = cv2_pixels(along, np.array(k).reshape(3, 3), np.array(d)) + 0.5
    gaps = np.linalg.norm(lines.xy[:, None, :] - expected[None, :, :], axis=2).min(axis=1)
    assert gaps.max() < 0.01
    # ... and a straight chord between the corners would be visibly off the curve.
    middle = np.linalg.norm(expected[4] - (expected[0] + expected[8]) / 2)
    assert middle > 2.0


def test_non_finite_boxes_are_counted() -> None:
    result = project_boxes([Box((math.nan, 0, 5), (1, 1, 1)), Box((0, 0, 5), (1, 1, 1))],
                           calibration(), np.eye(4))
    assert len(result.shapes) == 1 and result.dropped == 1


def scene_update():
    message = new("foxglove.SceneUpdate")
    entity = message.init("entities", 1)[0]
    entity.id, entity.frameId = "pallet-3", "base_link"
    cube = entity.init("cubes", 1)[0]
    cube.pose.position.x = 5.0
    cube.pose.orientation.w = 1.0
    cube.size.x, cube.size.y, cube.size.z = 1.0, 1.0, 1.0
    cube.color.r, cube.color.a = 1.0, 1.0
    sphere = entity.init("spheres", 1)[0]
    sphere.size.x = 1.0
    return get_converter("foxglove.scene_update")(wire(message))


def test_boxes_in_scene_updates_and_detections() -> None:
    found = boxes_in(scene_update())
    assert len(found) == 1
    frame, box = found[0]
    assert frame == "base_link" and box.center == (5.0, 0.0, 0.0) and box.label == "pallet-3"
    assert box.color == (1.0, 0.0, 0.0, 1.0)

    detections = new("isaac.Detections3Proto")
    detections.init("predictions", 1)[0].label = "pallet"
    pose = detections.init("poses", 1)[0]
    pose.rotation.q.w = 1.0
    box3 = detections.init("boundingBoxes", 1)[0]
    box3.max.x, box3.max.y, box3.max.z = 1.0, 1.0, 1.0
    found = boxes_in(get_converter("isaac.detections3")(wire(detections)))
    assert [(f, b.label) for f, b in found] == [("", "pallet")]
    assert boxes_in(object()) == []


def test_project_model_looks_up_each_frame() -> None:
    camera = calibration()
    asked: list[str] = []

    def camera_from(frame: str):
        asked.append(frame)
        return OPTICAL_FROM_BASE if frame == "base_link" else None

    result = project_model(scene_update(), camera, camera_from)
    assert asked == ["base_link"]
    assert [s.kind for s in result.shapes] == ["line_list", "text"]
    assert result.shapes[0].color == (1.0, 0.0, 0.0, 1.0)
    lost = project_model(Boxes((Box((1, 0, 0), (1, 1, 1)),), frame_id="map"), camera,
                         camera_from)
    assert lost.shapes == () and lost.dropped == 1


def test_simulated_rover_boxes_land_on_its_2d_detections() -> None:
    """The rover's own messages end to end: calibration, tf and 3D detections projected land
    where its camera drew (and 2D-detected) the static boxes and pallets."""

    class Robot:
        def add_topic(self, *args: object) -> None:
            pass

    sensors = RoverSensors(SyntheticScene(), 1000)
    sensors.register(Robot(), Pose2D)
    camera = camera_model_from(wire(sensors.calibration(0.0)))
    tree = TransformTree()
    for transform in get_converter("foxglove.frame_transforms")(
            wire(sensors.transforms(0.0))).transforms:
        tree.add(transform, "rover")
    boxes = get_converter("isaac.detections3")(wire(sensors.detections3(0.0)))
    drawn = project_model(  # isaac detections carry no frame: the catalog says base_link
        boxes, camera, lambda frame: tree.lookup("rover/camera", "rover/base_link").matrix)
    projected = {}
    for lines, text in zip(drawn.shapes[::2], drawn.shapes[1::2], strict=True):
        inside = np.clip(lines.xy, 0, [camera.width, camera.height])
        projected.setdefault(text.text.split()[0], []).append(
            np.concatenate([inside.min(axis=0), inside.max(axis=0)]))
    seen = overlay_from(wire(sensors.detections2(0.0)))
    static = [(t.text.split()[0], b.xy.ravel()) for b, t in zip(seen.shapes[::2],
                                                               seen.shapes[1::2], strict=True)
              if t.text.split()[0] in ("box", "pallet")]
    assert len(static) >= 3
    for label, box in static:
        # The sim reports cv2's pixel-centre coordinates: half a pixel from ours.
        assert min(np.abs(p - box).max() for p in projected[label]) < 1.0
