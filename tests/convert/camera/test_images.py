"""isaac images (pixels in the attachment) and bow ImageSamples (several cameras in one
message) through the wire, and the ``camera.image`` converter as the station calls it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from app.codec.decode import DecodedMessage, decode, encoding_for
from app.codec.errors import MissingAttachment
from app.codec.registry import registry
from app.convert.camera.images import camera_sources, image_frame
from app.convert.registry import ConversionError, get_converter, scene_converter_for
from app.station.interests import Converted
from tests.convert.camera.helpers import frame, new, noise, picture, wire


# -- isaac ------------------------------------------------------------------------------------
def fill_image(image, pixels: np.ndarray, index: int = 0) -> None:
    rows, cols = pixels.shape[:2]
    image.elementType = {"u1": "uint8", "<u2": "uint16", "<f4": "float32"}[pixels.dtype.str
                                                                             .replace("|", "")]
    image.rows, image.cols = rows, cols
    image.channels = 1 if pixels.ndim == 2 else pixels.shape[2]
    image.dataBufferIndex = index


def isaac_image(pixels: np.ndarray, index: int = 0):
    image = new("isaac.ImageProto")
    fill_image(image, pixels, index)
    return image


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_isaac_image_shows_its_attachment(channels: int) -> None:
    pixels = noise((24, 32, channels)).squeeze()
    shown = frame(isaac_image(pixels, index=1), [b"other", pixels])
    np.testing.assert_array_equal(shown.image, pixels)
    assert shown.encoding == f"isaac uint8x{channels}"
    assert (shown.stamp, shown.frame_id) == (0.0, "")


def test_isaac_single_channel_float_is_depth_in_metres() -> None:
    depth = np.tile(np.linspace(0.3, 6.0, 32, dtype=np.float32), (24, 1))
    depth[0, 0] = 0.0
    shown = frame(isaac_image(depth), [depth], depth_range=(0.3, 6.0))
    assert shown.value_unit == "m" and shown.value_range == (0.3, 6.0)
    np.testing.assert_array_equal(shown.values, depth)
    assert (shown.image[0, 0] == 0).all() and shown.image[0, 1].any()


def test_isaac_single_channel_uint16_is_depth_in_millimetres() -> None:
    depth = noise((10, 12), np.uint16)
    shown = frame(isaac_image(depth), [depth])
    assert shown.value_unit == "mm"
    np.testing.assert_array_equal(shown.values, depth)


def color_camera(pixels: np.ndarray, space: str):
    camera = new("isaac.ColorCameraProto", colorSpace=space)
    fill_image(camera.image, pixels)
    return camera


@pytest.mark.parametrize("space, to_wire", [
    ("rgb", None), ("bgr", cv2.COLOR_RGB2BGR), ("rgba", cv2.COLOR_RGB2RGBA),
    ("grayscale", cv2.COLOR_RGB2GRAY)])
def test_color_camera_spaces(space: str, to_wire: int | None) -> None:
    rgb = noise((20, 30, 3))
    sent = rgb if to_wire is None else cv2.cvtColor(rgb, to_wire)
    shown = frame(color_camera(sent, space), [sent])
    expected = sent if space in ("rgba", "grayscale") else rgb
    np.testing.assert_array_equal(shown.image, expected)
    assert shown.encoding == f"{space} isaac uint8x{1 if sent.ndim == 2 else sent.shape[2]}"


def test_color_camera_yuv() -> None:
    rgb = picture(20, 30)
    yuv = cv2.cvtColor(rgb, cv2.COLOR_RGB2YUV)
    shown = frame(color_camera(yuv, "yuv"), [yuv])
    assert np.abs(shown.image.astype(int) - rgb).max() <= 2


def test_color_camera_float_channels_are_unit_values() -> None:
    rgb = noise((6, 8, 3))
    shown = frame(color_camera(rgb.astype(np.float32) / 255, "rgb"), [rgb.astype(np.float32)
                                                                      / 255])
    assert np.abs(shown.image.astype(int) - rgb).max() <= 1


def test_depth_camera_range_comes_from_the_message_unless_fixed() -> None:
    depth = np.tile(np.linspace(0.5, 9.5, 40, dtype=np.float32), (30, 1))
    camera = new("isaac.DepthCameraProto", minDepth=1.0, maxDepth=8.0)
    fill_image(camera.depthImage, depth)
    shown = frame(camera, [depth])
    assert shown.value_range == (1.0, 8.0) and shown.value_unit == "m"
    assert shown.encoding == "depth isaac float32x1"
    assert frame(camera, [depth], depth_range=(2.0, 3.0)).value_range == (2.0, 3.0)


def test_isaac_image_without_its_attachment() -> None:
    """The wire path refuses it before conversion (the station shows "missing attachment");
    a message that reaches the converter without its buffer is refused there too."""
    camera = color_camera(noise((4, 4, 3)), "rgb")
    with pytest.raises(MissingAttachment, match="refers to buffer 0, attachment has 0"):
        wire(camera)
    struct = registry().structs["isaac.ColorCameraProto"]
    bare = DecodedMessage("isaac.ColorCameraProto", struct, camera.to_bytes(), 64)
    with pytest.raises(ConversionError) as refused:
        image_frame(bare)
    assert str(refused.value) == ("isaac.ColorCameraProto refers to buffer 0, "
                                  "attachment has 0")


def test_isaac_buffer_of_the_wrong_size() -> None:
    with pytest.raises(ConversionError) as refused:
        frame(isaac_image(noise((48, 64, 3))), [b"x" * 100])
    assert str(refused.value) == ("isaac.ImageProto: buffer 0 has 100 bytes, [48, 64, 3] x "
                                  "uint8 needs 9216")


@pytest.mark.parametrize("build, message", [
    (lambda: (color_camera(noise((4, 4)), "rgb"), [noise((4, 4))]),
     "colour space rgb with 1 channels"),
    (lambda: (isaac_image(noise((4, 4, 2))), [noise((4, 4, 2))]),
     "isaac image with 2 channels is not displayable"),
    (lambda: (new("isaac.ImageProto", rows=0, cols=5, channels=3), [b""]),
     "isaac image 5x0 has no pixels"),
    (lambda: (new("isaac.ImageProto", rows=60000, cols=60000, channels=3), [b""]),
     "isaac image 60000x60000 is too large (limit 16384 a side, 256 MiB)"),
])
def test_bad_isaac_images(build, message: str) -> None:
    message_, buffers = build()
    with pytest.raises(ConversionError) as refused:
        frame(message_, buffers)
    assert str(refused.value) == message


# -- bow --------------------------------------------------------------------------------------
def samples(*cameras: tuple[str, str, str, list[int], bytes]):
    """bow.ImageSamples of (source, compression, imageType, dataShape, data)."""
    message = new("bow.ImageSamples")
    for sample, (source, compression, image_type, shape, data) in zip(
            message.init("samples", len(cameras)), cameras, strict=True):
        sample.source, sample.compression, sample.imageType = source, compression, image_type
        sample.dataShape = shape
        sample.data = data
    return message


def jpeg(rgb: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR),
                        [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()


def test_bow_cameras_of_one_message() -> None:
    left, ir = picture(40, 60), noise((30, 50))
    depth = noise((30, 50), np.uint16)
    message = samples(("left", "jpg", "rgb", [60, 40, 3], jpeg(left)),
                      ("depth", "raw", "depth", [50, 30, 1], depth.tobytes()),
                      ("ir", "raw", "infrared", [50, 30, 1], ir.tobytes()),
                      ("front", "h264", "rgb", [1920, 1080, 3], b"\x00\x00\x00\x01"))
    decoded = wire(message)
    assert camera_sources(decoded) == [("left", "jpg", "rgb"), ("depth", "raw", "depth"),
                                       ("ir", "raw", "infrared"), ("front", "h264", "rgb")]
    first = image_frame(decoded)
    assert first.source == "left" and first.encoding == "jpg"
    assert np.abs(first.image[..., :3].astype(int) - left).mean() < 2.0
    shown = image_frame(decoded, "depth")
    assert (shown.source, shown.encoding, shown.value_unit) == ("depth", "raw 16UC1", "mm")
    np.testing.assert_array_equal(shown.values, depth)
    np.testing.assert_array_equal(image_frame(decoded, "ir").image, ir)
    with pytest.raises(ConversionError, match=r"^h264 is video: decoded as a stream$"):
        image_frame(decoded, "front")
    with pytest.raises(ConversionError) as refused:
        image_frame(decoded, "right")
    assert str(refused.value) == ("no camera 'right' here (sources: 'left', 'depth', 'ir', "
                                  "'front')")


@pytest.mark.parametrize("layout", ["rgb8", "rgba8", "mono8", "yuyv", "i420"])
def test_bow_raw_colour_layouts_follow_from_the_data_length(layout: str) -> None:
    rgb = picture(24, 32)
    rgb[:, 1::2] = rgb[:, 0::2]  # pairs (and 2x2 blocks) share a colour: 4:2:x is lossless
    rgb[1::2] = rgb[0::2]
    sent = {"rgb8": rgb, "rgba8": cv2.cvtColor(rgb, cv2.COLOR_RGB2RGBA),
            "mono8": rgb[..., 0], "yuyv": cv2.cvtColor(rgb, cv2.COLOR_RGB2YUV_YUY2),
            "i420": cv2.cvtColor(rgb, cv2.COLOR_RGB2YUV_I420)}[layout]
    shown = image_frame(wire(samples(("cam", "raw", "rgb", [32, 24, 3], sent.tobytes()))))
    assert shown.encoding == f"raw {layout}"
    expected = {"rgba8": sent, "mono8": sent}.get(layout, rgb)
    assert np.abs(shown.image.astype(int) - expected).max() <= 3


def test_bow_float_depth_is_metres() -> None:
    depth = np.linspace(0.1, 4.0, 12 * 8, dtype=np.float32).reshape(8, 12)
    shown = image_frame(wire(samples(("d", "raw", "depth", [12, 8], depth.tobytes()))))
    assert (shown.encoding, shown.value_unit) == ("raw 32FC1", "m")
    np.testing.assert_array_equal(shown.values, depth)


@pytest.mark.parametrize("camera, message", [
    (("c", "raw", "rgb", [10, 10, 3], b"x" * 77),
     "raw rgb image 10x10: 77 bytes is not 1, 1.5, 2, 3 or 4 bytes a pixel"),
    (("c", "raw", "depth", [10, 10], b"x" * 300),
     "raw depth image 10x10: 300 bytes is not 2 or 4 bytes a pixel"),
    (("c", "raw", "rgb", [10], b"x" * 10),
     "raw image with dataShape [10]: need [width, height, ...]"),
    (("c", "jpg", "rgb", [10, 10, 3], b"not a jpeg"),
     "corrupt jpeg: Could not determine subsampling level of JPEG image"),
])
def test_bad_bow_samples(camera, message: str) -> None:
    with pytest.raises(ConversionError) as refused:
        image_frame(wire(samples(camera)))
    assert str(refused.value) == message


def test_bow_message_without_samples() -> None:
    with pytest.raises(ConversionError, match=r"^no image in this message$"):
        image_frame(wire(new("bow.ImageSamples")))


# -- the converter ------------------------------------------------------------------------
def test_converter_takes_the_interest_options() -> None:
    left, right = noise((8, 10, 3), seed=1), noise((8, 10, 3), seed=2)
    decoded = wire(samples(("left", "raw", "rgb", [10, 8, 3], left.tobytes()),
                           ("right", "raw", "rgb", [10, 8, 3], right.tobytes())))
    interest = Converted("fleet/h1/vision", "camera.image", options=(("source", "right"),))
    shown = get_converter(interest.converter)(decoded, **dict(interest.options))
    np.testing.assert_array_equal(shown.image, right)
    depth = np.full((4, 6), 1500, np.uint16)
    ranged = Converted("k", "camera.image", options=(("depth_range", (1000.0, 2000.0)),))
    raw = new("foxglove.RawImage", width=6, height=4, encoding="16UC1", data=depth.tobytes())
    shown = get_converter("camera.image")(wire(raw), **dict(ranged.options))
    assert shown.value_range == (1000.0, 2000.0)


def test_converter_is_not_the_scene_converter_of_image_types() -> None:
    get_converter("camera.image")
    for type_name in ("foxglove.RawImage", "foxglove.CompressedImage", "isaac.ImageProto",
                      "bow.ImageSamples"):
        assert scene_converter_for(type_name) != "camera.image"


def test_converter_refuses_what_is_not_an_image() -> None:
    decoded = decode(encoding_for("foxglove.Log"), new("foxglove.Log").to_bytes())
    with pytest.raises(ConversionError, match=r"^foxglove\.Log is not a still image$"):
        get_converter("camera.image")(decoded)


@pytest.mark.parametrize("channels", [3, 4])
def test_colour_pictures_are_handed_to_the_view_in_qt_order(channels: int) -> None:
    pixels = picture(24, 32, channels)
    encoding = "rgb8" if channels == 3 else "rgba8"
    shown = frame(new("foxglove.RawImage", width=32, height=24, encoding=encoding,
                      step=0, data=pixels.tobytes()))
    assert shown.display is not None and shown.display.shape == (24, 32, 4)
    np.testing.assert_array_equal(shown.display[..., 2::-1], pixels[..., :3])
