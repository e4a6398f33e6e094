"""foxglove RawImage of every encoding through the wire: pixels come back as sent."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from app.convert.camera.colormap import _turbo_lut
from app.convert.registry import ConversionError
from tests.convert.camera.helpers import frame, new, noise, picture


def raw(pixels: np.ndarray, encoding: str, step: int = 0, data: bytes | None = None,
        width: int | None = None, height: int | None = None):
    height_, width_ = pixels.shape[:2]
    message = new("foxglove.RawImage", width=width_ if width is None else width,
                  height=height_ if height is None else height,
                  encoding=encoding, step=step, frameId="cam_front")
    message.timestamp.sec, message.timestamp.nsec = 1_700_000_000, 250_000_000
    message.data = data if data is not None else np.ascontiguousarray(pixels).tobytes()
    return message


@pytest.mark.parametrize("encoding, channels", [("rgb8", 3), ("rgba8", 4), ("mono8", 1),
                                                ("8UC1", 1)])
def test_layouts_shown_as_sent_without_a_copy(encoding: str, channels: int) -> None:
    pixels = noise((30, 40, channels)).squeeze()
    shown = frame(raw(pixels, encoding))
    np.testing.assert_array_equal(shown.image, pixels)
    assert shown.image.flags.c_contiguous and not shown.image.flags.owndata  # the message's
    assert (shown.stamp, shown.frame_id, shown.encoding) == (1_700_000_000.25, "cam_front",
                                                             encoding)
    assert shown.values is None and shown.decode_s >= 0


@pytest.mark.parametrize("encoding, to_wire", [
    ("bgr8", cv2.COLOR_RGB2BGR), ("8UC3", cv2.COLOR_RGB2BGR), ("bgra8", cv2.COLOR_RGBA2BGRA)])
def test_blue_first_layouts_come_back_rgb(encoding: str, to_wire: int) -> None:
    rgb = noise((30, 40, 4 if encoding == "bgra8" else 3))
    shown = frame(raw(cv2.cvtColor(rgb, to_wire), encoding))
    np.testing.assert_array_equal(shown.image, rgb)


def test_row_padding_is_skipped() -> None:
    rgb = noise((10, 7, 3))
    step = 7 * 3 + 11
    padded = np.full((10, step), 0xEE, np.uint8)
    padded[:, :21] = rgb.reshape(10, 21)
    shown = frame(raw(rgb, "rgb8", step=step, data=padded.tobytes()))
    np.testing.assert_array_equal(shown.image, rgb)
    assert shown.image.flags.c_contiguous


def test_padded_depth_rows_are_read_in_place() -> None:
    depth = noise((6, 5), np.uint16)
    padded = np.zeros((6, 8), np.uint16)
    padded[:, :5] = depth
    shown = frame(raw(depth, "16UC1", step=16, data=padded.tobytes()))
    np.testing.assert_array_equal(shown.values, depth)


def mosaic(rgb: np.ndarray, pattern: str) -> np.ndarray:
    """The sensor image of a colour-filter array whose top-left 2x2 block reads
    ``pattern`` row by row (ROS's bayer_<pattern>8)."""
    out = np.empty(rgb.shape[:2], np.uint8)
    channel = {"r": 0, "g": 1, "b": 2}
    for i, colour in enumerate(pattern):
        dy, dx = divmod(i, 2)
        out[dy::2, dx::2] = rgb[dy::2, dx::2, channel[colour]]
    return out


@pytest.mark.parametrize("pattern", ["rggb", "bggr", "gbrg", "grbg"])
def test_bayer_patterns_give_the_colours_back(pattern: str) -> None:
    rgb = picture(48, 64)
    shown = frame(raw(mosaic(rgb, pattern), f"bayer_{pattern}8"))
    assert shown.image.shape == (48, 64, 3)
    inner = (slice(2, -2), slice(2, -2))  # demosaicing guesses at the borders
    error = np.abs(shown.image[inner].astype(int) - rgb[inner])
    assert error.max() <= 4, f"{pattern}: colours off by up to {error.max()}"


@pytest.mark.parametrize("encoding, to_wire", [
    ("uyvy", cv2.COLOR_RGB2YUV_UYVY), ("yuv422", cv2.COLOR_RGB2YUV_UYVY),
    ("yuyv", cv2.COLOR_RGB2YUV_YUY2), ("yuv422_yuy2", cv2.COLOR_RGB2YUV_YUY2)])
def test_yuv422_layouts(encoding: str, to_wire: int) -> None:
    rgb = picture(16, 32)
    rgb[:, 1::2] = rgb[:, 0::2]  # pixel pairs share one colour in 4:2:2
    shown = frame(raw(cv2.cvtColor(rgb, to_wire), encoding))
    assert np.abs(shown.image.astype(int) - rgb).max() <= 3


def test_depth_in_millimetres_is_colour_mapped_with_readable_values() -> None:
    depth = np.tile(np.linspace(500, 5000, 50).astype(np.uint16), (20, 1))
    depth[:, :5] = 0  # no reading
    nearest = float(depth[0, 5])
    shown = frame(raw(depth, "16UC1"), depth_range=(nearest, 5000.0))
    assert shown.value_unit == "mm" and shown.value_range == (nearest, 5000.0)
    np.testing.assert_array_equal(shown.values, depth)
    assert (shown.image[:, :5] == 0).all()  # black where there is no reading
    near, far = shown.image[0, 5].astype(int), shown.image[0, -1].astype(int)
    lut = _turbo_lut()[:, 0]
    assert np.abs(near - lut[1]).max() <= 1 and np.abs(far - lut[255]).max() <= 1
    assert near[2] > near[0] and far[0] > far[2]  # near is blue, far is red


def test_float_depth_nan_and_inf_are_black_and_range_is_automatic() -> None:
    depth = np.tile(np.linspace(0.5, 8.0, 40, dtype=np.float32), (30, 1))
    depth[3, 3], depth[4, 4], depth[5, 5] = np.nan, np.inf, -np.inf
    shown = frame(raw(depth, "32FC1"))
    assert shown.value_unit == "m"
    lo, hi = shown.value_range
    assert 0.5 <= lo < 0.8 and 7.7 < hi <= 8.0  # 2nd..98th percentile
    for i in (3, 4, 5):
        assert (shown.image[i, i] == 0).all()
    assert np.isnan(shown.values[3, 3])


def test_mono16_is_grey_from_low_to_high() -> None:
    counts = np.array([[100, 200, 300, 400, 1000]], np.uint16)
    shown = frame(raw(counts, "mono16"), depth_range=(200.0, 400.0))
    np.testing.assert_array_equal(shown.image, [[0, 0, 128, 255, 255]])
    np.testing.assert_array_equal(shown.values, counts)


@pytest.mark.parametrize("build, message", [
    (lambda: raw(noise((2, 2, 3)), "rgb8", data=b"x" * 1000, width=640, height=480),
     "RawImage 640x480 rgb8 needs 921600 bytes, got 1000"),
    (lambda: raw(noise((4, 4)), "xyz"), "unknown encoding 'xyz'"),
    (lambda: raw(noise((4, 4)), "mono8", width=0), "RawImage 0x4 mono8 has no pixels"),
    (lambda: raw(noise((4, 4)), "rgb8", data=b"", width=100_000, height=100_000),
     "RawImage 100000x100000 rgb8 is too large (limit 16384 a side, 256 MiB)"),
    (lambda: raw(noise((4, 4, 3)), "rgb8", step=5),
     "RawImage 4x4 rgb8: step 5 is shorter than a row (12 bytes)"),
    (lambda: raw(noise((4, 3, 2)), "yuyv"), "RawImage 3x4 yuyv needs an even width"),
])
def test_bad_raw_images_are_refused_with_the_reason(build, message: str) -> None:
    with pytest.raises(ConversionError) as refused:
        frame(build())
    assert str(refused.value) == message
