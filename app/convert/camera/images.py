"""Still images of every family -> :class:`CameraFrame`.

- ``foxglove.CompressedImage`` (jpeg, png, webp) and ``foxglove.RawImage`` (app.convert.camera.raw):
  stamp from ``timestamp``, frame from ``frameId``.
- ``isaac.ImageProto``, ``isaac.ColorCameraProto``, ``isaac.DepthCameraProto``: pixels in
  the attachment buffer ``dataBufferIndex`` (row-major rows x cols x channels). No stamp
  (0: the sample's time) and no frame. A plain ``ImageProto`` with 1, 3 or 4 channels is grey,
  RGB, RGBA; a single channel of float is depth in metres, of uint16 depth in millimetres
  (``ImageProto`` replaces the deprecated depth camera type). ``ColorCameraProto`` says its
  colour space: grayscale, rgb, bgr, rgba, yuv (3 channels: full-resolution Y, U, V per
  pixel; 2 channels: YUYV 4:2:2). ``DepthCameraProto`` is depth in metres (float, or uint16
  millimetres); its ``minDepth``..``maxDepth`` is the colour range unless one is fixed.
  Colour channels of float are 0..1, of uint16 0..65535.
- ``bow.ImageSamples``: one camera of the message, by ``source`` ("" = the first). ``jpg``
  is a JPEG; ``raw`` is ``dataShape`` = [width, height(, channels)] and its layout follows
  from the data's length: rgb and stereo images are mono8 (1 byte a pixel), I420 (1.5: YUV
  4:2:0 planar), YUYV (2: the seed calls RGB images "YUV422"; YUYV is what USB cameras
  send), rgb8 (3) or rgba8 (4); depth is 16UC1 millimetres (2) or 32FC1 metres (4);
  infrared is mono8 (1) or mono16 (2). Video (h264, vp8, vp9, h265) is decoded as a stream,
  not here. No stamp, no frame; ``min``/``max`` are not used (the seed does not say what
  they are).

``depth_range`` fixes the colour map's range (in the frame's ``value_unit``: metres or
millimetres for depth, counts for 16-bit grey); None picks it from the image.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from app.codec.data_view import data_array
from app.codec.decode import DecodedMessage
from app.codec.errors import DecodeError
from app.codec.fields import enum_value
from app.convert.camera.colormap import Range
from app.convert.camera.compressed import decode_image
from app.convert.camera.display import preview_of, qt_image
from app.convert.camera.model import CameraFrame, FullPicture
from app.convert.camera.raw import Pixels, check_size, depth_pixels, raw_pixels
from app.convert.capnp_data import converting, stamp_of, to_rgb8
from app.convert.isaac import buffer_array, element_dtype
from app.convert.registry import ConversionError, converter

VIDEO = ("h264", "vp8", "vp9", "h265")


def image_frame(decoded: DecodedMessage, source: str = "",
                depth_range: Range | None = None,
                fit: tuple[int, int] | None = None) -> CameraFrame:
    """The display frame of one image message (of the camera ``source`` when the message
    carries several), with a preview scaled to ``fit`` (see app.convert.camera.display)."""
    started = time.thread_time()
    reader = _READERS.get(decoded.type_name)
    if reader is None:
        raise ConversionError(f"{decoded.type_name} is not a still image")
    with converting(decoded.type_name):
        try:
            pixels, encoding, stamp, frame_id, source = reader(decoded, source, depth_range,
                                                               fit)
        except DecodeError as exc:  # a missing or short attachment buffer: says which
            raise ConversionError(str(exc)) from None
        display = pixels.display if pixels.display is not None else qt_image(pixels.image)
        if pixels.full is not None:
            return _reduced_frame(pixels, display, fit, (encoding, stamp, frame_id, source),
                                  started)
        preview, preview_scale = preview_of(display, fit)
    return CameraFrame(pixels.image, stamp, frame_id, encoding, source, pixels.values,
                       pixels.value_unit, pixels.value_range, time.thread_time() - started,
                       display, preview, preview_scale)


def _reduced_frame(pixels: Pixels, display: np.ndarray, fit: Fit,
                   about: tuple[str, float, str, str], started: float) -> CameraFrame:
    """A frame of a picture decoded at a reduced size: that is its preview (scaled on to
    ``fit``); the full picture is decoded only if something asks for it."""
    full = pixels.full
    assert full is not None

    def decode_full() -> tuple[np.ndarray, np.ndarray | None]:
        whole = full()
        return whole.image, whole.display

    preview, scale = preview_of(display, fit)
    if preview is None:
        preview, scale = display, 1.0
    encoding, stamp, frame_id, source = about
    return CameraFrame(FullPicture(*pixels.full_size, decode_full), stamp, frame_id,
                       encoding, source, decode_s=time.thread_time() - started,
                       preview=preview, preview_scale=scale * pixels.scale)


def camera_sources(decoded: DecodedMessage) -> list[tuple[str, str, str]]:
    """(source, compression, imageType) of each camera of a ``bow.ImageSamples``; [] for
    other types (one camera each)."""
    if decoded.type_name != "bow.ImageSamples":
        return []
    with converting(decoded.type_name):
        return [(sample.source, str(enum_value(sample.compression)),
                 str(enum_value(sample.imageType))) for sample in decoded.root.samples]


Read = tuple[Pixels, str, float, str, str]  # pixels, encoding, stamp, frame id, source
Fit = tuple[int, int] | None  # the view's size: a JPEG shown smaller may decode smaller


def _compressed(decoded: DecodedMessage, source: str, depth_range: Range | None,
                fit: Fit) -> Read:
    root = decoded.root
    pixels = decode_image(data_array(root, "data"), root.format, depth_range, fit)
    return pixels, root.format or "image", _stamp(root), root.frameId, ""


def _raw(decoded: DecodedMessage, source: str, depth_range: Range | None,
         fit: Fit) -> Read:
    root = decoded.root
    pixels = raw_pixels(data_array(root, "data"), root.width, root.height, root.encoding,
                        root.step, depth_range)
    return pixels, root.encoding, _stamp(root), root.frameId, ""


def _stamp(root: Any) -> float:
    return stamp_of(root.timestamp) if root._has("timestamp") else 0.0


# -- isaac ------------------------------------------------------------------------------------
def _isaac_image(decoded: DecodedMessage, source: str, depth_range: Range | None,
                 fit: Fit) -> Read:
    array, encoding = _isaac_array(decoded, decoded.root)
    if array.shape[2] == 1 and _is_depth(array):
        return _isaac_depth(array, depth_range, None), encoding, 0.0, "", ""
    channels = array.shape[2]
    if channels not in (1, 3, 4):
        raise ConversionError(f"isaac image with {channels} channels is not displayable")
    return Pixels(_colour8(array)), encoding, 0.0, "", ""


def _color_camera(decoded: DecodedMessage, source: str, depth_range: Range | None,
                  fit: Fit) -> Read:
    root = decoded.root
    space = str(enum_value(root.colorSpace))
    array, encoding = _isaac_array(decoded, root.image)
    channels = array.shape[2]
    needs = {"grayscale": (1,), "rgb": (3,), "bgr": (3,), "rgba": (4,), "yuv": (2, 3)}.get(space)
    if needs is None:
        raise ConversionError(f"unknown colour space {space}")
    if channels not in needs:
        raise ConversionError(f"colour space {space} with {channels} channels")
    pixels = _colour8(array)
    if space == "bgr":
        pixels = cv2.cvtColor(pixels, cv2.COLOR_BGR2RGB)
    elif space == "yuv":
        code = cv2.COLOR_YUV2RGB if channels == 3 else cv2.COLOR_YUV2RGB_YUY2
        if channels == 2 and pixels.shape[1] % 2:
            raise ConversionError(f"yuv 4:2:2 image needs an even width, got {pixels.shape[1]}")
        pixels = cv2.cvtColor(pixels, code)
    return Pixels(np.ascontiguousarray(pixels)), f"{space} {encoding}", 0.0, "", ""


def _depth_camera(decoded: DecodedMessage, source: str, depth_range: Range | None,
                  fit: Fit) -> Read:
    root = decoded.root
    array, encoding = _isaac_array(decoded, root.depthImage)
    if array.shape[2] != 1 or not _is_depth(array):
        raise ConversionError(f"depth image of {encoding}: need one float (or uint16) channel")
    lo, hi = float(root.minDepth), float(root.maxDepth)
    declared = (lo, hi) if np.isfinite([lo, hi]).all() and hi > lo else None
    return _isaac_depth(array, depth_range, declared), f"depth {encoding}", 0.0, "", ""


def _isaac_array(decoded: DecodedMessage, image: Any) -> tuple[np.ndarray, str]:
    """(rows, cols, channels) view of an ``ImageProto``'s buffer, and its encoding name."""
    dtype = element_dtype(image.elementType)
    rows, cols, channels = image.rows, image.cols, image.channels
    check_size(cols, rows, max(4, channels * dtype.itemsize), "isaac image")
    if channels == 0:
        raise ConversionError(f"isaac image {cols}x{rows} with 0 channels")
    array = buffer_array(decoded, image.dataBufferIndex, dtype, (rows, cols, channels))
    return array, f"isaac {enum_value(image.elementType)}x{channels}"


