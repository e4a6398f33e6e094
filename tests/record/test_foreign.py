"""Foreign MCAP files: a file the Foxglove SDK wrote (protobuf schemas and messages), read with
``mcap``, each message translated to its Cap'n Proto ``foxglove.X`` sample, decoded by our
codec and converted by our converters: the display models hold what the SDK wrote."""

from __future__ import annotations

import base64
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import foxglove
import numpy as np
import pytest
from foxglove import channels as fc
from foxglove import messages as fm
from google.protobuf import descriptor_pb2
from google.protobuf.descriptor_pool import DescriptorPool
from google.protobuf.message_factory import GetMessageClass
from mcap.reader import make_reader

from app.codec.decode import DecodedMessage, decode
from app.codec.fields import plain
from app.codec.registry import registry
from app.convert.camera.model import CameraFrame, ImageOverlay
from app.convert.models import PointCloud, Poses, SceneChange, Transforms
from app.convert.registry import get_converter, scene_converter_for
from app.record.foreign import foxglove_translator, topic_key
from app.record.format import ForeignChannel, ForeignChannelInfo, ForeignError
from app.record.protobuf_capnp import member_name
from tests.convert.camera.helpers import noise, picture
from tests.schemas.seed_extract import naming

ROBOT = "sdk-log"
S = math.sqrt(0.5)
T0 = 1_700_000_000
POINTS = np.array([[1.0, 2.0, 3.0], [-4.0, 5.5, 0.25], [0.0, 0.0, -7.0]], np.float32)
INTENSITY = np.array([0.5, 1.0, 250.0], np.float32)
PICTURE = picture(48, 64)
RAW = noise((5, 7, 3))


def stamp(nsec: int = 0) -> fm.Timestamp:
    return fm.Timestamp(sec=T0, nsec=nsec)


def pose(x: float = 0.0, y: float = 0.0, z: float = 0.0,
         q: tuple[float, float, float, float] = (0, 0, 0, 1)) -> fm.Pose:
    return fm.Pose(position=fm.Vector3(x=x, y=y, z=z),
                   orientation=fm.Quaternion(x=q[0], y=q[1], z=q[2], w=q[3]))


def rgba(r: float, g: float, b: float, a: float) -> fm.Color:
    return fm.Color(r=r, g=g, b=b, a=a)


def p3(*xyz: tuple[float, float, float]) -> list[fm.Point3]:
    return [fm.Point3(x=x, y=y, z=z) for x, y, z in xyz]


