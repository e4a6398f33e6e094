"""foxglove CompressedImage (jpeg, png, webp) through the wire: what a user sees is what the
camera encoded; damaged or oversized files are refused with the reason."""

from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np
import pytest

from app.convert.registry import ConversionError
from tests.convert.camera.helpers import frame, new, noise, picture


def compressed(data: bytes, image_format: str):
    message = new("foxglove.CompressedImage", format=image_format, frameId="cam_front")
    message.timestamp.sec, message.timestamp.nsec = 1_700_000_001, 500_000_000
    message.data = data
    return message


def encoded(image: np.ndarray, ext: str, *params: int) -> bytes:
    """``image`` (RGB / RGBA / grey) as an OpenCV-written file."""
    if image.ndim == 3:
        code = cv2.COLOR_RGBA2BGRA if image.shape[2] == 4 else cv2.COLOR_RGB2BGR
        image = cv2.cvtColor(image, code)
    ok, data = cv2.imencode(ext, image, list(params))
    assert ok
    return data.tobytes()


@pytest.mark.parametrize("name", ["jpeg", "JPEG", "jpg", "image/jpeg", ""])
def test_jpeg_decodes_to_qt_order_close_to_the_source(name: str) -> None:
    rgb = picture(120, 160)
    shown = frame(compressed(encoded(rgb, ".jpg", cv2.IMWRITE_JPEG_QUALITY, 95), name))
    assert shown.image.shape == (120, 160, 3) and shown.image.dtype == np.uint8
    assert np.abs(shown.image.astype(int) - rgb).mean() < 2.0
    # what the view draws: B, G, R, X bytes, the very memory the picture is a view of
    assert shown.display is not None and shown.display.shape == (120, 160, 4)
    np.testing.assert_array_equal(shown.display[..., 2::-1], shown.image)
    assert np.shares_memory(shown.display, shown.image)
    assert (shown.stamp, shown.frame_id) == (1_700_000_001.5, "cam_front")
    assert shown.decode_s >= 0


def test_greyscale_jpeg_stays_grey() -> None:
    grey = picture(40, 64)[..., 1]
    shown = frame(compressed(encoded(grey, ".jpg", cv2.IMWRITE_JPEG_QUALITY, 95), "jpeg"))
    assert shown.image.shape == (40, 64)
    assert np.abs(shown.image.astype(int) - grey).mean() < 2.0


LOSSLESS_WEBP = (cv2.IMWRITE_WEBP_QUALITY, 101)


@pytest.mark.parametrize("ext, name, params, channels", [
    (".png", "png", (), 1), (".png", "png", (), 3), (".png", "png", (), 4),
    (".webp", "webp", LOSSLESS_WEBP, 3), (".webp", "webp", LOSSLESS_WEBP, 4)])
def test_lossless_files_come_back_exactly(ext: str, name: str, params: tuple[int, ...],
                                          channels: int) -> None:
    pixels = noise((33, 47, channels)).squeeze()
    if channels == 4:
        pixels[..., 3] |= 1  # lossless webp drops the colour of fully transparent pixels
    shown = frame(compressed(encoded(pixels, ext, *params), name))
    np.testing.assert_array_equal(shown.image, pixels)


def test_lossy_webp() -> None:
    rgb = picture(64, 80)
    shown = frame(compressed(encoded(rgb, ".webp", cv2.IMWRITE_WEBP_QUALITY, 90), "WebP"))
    assert np.abs(shown.image.astype(int) - rgb).mean() < 3.0


def test_16_bit_grey_png_keeps_its_values() -> None:
    counts = noise((20, 30), np.uint16)
    shown = frame(compressed(encoded(counts, ".png"), "png"))
    np.testing.assert_array_equal(shown.values, counts)
    assert shown.image.shape == (20, 30) and shown.image.dtype == np.uint8
    lo, hi = shown.value_range
    assert shown.image[counts <= lo].max() == 0 and shown.image[counts >= hi].min() == 255


def test_16_bit_colour_png_is_shown_at_8_bits() -> None:
    rgb16 = noise((10, 12, 3), np.uint16)
    shown = frame(compressed(encoded(rgb16, ".png"), "png"))
    np.testing.assert_array_equal(shown.image, rgb16 >> 8)


def test_bytes_win_over_a_wrong_format_name() -> None:
    pixels = noise((8, 8, 3))
    shown = frame(compressed(encoded(pixels, ".png"), "jpeg"))
    np.testing.assert_array_equal(shown.image, pixels)


