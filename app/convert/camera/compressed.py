"""Compressed still images (jpeg, png, webp) -> display pixels.

JPEG goes through simplejpeg (libjpeg-turbo, the fastest self-contained decoder here)
straight to B, G, R, X bytes — Qt's own RGB32, which it draws and scales without converting,
for no more than RGB costs; ``image`` is an RGB view of them. The fast DCT and chroma
upsampling save about a tenth of the time for a loss no one sees on a live view. Damage
libjpeg can recover from (a truncated scan, the stray bytes many USB cameras leave before a
marker) shows what decoded, as a browser would; anything else is refused as corrupt.

A JPEG shown smaller than half its size is decoded at 1/2, 1/4 or 1/8 of it by libjpeg-turbo
itself (its IDCT makes the smaller picture directly; those three scales have SIMD code, the
other eighths do not and are slower than a full decode): for 1080p into a 960x540 view this
takes 0.75x the time of a full decode and leaves a quarter of the pixels to scale.

PNG and WebP go through ``cv2.imdecode``: grey, RGB and RGBA come out as such; 16-bit
colour is shown at 8 bits; 16-bit grey is kept as ``values`` and grey-scaled by range.

Every size is checked against :data:`app.convert.camera.raw.MAX_BYTES` from the file's header
before the decoder allocates the image.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

import cv2
import numpy as np
import simplejpeg  # type: ignore[import-untyped]

from app.convert.camera.colormap import Range
from app.convert.camera.raw import Pixels, check_size, count_pixels
from app.convert.registry import ConversionError

JPEG_FAST = True  # fastdct + fastupsample
JPEG_SCALES = (1 / 8, 1 / 4, 1 / 2)  # the reduced sizes libjpeg-turbo decodes with SIMD


def image_format(name: str, data: np.ndarray | bytes) -> str:
    """``jpeg``, ``png`` or ``webp``: what the bytes start with when that is one of them
    (a robot that names the wrong format still shows), else the format string
    (case-insensitive; ``jpg``, ``image/jpeg`` and ROS's ``bgr8; jpeg compressed bgr8``)."""
    sniffed = _sniff(bytes(data[:12]))
    if sniffed is not None:
        return sniffed
    text = name.strip().lower()
    for word in ("jpeg", "jpg", "png", "webp"):
        if word in text:
            return "jpeg" if word == "jpg" else word
    raise ConversionError(f"unknown image format {name!r} (known: jpeg, png, webp)")


def decode_image(data: np.ndarray | bytes, format_name: str,
                 value_range: Range | None = None,
                 fit: tuple[int, int] | None = None) -> Pixels:
    """Bytes of a jpeg, png or webp file (named as :func:`image_format` reads) -> display
    pixels; a JPEG shown within ``fit`` may come at a reduced size (``Pixels.scale``)."""
    if len(data) == 0:
        raise ConversionError(f"empty {format_name or 'image'}")
    kind = image_format(format_name, data)
    if kind == "jpeg":
        reduced = _reduced_jpeg(data, fit) if fit is not None else None
        if reduced is not None:
            return reduced
        decoded = decode_jpeg(data)
        return _jpeg_pixels(decoded, (decoded.shape[1], decoded.shape[0]))
    size = _png_size(data) if kind == "png" else _webp_size(data)
    if size is None:
        raise ConversionError(f"corrupt {kind}: no image header")
    check_size(*size, 8 if kind == "png" else 4, kind)  # 16-bit RGBA / RGBA
    return _decode_cv2(data, kind, value_range)


def _reduced_jpeg(data: np.ndarray | bytes, fit: tuple[int, int]) -> Pixels | None:
    """The JPEG decoded at the smallest of :data:`JPEG_SCALES` that is no smaller than the
    picture fitted into ``fit`` (width, height in pixels), with the way to its full size;
    None when none is."""
    width, height, _ = _jpeg_header(data)
    shown = min(fit[0] / width, fit[1] / height)
    for scale in JPEG_SCALES:
        if scale >= shown:
            return _jpeg_pixels(decode_jpeg(data, scale), (width, height),
                                lambda: decode_image(data, "jpeg"))
    return None


def _jpeg_pixels(decoded: np.ndarray, size: tuple[int, int],
                 full: Callable[[], Pixels] | None = None) -> Pixels:
    scale = decoded.shape[1] / size[0]
    if decoded.ndim == 2:
        return Pixels(decoded, scale=scale, full=full, full_size=size)
    return Pixels(decoded[..., 2::-1], display=decoded, scale=scale, full=full,
                  full_size=size)


def decode_jpeg(data: np.ndarray | bytes, scale: float = 1.0) -> np.ndarray:
    """A JPEG -> (H, W, 4) B, G, R, X bytes, or (H, W) for a greyscale JPEG; at ``scale``
    (one of :data:`JPEG_SCALES`) of its size, rounded up, when given."""
    width, height, grey = _jpeg_header(data)
    try:
        image = simplejpeg.decode_jpeg(
            data, "GRAY" if grey else "BGRX", fastdct=JPEG_FAST, fastupsample=JPEG_FAST,
            min_width=math.ceil(width * scale), min_height=math.ceil(height * scale),
            min_factor=1 / scale, strict=False)
    except (ValueError, RuntimeError) as exc:
        raise _corrupt(exc) from None
    return image.reshape(image.shape[:2]) if grey else image


def _jpeg_header(data: np.ndarray | bytes) -> tuple[int, int, bool]:
    """(width, height, grey) of a JPEG whose size and colours can be shown."""
    try:
        height, width, colorspace, _ = simplejpeg.decode_jpeg_header(data)
    except (ValueError, RuntimeError) as exc:
        raise _corrupt(exc) from None
    check_size(width, height, 4, "jpeg")
    if colorspace in ("CMYK", "YCCK"):  # print files; libjpeg-turbo gives no RGB of them
        raise ConversionError(f"jpeg in {colorspace} colours is not shown")
    return width, height, colorspace == "Gray"


def _corrupt(exc: Exception) -> ConversionError:
    detail = str(exc).split("(): ", 1)[-1]  # libjpeg-turbo names its function first
    return ConversionError(f"corrupt jpeg: {detail}")


def _decode_cv2(data: np.ndarray | bytes, kind: str, value_range: Range | None) -> Pixels:
    """``cv2.imdecode`` of a file whose size was checked."""
    buffer = np.frombuffer(data, np.uint8)
    try:
        image = cv2.imdecode(buffer, cv2.IMREAD_UNCHANGED)
    except cv2.error as exc:
        detail = str(exc).strip().splitlines()[-1]  # OpenCV's message ends with the reason
        raise ConversionError(f"corrupt {kind}: {detail}") from None
    if image is None:
        raise ConversionError(f"corrupt {kind}: cannot decode {len(buffer)} bytes")
    if image.ndim == 3 and image.shape[2] == 1:
        image = image.reshape(image.shape[:2])
    if image.ndim == 2:
        if image.dtype == np.uint8:
            return Pixels(image)
        return count_pixels(image, value_range)
    if image.dtype != np.uint8:  # 16-bit colour: the top 8 bits
        image = np.right_shift(image, 8).astype(np.uint8)
    code = cv2.COLOR_BGRA2RGBA if image.shape[2] == 4 else cv2.COLOR_BGR2RGB
    return Pixels(cv2.cvtColor(image, code))


def _sniff(head: bytes) -> str | None:
    if head.startswith(b"\xff\xd8"):
        return "jpeg"
    if head.startswith(b"\x89PNG"):
        return "png"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    return None


def _png_size(data: np.ndarray | bytes) -> tuple[int, int] | None:
    """(width, height) from the IHDR chunk, which the PNG standard puts first."""
    head = bytes(data[:24])
    if len(head) < 24 or not head.startswith(b"\x89PNG\r\n\x1a\n") or head[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def _webp_size(data: np.ndarray | bytes) -> tuple[int, int] | None:
    """(width, height) from the first chunk: VP8X (extended), VP8L (lossless), VP8 (lossy)."""
    head = bytes(data[:30])
    if len(head) < 30 or head[:4] != b"RIFF" or head[8:12] != b"WEBP":
        return None
    chunk = head[12:16]
    if chunk == b"VP8X":
        return (1 + int.from_bytes(head[24:27], "little"),
                1 + int.from_bytes(head[27:30], "little"))
    if chunk == b"VP8L" and head[20] == 0x2F:
        bits = int.from_bytes(head[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8 " and head[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", head[26:30])
        return width & 0x3FFF, height & 0x3FFF
    return None