def jpeg(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", cv2.cvtColor(image, cv2.COLOR_RGB2BGR),
                            [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    return data.tobytes()


def cloud_message() -> fm.PointCloud:
    records = np.zeros(len(POINTS), [("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("pad", "<f4"),
                                     ("intensity", "<f4")])
    for axis, column in zip("xyz", POINTS.T, strict=True):
        records[axis] = column
    records["intensity"] = INTENSITY
    f32 = fm.PackedElementFieldNumericType.Float32
    fields = [fm.PackedElementField(name=name, offset=offset, type=f32)
              for name, offset in (("x", 0), ("y", 4), ("z", 8), ("intensity", 16))]
    return fm.PointCloud(timestamp=stamp(250_000_000), frame_id="lidar",
                         pose=pose(10.0, 0.0, 1.0), point_stride=20, fields=fields,
                         data=records.tobytes())


def entity() -> fm.SceneEntity:
    """One entity with every primitive the seed lists."""
    red, green = rgba(1, 0, 0, 1), rgba(0, 1, 0, 0.5)
    line = fm.LinePrimitiveLineType
    return fm.SceneEntity(
        timestamp=stamp(500_000_000), frame_id="map", id="car-1",
        lifetime=fm.Duration(sec=2, nsec=250_000_000), frame_locked=True,
        metadata=[fm.KeyValuePair(key="kind", value="car")],
        arrows=[fm.ArrowPrimitive(pose=pose(1, 0, 0), shaft_length=1.0, shaft_diameter=0.1,
                                  head_length=0.3, head_diameter=0.2, color=red)],
        cubes=[fm.CubePrimitive(pose=pose(0, 0, 1, (0, 0, S, S)),
                                size=fm.Vector3(x=4.0, y=2.0, z=1.5), color=green)],
        spheres=[fm.SpherePrimitive(pose=pose(), size=fm.Vector3(x=1, y=1, z=2), color=red)],
        cylinders=[fm.CylinderPrimitive(pose=pose(), size=fm.Vector3(x=1, y=1, z=3),
                                        bottom_scale=1.0, top_scale=0.0, color=red)],
        lines=[
            fm.LinePrimitive(type=line.LineStrip, pose=pose(), thickness=2.0,
                             points=p3((0, 0, 0), (1, 0, 0), (1, 1, 0)), color=red),
            fm.LinePrimitive(type=line.LineLoop, pose=pose(), thickness=0.1,
                             scale_invariant=True, points=p3((0, 0, 0), (1, 0, 0), (1, 1, 0)),
                             colors=[red, green, red]),
            fm.LinePrimitive(type=line.LineList, pose=pose(), thickness=1.0,
                             points=p3((0, 0, 0), (1, 0, 0)), color=green,
                             indices=[0, 1, 1, 0]),
        ],
        triangles=[fm.TriangleListPrimitive(
            pose=pose(0, 0, 5), points=p3((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)),
            colors=[red, green, red, green], indices=[0, 1, 2, 2, 1, 3])],
        texts=[fm.TextPrimitive(pose=pose(0, 0, 2), billboard=True, font_size=0.5,
                                scale_invariant=True, color=green, text="hello")],
        models=[fm.ModelPrimitive(pose=pose(), scale=fm.Vector3(x=1, y=1, z=1), color=red,
                                  override_color=True, url="package://car.glb",
                                  media_type="model/gltf-binary", data=b"glTF")],
    )


def transforms() -> fm.FrameTransforms:
    return fm.FrameTransforms(transforms=[
        fm.FrameTransform(timestamp=stamp(), parent_frame_id="map", child_frame_id="base_link",
                          translation=fm.Vector3(x=1.0, y=2.0, z=3.0),
                          rotation=fm.Quaternion(z=S, w=S)),
        fm.FrameTransform(timestamp=stamp(), parent_frame_id="base_link",
                          child_frame_id="cam", translation=fm.Vector3(z=1.5),
                          rotation=fm.Quaternion(w=1.0)),
    ])


def annotations() -> fm.ImageAnnotations:
    return fm.ImageAnnotations(
        circles=[fm.CircleAnnotation(timestamp=stamp(), position=fm.Point2(x=20, y=10),
                                     diameter=6.0, thickness=1.0,
                                     outline_color=rgba(1, 0, 0, 1))],
        points=[fm.PointsAnnotation(
            timestamp=stamp(), type=fm.PointsAnnotationType.LineLoop,
            points=[fm.Point2(x=x, y=y) for x, y in ((5, 5), (40, 5), (40, 30))],
            outline_color=rgba(0, 1, 0, 1), thickness=2.0)],
        texts=[fm.TextAnnotation(timestamp=stamp(), position=fm.Point2(x=3, y=44), text="cone",
                                 font_size=12.0, text_color=rgba(1, 1, 1, 1))],
    )


# topic -> messages the SDK logs on it, in order
CONTENT: dict[str, tuple[Any, list[Any]]] = {
    "/camera/image": (fc.CompressedImageChannel, [fm.CompressedImage(
        timestamp=stamp(500_000_000), frame_id="cam", data=jpeg(PICTURE), format="jpeg")]),
    "/camera/raw": (fc.RawImageChannel, [fm.RawImage(
        timestamp=stamp(), frame_id="cam", width=7, height=5, encoding="rgb8", step=21,
        data=RAW.tobytes())]),
    "/camera/annotations": (fc.ImageAnnotationsChannel, [annotations()]),
    "/camera/calibration": (fc.CameraCalibrationChannel, [fm.CameraCalibration(
        timestamp=stamp(), frame_id="cam_optical", width=64, height=48,
        distortion_model="plumb_bob", D=[0.1, -0.05, 0.0, 0.0, 0.01],
        K=[50.0, 0.0, 32.0, 0.0, 51.0, 24.0, 0.0, 0.0, 1.0])]),
    "/camera/video": (fc.CompressedVideoChannel, [fm.CompressedVideo(
        timestamp=stamp(), frame_id="cam", data=b"\x00\x00\x00\x01\x67", format="h264")]),
    "/lidar/points": (fc.PointCloudChannel, [cloud_message()]),
    "/lidar/scan": (fc.LaserScanChannel, [fm.LaserScan(
        timestamp=stamp(), frame_id="laser", pose=pose(), start_angle=0.0,
        end_angle=math.pi / 2, ranges=[1.0, 2.0, 3.0], intensities=[7.0, 8.0, 9.0])]),
    "/scene": (fc.SceneUpdateChannel, [
        fm.SceneUpdate(entities=[entity()]),
        fm.SceneUpdate(deletions=[
            fm.SceneEntityDeletion(timestamp=stamp(), type=fm.SceneEntityDeletionType.MatchingId,
                                   id="car-1"),
            fm.SceneEntityDeletion(timestamp=stamp(), type=fm.SceneEntityDeletionType.All)]),
    ]),
    "/tf": (fc.FrameTransformsChannel, [transforms()]),
    "/goal": (fc.PoseInFrameChannel, [fm.PoseInFrame(timestamp=stamp(), frame_id="map",
                                                     pose=pose(3, 4, 0, (0, 0, S, S)))]),
    "/path": (fc.PosesInFrameChannel, [fm.PosesInFrame(
        timestamp=stamp(), frame_id="map", poses=[pose(0, 0), pose(1, 0), pose(1, 1)])]),
    "/map": (fc.GridChannel, [fm.Grid(
        timestamp=stamp(), frame_id="map", pose=pose(-1, -1), column_count=3,
        cell_size=fm.Vector2(x=0.5, y=0.25), row_stride=3, cell_stride=1,
        fields=[fm.PackedElementField(name="occupancy", offset=0,
                                      type=fm.PackedElementFieldNumericType.Uint8)],
        data=bytes([0, 50, 100, 100, 50, 0]))]),
    "/gps": (fc.LocationFixChannel, [fm.LocationFix(
        timestamp=stamp(), frame_id="gps", latitude=48.1, longitude=11.5, altitude=520.0,
        position_covariance=[1.0, 0, 0, 0, 1.0, 0, 0, 0, 4.0],
        position_covariance_type=fm.LocationFixPositionCovarianceType.DiagonalKnown)]),
    "/joints": (fc.JointStatesChannel, [fm.JointStates(
        timestamp=stamp(), joints=[fm.JointState(name="elbow", position=0.5)])]),
}


@pytest.fixture(scope="module")
def sdk_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The MCAP the Foxglove SDK writes for CONTENT, on a context of its own."""
    path = tmp_path_factory.mktemp("foreign") / "sdk.mcap"
    context = foxglove.Context()
    with foxglove.open_mcap(path, context=context):
        log_time = T0 * 1_000_000_000
        for topic, (channel_type, items) in CONTENT.items():
            channel = channel_type(topic, context=context)
            for item in items:
                log_time += 1_000_000
                channel.log(item, log_time=log_time)
    return path


def channel_infos(path: Path) -> Iterator[tuple[ForeignChannelInfo, list[bytes]]]:
    """Each channel of the file as the log reader describes it, with its messages' data."""
    with path.open("rb") as stream:
        reader = make_reader(stream)
        summary = reader.get_summary()
        assert summary is not None
        found: dict[int, list[bytes]] = {cid: [] for cid in summary.channels}
        for _, channel, message in reader.iter_messages():
            found[channel.id].append(message.data)
    for cid, channel in summary.channels.items():
        schema = summary.schemas[channel.schema_id]
        yield ForeignChannelInfo(
            topic=channel.topic, message_encoding=channel.message_encoding,
            schema_name=schema.name, schema_encoding=schema.encoding,
            schema_data=schema.data, metadata=dict(channel.metadata)), found[cid]


@pytest.fixture(scope="module")
def translated(sdk_file: Path) -> dict[str, tuple[ForeignChannel | None, list[DecodedMessage]]]:
    """topic -> (its channel or None, each message translated and decoded by our codec)."""
    out: dict[str, tuple[ForeignChannel | None, list[DecodedMessage]]] = {}
    for info, datas in channel_infos(sdk_file):
        channel = foxglove_translator(info, ROBOT)
        decoded = []
        if channel is not None:
            for data in datas:
                payload, attachment = channel.translate(data)
                assert attachment is None
                decoded.append(decode(channel.encoding, payload, attachment))
        out[info.topic] = (channel, decoded)
    return out


def only(translated: dict, topic: str) -> DecodedMessage:
    (message,) = translated[topic][1]
    return message


def scene(decoded: DecodedMessage) -> Any:
    name = scene_converter_for(decoded.type_name)
    assert name is not None
    return get_converter(name)(decoded)


def test_the_sdk_file_is_protobuf_with_stored_descriptors(sdk_file: Path) -> None:
    infos = [info for info, _ in channel_infos(sdk_file)]
    assert {info.topic for info in infos} == set(CONTENT)
    for info in infos:
        assert (info.message_encoding, info.schema_encoding) == ("protobuf", "protobuf")
        assert info.schema_name.startswith("foxglove.") and info.schema_data


def test_each_channel_plays_on_the_robot_key_of_its_topic(translated: dict) -> None:
    for topic, (channel, messages) in translated.items():
        if topic == "/joints":
            continue
        assert channel is not None, topic
        assert channel.key == f"fleet/{ROBOT}{topic}"
        assert channel.encoding == f"application/capnp;{messages[0].type_name}"
        assert len(messages) == len(CONTENT[topic][1])
    assert translated["/camera/image"][0].encoding == "application/capnp;foxglove.CompressedImage"


def test_compressed_image_shows_the_jpeg_pixels(translated: dict) -> None:
    shown: CameraFrame = get_converter("camera.image")(only(translated, "/camera/image"))
    assert shown.image.shape == PICTURE.shape
    assert np.abs(shown.image.astype(int) - PICTURE).mean() < 2.0
    # the pattern, not just any picture: red grows to the right, green downwards
    assert shown.image[24, 63, 0] - shown.image[24, 0, 0] > 150
    assert shown.image[47, 32, 1] - shown.image[0, 32, 1] > 150
    assert (shown.stamp, shown.frame_id) == (T0 + 0.5, "cam")


def test_raw_image_pixels_are_exact(translated: dict) -> None:
    shown: CameraFrame = get_converter("camera.image")(only(translated, "/camera/raw"))
    np.testing.assert_array_equal(shown.image, RAW)
    assert shown.encoding == "rgb8"


def test_point_cloud_holds_the_points_moved_by_its_pose(translated: dict) -> None:
    cloud = scene(only(translated, "/lidar/points"))
    assert isinstance(cloud, PointCloud)
    np.testing.assert_array_equal(cloud.xyz, POINTS + np.array([10.0, 0.0, 1.0], np.float32))
    np.testing.assert_array_equal(cloud.intensity, INTENSITY)
    assert (cloud.frame_id, cloud.stamp, cloud.dropped) == ("lidar", T0 + 0.25, 0)


def test_scene_update_every_primitive(translated: dict) -> None:
    update, deletions = translated["/scene"][1]
    change = scene(update)
    assert isinstance(change, SceneChange)
    (car,) = change.entities
    assert (car.id, car.frame_id, car.stamp, car.lifetime_s) == ("car-1", "map", T0 + 0.5, 2.25)
    assert car.label == "kind: car\nmodel not loaded: package://car.glb"
    assert [p.kind for p in car.primitives] == [
        "arrow", "cube", "sphere", "cylinder", "line_strip", "line_loop", "lines", "triangles",
        "text", "text"]
    arrow, cube, sphere, cylinder, strip, loop, lines, triangles, text, model = car.primitives
    assert model.text == "model not loaded: package://car.glb"
    assert cube.pose == pytest.approx((0, 0, 1, 0, 0, S, S))
    assert (cube.size, cube.color) == ((4, 2, 1.5), (0, 1, 0, 0.5))
    assert arrow.size == pytest.approx((1.3, 0.1, 0.2)) and arrow.color == (1, 0, 0, 1)
    assert sphere.size == (1, 1, 2) and cylinder.cylinder_scales == (1, 0)
    np.testing.assert_array_equal(strip.points, [[0, 0, 0], [1, 0, 0], [1, 1, 0]])
    np.testing.assert_array_equal(loop.colors, [[1, 0, 0, 1], [0, 1, 0, 0.5], [1, 0, 0, 1]])
    np.testing.assert_array_equal(lines.indices, [0, 1, 1, 0])
    np.testing.assert_array_equal(triangles.indices, [0, 1, 2, 2, 1, 3])
    assert triangles.pose[:3] == (0, 0, 5) and text.text == "hello"
    # what no display model shows is carried over too
    root = plain(update.root)["entities"][0]
    assert root["frameLocked"] and root["lines"][1]["scaleInvariant"]
    assert root["models"][0] == {
        "pose": {"position": {"x": 0.0, "y": 0.0, "z": 0.0},
                 "orientation": {"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0}},
        "scale": {"x": 1.0, "y": 1.0, "z": 1.0},
        "color": {"r": 1.0, "g": 0.0, "b": 0.0, "a": 1.0}, "overrideColor": True,
        "url": "package://car.glb", "mediaType": "model/gltf-binary",
        "data": plain(update.root.entities[0].models[0].data)}
    assert bytes(update.root.entities[0].models[0].data) == b"glTF"
    gone = scene(deletions)
    assert gone.deletions == ("car-1",) and gone.delete_all


def test_frame_transforms(translated: dict) -> None:
    tree = scene(only(translated, "/tf"))
    assert isinstance(tree, Transforms)
    first, second = tree.transforms
    assert (first.parent, first.child, first.translation) == ("map", "base_link", (1, 2, 3))
    assert first.rotation == pytest.approx((0, 0, S, S)) and first.stamp == T0
    assert (second.parent, second.child, second.translation) == ("base_link", "cam", (0, 0, 1.5))


def test_image_annotations(translated: dict) -> None:
    overlay: ImageOverlay = get_converter("camera.overlay")(
        only(translated, "/camera/annotations"))
    by_kind = {shape.kind: shape for shape in overlay.shapes}
    assert set(by_kind) == {"circle", "line_loop", "text"}
    np.testing.assert_array_equal(by_kind["line_loop"].xy, [[5, 5], [40, 5], [40, 30]])
    assert by_kind["line_loop"].color == (0, 1, 0, 1)
    np.testing.assert_array_equal(by_kind["circle"].xy, [[20, 10]])
    assert by_kind["circle"].size == 6.0 and by_kind["text"].text == "cone"
    assert overlay.stamp == T0


def test_camera_calibration(translated: dict) -> None:
    model = get_converter("camera.calibration")(only(translated, "/camera/calibration"))
    np.testing.assert_array_equal(model.K, [[50, 0, 32], [0, 51, 24], [0, 0, 1]])
    np.testing.assert_array_equal(model.D, [0.1, -0.05, 0.0, 0.0, 0.01])
    assert (model.width, model.height, model.distortion, model.frame_id) == \
        (64, 48, "plumb_bob", "cam_optical")


def test_poses_scan_grid(translated: dict) -> None:
    goal = scene(only(translated, "/goal"))
    assert isinstance(goal, Poses) and goal.frame_id == "map"
    np.testing.assert_allclose(goal.poses, [[3, 4, 0, 0, 0, S, S]])
    path = scene(only(translated, "/path"))
    np.testing.assert_array_equal(path.poses[:, :3], [[0, 0, 0], [1, 0, 0], [1, 1, 0]])
    scan = scene(only(translated, "/lidar/scan"))
    np.testing.assert_allclose(scan.xyz, [[1, 0, 0], [2 * S, 2 * S, 0], [0, 3, 0]],
                               atol=1e-6)
    np.testing.assert_array_equal(scan.intensity, [7, 8, 9])
    grid = scene(only(translated, "/map"))
    np.testing.assert_array_equal(grid.values, [[0, 50, 100], [100, 50, 0]])
    assert grid.cell_size == (0.5, 0.25) and grid.origin[:3] == (-1, -1, 0)


def test_video_and_location_fix_carry_every_field(translated: dict) -> None:
    video = plain(only(translated, "/camera/video").root)
    assert (video["format"], video["frameId"], video["timestamp"]) == \
        ("h264", "cam", {"sec": T0, "nsec": 0})
    assert bytes(only(translated, "/camera/video").root.data) == b"\x00\x00\x00\x01\x67"
    fix = plain(only(translated, "/gps").root)
    assert fix == {"timestamp": {"sec": T0, "nsec": 0}, "frameId": "gps", "latitude": 48.1,
                   "longitude": 11.5, "altitude": 520.0,
                   "positionCovariance": [1.0, 0, 0, 0, 1.0, 0, 0, 0, 4.0],
                   "positionCovarianceType": "diagonalKnown"}


def test_a_type_our_schema_lacks_is_not_readable(translated: dict, sdk_file: Path) -> None:
    assert translated["/joints"] == (None, [])
    info = next(info for info, _ in channel_infos(sdk_file) if info.topic == "/camera/image")
    assert foxglove_translator(info, ROBOT) is not None
    for other in (dict(message_encoding="json"), dict(schema_encoding="jsonschema"),
                  dict(schema_name="acme.CompressedImage"),
                  dict(schema_name="foxglove.NoSuchType"),
                  dict(schema_data=b"\x0a\xff not a FileDescriptorSet"),
                  dict(schema_data=b"")):
        changed = ForeignChannelInfo(**{**info.__dict__, **other})
        assert foxglove_translator(changed, ROBOT) is None, other


def test_a_corrupt_message_is_a_foreign_error(translated: dict) -> None:
    channel = translated["/camera/image"][0]
    with pytest.raises(ForeignError, match=rf"^fleet/{ROBOT}/camera/image: not a protobuf "
                                           r"foxglove.CompressedImage: .+"):
        channel.translate(b"\x12\xff\xff\xff\xff\x0f")  # bytes field longer than the message
    payload, _ = channel.translate(b"")  # an empty message is every field at its default
    assert plain(decode(channel.encoding, payload).root)["data"].size == 0


@pytest.mark.parametrize("topic, key", [
    ("/camera/image", "fleet/r-1/camera/image"),
    ("camera//image/", "fleet/r-1/camera/image"),
    ("/a*b/**/c$d/e#f?g", "fleet/r-1/a_b/__/c_d/e_f_g"),
    ("/", "fleet/r-1/_"),
    ("", "fleet/r-1/_"),
    ("/ümlaut topic", "fleet/r-1/ümlaut topic"),
])
def test_topic_key(topic: str, key: str) -> None:
    assert topic_key("r-1", topic) == key


def test_topic_key_refuses_a_robot_id_that_is_not_a_key_chunk() -> None:
    with pytest.raises(ValueError, match="not one key chunk"):
        topic_key("a/b", "/x")


def test_the_name_rule_is_protocol_md_s(sdk_file: Path) -> None:
    """The station's copy of the rule gives the seed extractor's names for every field and
    enumerant of every foxglove type, and the rule's own examples."""
    examples = {"frame_id": "frameId", "DataShape": "dataShape", "HFOV": "hfov",
                "IKSettings": "ikSettings", "TOrigin_0": "tOrigin0", "RatioAB": "ratioAB",
                "Not_Charging": "notCharging", "POSITION_CONTROLLER": "positionController",
                "DRIVE_2": "drive2", "H264": "h264", "RGBA32": "rgba32", "K": "k"}
    names = set(examples)
    for info, _ in channel_infos(sdk_file):
        for file in descriptor_pb2.FileDescriptorSet.FromString(info.schema_data).file:
            for message in file.message_type:
                names.update(field.name for field in message.field)
                names.update(v.name for enum in message.enum_type for v in enum.value)
    assert len(names) > 100
    for name in names:
        assert member_name(name) == naming.member_name(name), name
    assert {n: member_name(n) for n in examples} == examples


# -- schemas other writers may send: the walk is by name, generic ------------------------------
def custom_channel(fields: list[tuple[str, int, int, str]], name: str = "SceneEntityDeletion",
                   enum_values: tuple[tuple[str, int], ...] = (),
                   nested: tuple[descriptor_pb2.DescriptorProto, ...] = (),
                   ) -> tuple[Any, ForeignChannel]:
    """A foxglove.<name> of another writer: fields (name, number, type, type_name or ""),
    ``many_<name>`` for a repeated one. Returns its protobuf class and the channel."""
    file = descriptor_pb2.FileDescriptorProto(name="other/foxglove.proto", package="foxglove",
                                              syntax="proto3",
                                              dependency=["google/protobuf/duration.proto"])
    message = file.message_type.add(name=name, nested_type=nested)
    if enum_values:
        enum = message.enum_type.add(name="Kind")
        for value_name, number in enum_values:
            enum.value.add(name=value_name, number=number)
    repeated = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
    for field_name, number, kind, type_name in fields:
        field = message.field.add(name=field_name, number=number, type=kind,
                                  type_name=type_name or None)
        if field_name.startswith("many_"):
            field.name, field.label = field_name[5:], repeated
    duration = descriptor_pb2.FileDescriptorProto(
        name="google/protobuf/duration.proto", package="google.protobuf", syntax="proto3")
    fields_of = duration.message_type.add(name="Duration").field
    fields_of.add(name="seconds", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT64)
    fields_of.add(name="nanos", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT32)
    files = descriptor_pb2.FileDescriptorSet(file=[file, duration])
    info = ForeignChannelInfo("/other", "protobuf", f"foxglove.{name}", "protobuf",
                              files.SerializeToString(), {})
    channel = foxglove_translator(info, ROBOT)
    assert channel is not None
    pool = DescriptorPool()
    pool.Add(duration)
    pool.Add(file)
    return GetMessageClass(pool.FindMessageTypeByName(f"foxglove.{name}")), channel


F = descriptor_pb2.FieldDescriptorProto


def roundtrip(channel: ForeignChannel, message: Any) -> dict:
    payload, _ = channel.translate(message.SerializeToString())
    return plain(decode(channel.encoding, payload).root)


def test_fields_match_by_name_not_number_and_unknown_enum_values_keep_their_number() -> None:
    cls, channel = custom_channel(
        [("id", 9, F.TYPE_STRING, ""),
         ("type", 1, F.TYPE_ENUM, ".foxglove.SceneEntityDeletion.Kind"),
         ("timestamp", 3, F.TYPE_MESSAGE, ".google.protobuf.Duration"),
         ("extra", 4, F.TYPE_DOUBLE, "")],
        enum_values=(("MATCHING_ID", 0), ("ALL", 1), ("FUTURE_KIND", 7)))
    assert roundtrip(channel, cls(id="a", type=1, extra=2.0)) == \
        {"timestamp": None, "type": "all", "id": "a"}
    assert roundtrip(channel, cls(type=7))["type"] == 7  # shown as its number downstream
    root = roundtrip(channel, cls(timestamp={"seconds": -2, "nanos": -500_000_000}))
    assert root["timestamp"] == {"sec": -3, "nsec": 500_000_000}  # -2.5 s


def test_a_field_of_another_kind_is_left_out_and_values_out_of_range_are_errors() -> None:
    cls, channel = custom_channel(
        [("name", 1, F.TYPE_INT32, ""), ("offset", 2, F.TYPE_INT64, ""),
         ("type", 3, F.TYPE_STRING, "")], name="PackedElementField")
    assert roundtrip(channel, cls(name=5, offset=12, type="float32")) == \
        {"name": "", "offset": 12, "type": "unknown"}
    with pytest.raises(ForeignError, match=rf"^fleet/{ROBOT}/other: foxglove.PackedElementField "
                                           "does not translate: .+"):
        channel.translate(cls(offset=-1).SerializeToString())


def test_repeated_values_and_maps() -> None:
    """A writer whose SceneEntity.metadata is a protobuf map: capnp has no maps, so it is left
    out, and the rest of the entity still translates."""
    entry = descriptor_pb2.DescriptorProto(
        name="MetadataEntry", options=descriptor_pb2.MessageOptions(map_entry=True),
        field=[F(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL),
               F(name="value", number=2, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)])
    cls, channel = custom_channel(
        [("id", 1, F.TYPE_STRING, ""),
         ("many_metadata", 2, F.TYPE_MESSAGE, ".foxglove.SceneEntity.MetadataEntry"),
         ("many_frame_id", 3, F.TYPE_STRING, "")],  # repeated against a single Text: left out
        name="SceneEntity", nested=(entry,))
    root = roundtrip(channel, cls(id="e", metadata={"kind": "car"}, frame_id=["a", "b"]))
    assert (root["id"], root["metadata"], root["frameId"]) == ("e", [], "")
    line_cls, lines = custom_channel([("many_indices", 1, F.TYPE_SINT64, ""),
                               ("many_colors", 2, F.TYPE_FLOAT, "")], name="LinePrimitive")
    root = roundtrip(lines, line_cls(indices=[3, 1, 2], colors=[1.0]))  # colors: not structs
    assert (root["indices"], root["colors"]) == ([3, 1, 2], [])
    calibration_cls, calibration = custom_channel(
        [("many_K", 1, F.TYPE_MESSAGE, ".google.protobuf.Duration"),  # against List(Float64)
         ("many_D", 2, F.TYPE_FLOAT, "")], name="CameraCalibration")
    root = roundtrip(calibration, calibration_cls(K=[{"seconds": 1}], D=[0.5]))
    assert (root["k"], root["d"]) == ([], [0.5])


def test_every_struct_the_sdk_shares_with_our_schema_translates(tmp_path: Path) -> None:
    """Each SDK channel type logs one default message; the type translates when
    schemas/foxglove.capnp defines it and is unreadable otherwise."""
    path = tmp_path / "all.mcap"
    context = foxglove.Context()
    with foxglove.open_mcap(path, context=context):
        for name in fc.__all__:
            message_type = getattr(fm, name.removesuffix("Channel"))
            getattr(fc, name)(f"/{name}", context=context).log(message_type())
    readable = 0
    for info, (data,) in channel_infos(path):
        channel = foxglove_translator(info, ROBOT)
        ours = "foxglove." + info.schema_name.split(".")[-1] in registry().structs
        assert (channel is not None) == ours, info.schema_name
        if channel is not None:
            payload, _ = channel.translate(data)
            assert decode(channel.encoding, payload).type_name == channel.encoding.split(";")[1]
            readable += 1
    assert readable == 38  # 48 SDK types, 10 of them newer than the seed


# -- foxglove JSON channels --------------------------------------------------------------------
JSON_CONTENT: dict[str, tuple[str, dict]] = {
    "/json/points": ("PointCloud", {
        "timestamp": {"sec": T0, "nsec": 5}, "frame_id": "lidar",
        "pose": {"position": {"x": 1, "y": 0, "z": 0},
                 "orientation": {"x": 0, "y": 0, "z": 0, "w": 1}},
        "point_stride": 12,
        "fields": [{"name": "x", "offset": 0, "type": 7}, {"name": "y", "offset": 4, "type": 7},
                   {"name": "z", "offset": 8, "type": "FLOAT32"}],  # numbers or names
        "data": base64.b64encode(POINTS.tobytes()).decode()}),
    "/json/tf": ("FrameTransform", {
        "timestamp": {"sec": T0, "nsec": 0}, "parent_frame_id": "map",
        "childFrameId": "base_link", "translation": {"x": 1, "y": 2, "z": 3},
        "rotation": {"x": 0, "y": 0, "z": 0, "w": 1}, "not_in_the_schema": [1, 2]}),
    "/json/scene": ("SceneUpdate", {"entities": [{
        "id": "box", "frame_id": "map", "lifetime": {"sec": 1, "nsec": 500_000_000},
        "cubes": [{"pose": {"position": {"x": 0, "y": 0, "z": 1},
                            "orientation": {"x": 0, "y": 0, "z": S, "w": S}},
                   "size": {"x": 2, "y": 1, "z": 0.5}, "color": {"r": 0, "g": 0, "b": 1, "a": 1}}],
    }], "deletions": [{"type": "ALL"}]}),
}


@pytest.fixture(scope="module")
def json_channels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, list]]:
    """A file of foxglove JSON channels the SDK wrote, translated: topic -> (channel, data)."""
    path = tmp_path_factory.mktemp("foreign") / "json.mcap"
    context = foxglove.Context()
    with foxglove.open_mcap(path, context=context):
        for topic, (name, message) in JSON_CONTENT.items():
            schema = foxglove.Schema(name=f"foxglove.{name}", encoding="jsonschema",
                                     data=b'{"type": "object"}')
            channel = foxglove.Channel(topic, schema=schema, message_encoding="json",
                                       context=context)
            channel.log(message)
    return {info.topic: (foxglove_translator(info, ROBOT), datas)
            for info, datas in channel_infos(path)}


def json_decoded(json_channels: dict, topic: str) -> DecodedMessage:
    channel, (data,) = json_channels[topic]
    assert channel is not None and channel.key == f"fleet/{ROBOT}{topic}"
    payload, attachment = channel.translate(data)
    return decode(channel.encoding, payload, attachment)


def test_json_channels(json_channels: dict) -> None:
    cloud = scene(json_decoded(json_channels, "/json/points"))
    np.testing.assert_array_equal(cloud.xyz, POINTS + np.array([1, 0, 0], np.float32))
    assert (cloud.frame_id, cloud.stamp) == ("lidar", T0 + 5e-9)
    (tf,) = scene(json_decoded(json_channels, "/json/tf")).transforms
    assert (tf.parent, tf.child, tf.translation, tf.rotation) == \
        ("map", "base_link", (1, 2, 3), (0, 0, 0, 1))
    change = scene(json_decoded(json_channels, "/json/scene"))
    (entity,) = change.entities
    (cube,) = entity.primitives
    assert (entity.id, entity.lifetime_s, change.delete_all) == ("box", 1.5, True)
    assert cube.pose == pytest.approx((0, 0, 1, 0, 0, S, S))
    assert (cube.size, cube.color) == ((2, 1, 0.5), (0, 0, 1, 1))


@pytest.mark.parametrize("data, reason", [
    (b"{not json", "Expecting property name"),
    (b"[1, 2]", "message: expected an object"),
    (b'{"data": "not base64!"}', "data: not base64"),
    (b'{"data": 7}', "data: expected base64 text"),
    (b'{"fields": {"name": "x"}}', "fields: expected a list"),
    (b'{"fields": [{"type": "FLOAT128"}]}', r"fields\[0\].type: no enumerant 'FLOAT128'"),
    (b'{"fields": [{"type": true}]}', r"fields\[0\].type: expected an enumerant"),
    (b'{"frame_id": 3}', "frameId: int for a text"),
    (b'{"point_stride": "12"}', "pointStride: str for a uint32"),
    (b'{"point_stride": -1}', "Value out-of-range"),
    (b'{"pose": {"position": {"x": false}}}', "pose.position.x: bool for a float64"),
    (b'{"frame_id": "\xff"}', "can't decode"),
])
def test_json_that_does_not_translate(json_channels: dict, data: bytes, reason: str) -> None:
    channel, _ = json_channels["/json/points"]
    with pytest.raises(ForeignError, match=rf"^fleet/{ROBOT}/json/points: foxglove.PointCloud "
                                           rf"JSON does not translate: .*{reason}"):
        channel.translate(data)