def _is_depth(array: np.ndarray) -> bool:
    return array.dtype.kind == "f" or array.dtype == np.uint16


def _isaac_depth(array: np.ndarray, depth_range: Range | None,
                 declared_m: Range | None) -> Pixels:
    values = array[:, :, 0]
    unit = "m" if values.dtype.kind == "f" else "mm"
    if depth_range is None and declared_m is not None:
        scale = 1.0 if unit == "m" else 1000.0
        depth_range = (declared_m[0] * scale, declared_m[1] * scale)
    return depth_pixels(values, unit, depth_range)


def _colour8(array: np.ndarray) -> np.ndarray:
    """Colour channels as uint8 (floats 0..1, 16-bit 0..65535), (H, W) for one channel."""
    if array.dtype == np.uint16:
        array = (array >> 8).astype(np.uint8)
    elif array.dtype != np.uint8:
        if array.dtype.kind != "f":
            raise ConversionError(f"isaac colour image of {array.dtype.name}: need uint8, "
                                  "uint16 or float")
        array = to_rgb8(array)
    return array[:, :, 0] if array.shape[2] == 1 else array


# -- bow --------------------------------------------------------------------------------------
def _bow_samples(decoded: DecodedMessage, source: str, depth_range: Range | None,
                 fit: Fit) -> Read:
    samples = decoded.root.samples
    if len(samples) == 0:
        raise ConversionError("no image in this message")
    sample = samples[0] if not source else next(
        (s for s in samples if s.source == source), None)
    if sample is None:
        names = ", ".join(repr(s.source) for s in samples)
        raise ConversionError(f"no camera {source!r} here (sources: {names})")
    compression = str(enum_value(sample.compression))
    if compression in VIDEO:
        raise ConversionError(f"{compression} is video: decoded as a stream")
    data = data_array(sample, "data")
    if compression == "jpg":
        return decode_image(data, "jpeg", depth_range, fit), "jpg", 0.0, "", sample.source
    if compression != "raw":
        raise ConversionError(f"unknown compression {compression}")
    image_type = str(enum_value(sample.imageType))
    pixels, layout = _bow_raw(data, list(sample.dataShape), image_type, depth_range)
    return pixels, f"raw {layout}", 0.0, "", sample.source


