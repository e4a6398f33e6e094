"""Raw pixel layouts -> display pixels (foxglove ``RawImage`` encodings, reused for bow's raw
samples).

Encodings (names as foxglove lists them, matched case-insensitively):

- ``rgb8``, ``rgba8``, ``mono8`` / ``8UC1``: shown as they are, a view of the message when
  rows are tightly packed (no copy).
- ``bgr8`` / ``8UC3`` (OpenCV's channel order, as foxglove reads ``8UC3``), ``bgra8``.
- ``bayer_rggb8``, ``bayer_bggr8``, ``bayer_gbrg8``, ``bayer_grbg8``: the pattern names its
  top-left 2x2 block row by row, as ROS does (OpenCV's ``COLOR_Bayer<RGGB>2RGB`` names agree;
  its older two-letter codes are shifted by one pixel and would swap red and blue).
- ``uyvy`` / ``yuv422`` (ROS's yuv422 is UYVY) and ``yuyv`` / ``yuv422_yuy2``: 4:2:2, two
  bytes a pixel, even widths only.
- ``16UC1``: depth in millimetres (ROS convention), 0 = no reading; colour-mapped.
- ``32FC1``: depth in metres, 0 / NaN / inf = no reading; colour-mapped.
- ``mono16``: 16-bit grey counts, grey-scaled from the range's low (black) to high (white).

Multi-byte pixels are little-endian (``RawImage`` has no endianness field). ``step`` is the
row stride in bytes (0 = tightly packed); the data must hold ``height * step`` bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from app.convert.camera.colormap import Range, colorize, grey_scaled
from app.convert.registry import ConversionError

MAX_SIDE = 16384
MAX_BYTES = 256 << 20  # of a decoded image


@dataclass(frozen=True)
class Pixels:
    """What a decoder makes of one image: the display image and, for renderings of other
    numbers, the numbers (see app.convert.camera.model.CameraFrame)."""

    image: np.ndarray
    values: np.ndarray | None = None
    value_unit: str = ""
    value_range: Range | None = None
    display: np.ndarray | None = None  # already in Qt's order (see app.convert.camera.display)
    # A picture decoded at a reduced size: image pixels per picture pixel, the picture's
    # (width, height) and how to decode it at full size.
    scale: float = 1.0
    full: Callable[[], Pixels] | None = None
    full_size: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class Layout:
    channels: int  # numbers per pixel (2 for the 4:2:2 byte pairs)
    dtype: np.dtype
    show: Callable[[np.ndarray, Range | None], Pixels]  # (H, W[, C]) array -> display
    even_width: bool = False  # 4:2:2: two pixels share their colour


def check_size(width: int, height: int, bytes_per_pixel: int, label: str,
               encoding: str = "") -> None:
    """Refuses images with no pixels or too many to allocate their display."""
    what = f"{label} {width}x{height}" + (f" {encoding}" if encoding else "")
    if width <= 0 or height <= 0:
        raise ConversionError(f"{what} has no pixels")
    if width > MAX_SIDE or height > MAX_SIDE or width * height * bytes_per_pixel > MAX_BYTES:
        raise ConversionError(f"{what} is too large "
                              f"(limit {MAX_SIDE} a side, {MAX_BYTES >> 20} MiB)")


def raw_pixels(data: np.ndarray, width: int, height: int, encoding: str, step: int = 0,
               value_range: Range | None = None, label: str = "RawImage") -> Pixels:
    """``data`` (1-D uint8, e.g. a view of the message) laid out as ``encoding`` -> display."""
    layout = LAYOUTS.get(encoding.lower())
    if layout is None:
        raise ConversionError(f"unknown encoding {encoding!r}")
    pixel_bytes = layout.channels * layout.dtype.itemsize
    check_size(width, height, 4, label, encoding)
    if layout.even_width and width % 2:
        raise ConversionError(f"{label} {width}x{height} {encoding} needs an even width")
    row_bytes = width * pixel_bytes
    step = step or row_bytes
    if step < row_bytes:
        raise ConversionError(f"{label} {width}x{height} {encoding}: step {step} is shorter "
                              f"than a row ({row_bytes} bytes)")
    needed = height * step
    if len(data) < needed:
        raise ConversionError(f"{label} {width}x{height} {encoding} needs {needed} bytes, "
                              f"got {len(data)}")
    rows = data[:needed].reshape(height, step)[:, :row_bytes]
    if layout.dtype.itemsize > 1:
        if not (rows.flags.aligned and step % layout.dtype.itemsize == 0):
            rows = rows.copy()  # OpenCV and fast numpy want aligned numbers
        rows = rows.view(layout.dtype)
    shape = (height, width) if layout.channels == 1 else (height, width, layout.channels)
    pixels = rows.reshape(shape)
    return layout.show(pixels, value_range)


def depth_pixels(values: np.ndarray, unit: str, value_range: Range | None) -> Pixels:
    """Depth (0 and non-finite = no reading) colour-mapped; ``values`` kept for readout."""
    image, used = colorize(values, value_range, zero_invalid=True)
    return Pixels(image, values, unit, used)


def count_pixels(values: np.ndarray, value_range: Range | None) -> Pixels:
    """Grey counts (16-bit mono, infrared) grey-scaled by range; ``values`` kept."""
    image, used = grey_scaled(values, value_range)
    return Pixels(image, values, "", used)


def _as_is(pixels: np.ndarray, _range: Range | None) -> Pixels:
    return Pixels(np.ascontiguousarray(pixels))


def _converted(code: int) -> Callable[[np.ndarray, Range | None], Pixels]:
    def show(pixels: np.ndarray, _range: Range | None) -> Pixels:
        return Pixels(cv2.cvtColor(pixels, code))

    return show


U8, U16, F32 = np.dtype("u1"), np.dtype("<u2"), np.dtype("<f4")
_RGB, _GREY = Layout(3, U8, _as_is), Layout(1, U8, _as_is)
_BGR = Layout(3, U8, _converted(cv2.COLOR_BGR2RGB))
_UYVY = Layout(2, U8, _converted(cv2.COLOR_YUV2RGB_UYVY), even_width=True)
_YUYV = Layout(2, U8, _converted(cv2.COLOR_YUV2RGB_YUY2), even_width=True)
LAYOUTS: dict[str, Layout] = {
    "rgb8": _RGB,
    "rgba8": Layout(4, U8, _as_is),
    "bgr8": _BGR,
    "8uc3": _BGR,
    "bgra8": Layout(4, U8, _converted(cv2.COLOR_BGRA2RGBA)),
    "mono8": _GREY,
    "8uc1": _GREY,
    "bayer_rggb8": Layout(1, U8, _converted(cv2.COLOR_BayerRGGB2RGB)),
    "bayer_bggr8": Layout(1, U8, _converted(cv2.COLOR_BayerBGGR2RGB)),
    "bayer_gbrg8": Layout(1, U8, _converted(cv2.COLOR_BayerGBRG2RGB)),
    "bayer_grbg8": Layout(1, U8, _converted(cv2.COLOR_BayerGRBG2RGB)),
    "uyvy": _UYVY,
    "yuv422": _UYVY,
    "yuyv": _YUYV,
    "yuv422_yuy2": _YUYV,
    "16uc1": Layout(1, U16, lambda values, r: depth_pixels(values, "mm", r)),
    "32fc1": Layout(1, F32, lambda values, r: depth_pixels(values, "m", r)),
    "mono16": Layout(1, U16, count_pixels),
}