def png_header(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk
            + struct.pack(">I", zlib.crc32(chunk)))


def test_bad_files_are_refused_with_the_reason() -> None:
    good = encoded(picture(), ".jpg")
    cases = {
        "corrupt jpeg: ": b"\xff\xd8" + b"\x00" * 200,
        "unknown image format 'bmp' (known: jpeg, png, webp)": b"BM" + b"\x00" * 50,
        "corrupt png: cannot decode": png_header(64, 48) + b"\x00" * 40,
        "png 100000x100000 is too large (limit 16384 a side, 256 MiB)":
            png_header(100_000, 100_000),
        "png 9000x9000 is too large": png_header(9000, 9000),
        "corrupt webp: no image header": b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"\x00" * 30,
        "empty jpeg": b"",
        "corrupt jpeg: Corrupt JPEG data": good[:2] + b"\x00" * 40 + good[42:],
    }
    formats = {"bmp": "bmp", "png": "png", "webp": "webp"}
    for message, data in cases.items():
        name = next((f for f in formats if f in message), "jpeg")
        with pytest.raises(ConversionError) as refused:
            frame(compressed(data, name))
        assert str(refused.value).startswith(message), (message, str(refused.value))


def test_a_truncated_jpeg_shows_what_arrived() -> None:
    rgb = picture(120, 160)
    data = encoded(rgb, ".jpg", cv2.IMWRITE_JPEG_QUALITY, 95)
    shown = frame(compressed(data[: len(data) * 2 // 3], "jpeg"))
    assert shown.image.shape == (120, 160, 3)
    assert np.abs(shown.image[:20].astype(int) - rgb[:20]).mean() < 2.0


@pytest.mark.parametrize("fit, preview", [
    ((300, 225), (300, 225)),  # decoded at 1/2, scaled on from there
    ((320, 240), (320, 240)),  # 1/2 is the view's size
    ((200, 150), (200, 150)),  # at 1/4, then scaled
    ((80, 60), (80, 60)),  # at 1/8
    ((400, 120), (160, 120)),  # the height decides
])
def test_a_jpeg_shown_small_is_decoded_small(fit: tuple[int, int],
                                              preview: tuple[int, int]) -> None:
    rgb = picture(480, 640)
    shown = frame(compressed(encoded(rgb, ".jpg", cv2.IMWRITE_JPEG_QUALITY, 95), "jpeg"),
                  fit=fit)
    assert shown.deferred and (shown.width, shown.height) == (640, 480)
    assert shown.preview is not None
    assert (shown.preview.shape[1], shown.preview.shape[0]) == preview
    assert shown.preview_scale == pytest.approx(preview[0] / 640)
    # the preview is the picture, smaller: each of its pixels the average of what it covers
    expected = cv2.resize(rgb, preview, interpolation=cv2.INTER_AREA)
    assert np.abs(shown.preview[..., 2::-1].astype(int) - expected).mean() < 3.0
    # the full picture is there when asked, at full size
    assert shown.pixels().shape == (480, 640, 3)
    assert np.abs(shown.pixels().astype(int) - rgb).mean() < 2.0
    assert shown.drawn().shape == (480, 640, 4)


@pytest.mark.parametrize("fit", [None, (640, 480), (330, 250), (1000, 900)])
def test_a_jpeg_shown_at_more_than_half_its_size_is_decoded_in_full(fit) -> None:
    rgb = picture(480, 640)
    shown = frame(compressed(encoded(rgb, ".jpg", cv2.IMWRITE_JPEG_QUALITY, 95), "jpeg"),
                  fit=fit)
    assert not shown.deferred and shown.image.shape == (480, 640, 3)


def test_an_odd_sized_jpeg_decoded_small_keeps_its_size() -> None:
    rgb = picture(481, 641)
    shown = frame(compressed(encoded(rgb, ".jpg"), "jpeg"), fit=(300, 200))
    assert (shown.width, shown.height) == (641, 481)
    assert shown.preview is not None and shown.preview.shape[:2] <= (241, 321)
    assert shown.pixels().shape == (481, 641, 3)


def test_a_corrupt_jpeg_shown_small_is_refused_with_the_reason() -> None:
    with pytest.raises(ConversionError, match=r"^corrupt jpeg"):
        frame(compressed(b"\xff\xd8\xff\xe0" + bytes(range(256)) * 4, "jpeg"), fit=(10, 10))