# bytes a pixel -> layout, by image type
_BOW_COLOUR = {1.0: "mono8", 1.5: "i420", 2.0: "yuyv", 3.0: "rgb8", 4.0: "rgba8"}
_BOW_LAYOUTS = {
    "rgb": _BOW_COLOUR,
    "stereo": _BOW_COLOUR,
    "depth": {2.0: "16UC1", 4.0: "32FC1"},
    "infrared": {1.0: "mono8", 2.0: "mono16"},
}


def _bow_raw(data: np.ndarray, shape: list[int], image_type: str,
             depth_range: Range | None) -> tuple[Pixels, str]:
    if len(shape) < 2:
        raise ConversionError(f"raw image with dataShape {shape}: need [width, height, ...]")
    width, height = shape[0], shape[1]
    label = f"raw {image_type} image"
    check_size(width, height, 4, label)
    layouts = _BOW_LAYOUTS.get(image_type)
    if layouts is None:
        raise ConversionError(f"unknown image type {image_type}")
    layout = layouts.get(len(data) / (width * height))
    if layout is None:
        sizes = [f"{k:g}" for k in layouts]
        raise ConversionError(f"{label} {width}x{height}: {len(data)} bytes is not "
                              f"{', '.join(sizes[:-1])} or {sizes[-1]} bytes a pixel")
    if layout == "i420":
        if width % 2 or height % 2:
            raise ConversionError(f"{label} {width}x{height}: I420 needs even sides")
        planes = data.reshape(height * 3 // 2, width)
        return Pixels(cv2.cvtColor(planes, cv2.COLOR_YUV2RGB_I420)), layout
    return raw_pixels(data, width, height, layout, 0, depth_range, label), layout


_READERS = {
    "foxglove.CompressedImage": _compressed,
    "foxglove.RawImage": _raw,
    "isaac.ImageProto": _isaac_image,
    "isaac.ColorCameraProto": _color_camera,
    "isaac.DepthCameraProto": _depth_camera,
    "bow.ImageSamples": _bow_samples,
}


@converter("camera.image")  # by name only: the camera panel asks for it, the 3D scene never
def camera_image(decoded: DecodedMessage, source: str = "",
                 depth_range: Sequence[float] | None = None,
                 fit: Sequence[int] | None = None) -> CameraFrame:
    """:func:`image_frame` with the options of a ``Converted`` interest: ``source`` (the
    camera of a bow message), ``depth_range`` (a fixed colour range, in the frame's value
    unit) and ``fit`` (the view's width and height in screen pixels, in the picture's
    orientation)."""
    fixed = None
    if depth_range is not None:
        if len(depth_range) != 2:
            raise ConversionError(f"depth_range {depth_range!r}: need (low, high)")
        fixed = (float(depth_range[0]), float(depth_range[1]))
    view = None
    if fit is not None:
        if len(fit) != 2 or min(fit) < 1:
            raise ConversionError(f"fit {fit!r}: need (width, height) in pixels")
        view = (int(fit[0]), int(fit[1]))
    return image_frame(decoded, str(source), fixed, view)
