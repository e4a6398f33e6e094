"""Isaac tensors, point clouds and images <-> numpy arrays.

Isaac keeps bulk data out of the message: a ``TensorProto`` or ``ImageProto`` names a buffer by
``dataBufferIndex``, and the buffers travel in the zenoh attachment as ``transport.Buffers``
(PROTOCOL.md, "Isaac buffers"). Decoding views those bytes without copying; encoding writes a
``transport.Buffers`` message in one pass so a 1M-point cloud costs one copy of its bytes.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

from app.codec.decode import DecodedMessage
from app.codec.errors import MalformedMessage, MissingAttachment
from app.convert.models import PointCloud
from app.convert.registry import ConversionError, converter

# isaac.ElementType enumerant number -> little-endian numpy dtype.
ELEMENT_DTYPES: dict[int, np.dtype] = {
    0: np.dtype("<u1"),  # uint8
    1: np.dtype("<u2"),  # uint16
    2: np.dtype("<f4"),  # float32
    3: np.dtype("<f8"),  # float64
    4: np.dtype("<f2"),  # float16
    5: np.dtype("<u4"),  # uint32
    6: np.dtype("<u8"),  # uint64
    7: np.dtype("<i1"),  # int8
    8: np.dtype("<i2"),  # int16
    9: np.dtype("<i4"),  # int32
    10: np.dtype("<i8"),  # int64
}
ELEMENT_NAMES: dict[np.dtype, str] = {
    np.dtype("<u1"): "uint8",
    np.dtype("<u2"): "uint16",
    np.dtype("<f4"): "float32",
    np.dtype("<f8"): "float64",
    np.dtype("<f2"): "float16",
    np.dtype("<u4"): "uint32",
    np.dtype("<u8"): "uint64",
    np.dtype("<i1"): "int8",
    np.dtype("<i2"): "int16",
    np.dtype("<i4"): "int32",
    np.dtype("<i8"): "int64",
}


# -- decoding -------------------------------------------------------------------------------
def element_dtype(element_type: Any) -> np.dtype:
    """The numpy dtype of an isaac ``ElementType`` (reader value or enumerant number)."""
    number = element_type if isinstance(element_type, int) else element_type.raw
    dtype = ELEMENT_DTYPES.get(number)
    if dtype is None:
        name = "unknown" if number == 11 else f"number {number}"
        raise MalformedMessage(f"unsupported isaac element type {name}")
    return dtype


def buffer_array(decoded: DecodedMessage, index: int, dtype: np.dtype,
                 shape: tuple[int, ...]) -> np.ndarray:
    """A read-only view of attachment buffer ``index`` as ``shape`` elements of ``dtype``."""
    if any(size < 0 for size in shape):
        raise MalformedMessage(f"{decoded.type_name}: negative size in {list(shape)}")
    data = decoded.buffer(index)
    expected = math.prod(shape) * dtype.itemsize
    if len(data) != expected:
        raise MalformedMessage(
            f"{decoded.type_name}: buffer {index} has {len(data)} bytes, "
            f"{list(shape)} x {dtype.name} needs {expected}"
        )
    return np.frombuffer(data, dtype=dtype).reshape(shape)


def tensor_to_numpy(decoded: DecodedMessage, tensor: Any) -> np.ndarray:
    """A ``TensorProto`` reader of ``decoded`` -> array shaped by its ``sizes``."""
    return buffer_array(
        decoded,
        tensor.dataBufferIndex,
        element_dtype(tensor.elementType),
        tuple(tensor.sizes),
    )


def point_cloud_to_numpy(decoded: DecodedMessage) -> np.ndarray:
    """The positions of a ``PointCloudProto`` as an (N, 3) float32 array (N may be 0)."""
    cloud = _root_of(decoded, "isaac.PointCloudProto")
    if not cloud._has("positions") or len(cloud.positions.sizes) == 0:
        return np.empty((0, 3), np.float32)
    positions = tensor_to_numpy(decoded, cloud.positions)
    if positions.ndim != 2 or positions.shape[1] < 3:
        raise MalformedMessage(f"point positions shaped {list(positions.shape)}, need [N, 3]")
    return positions[:, :3].astype(np.float32, copy=False)


def point_intensities_to_numpy(decoded: DecodedMessage) -> np.ndarray | None:
    """The per-point intensities of a ``PointCloudProto`` as (N,) float32, or None."""
    cloud = _root_of(decoded, "isaac.PointCloudProto")
    if not cloud._has("intensities") or len(cloud.intensities.sizes) == 0:
        return None
    values = tensor_to_numpy(decoded, cloud.intensities)
    return values.reshape(values.shape[0] if values.ndim else 0).astype(np.float32, copy=False)


def image_to_numpy(decoded: DecodedMessage) -> np.ndarray:
    """An ``ImageProto`` as a (rows, cols, channels) array of its element type
    (uint8 for colour camera images)."""
    image = _root_of(decoded, "isaac.ImageProto")
    shape = (image.rows, image.cols, image.channels)
    return buffer_array(decoded, image.dataBufferIndex, element_dtype(image.elementType), shape)


def _root_of(decoded: DecodedMessage, type_name: str) -> Any:
    if decoded.type_name != type_name:
        raise ValueError(f"expected {type_name}, got {decoded.type_name}")
    return decoded.root


# -- encoding -------------------------------------------------------------------------------
def element_type_name(dtype: np.dtype) -> str:
    """The isaac ``ElementType`` enumerant of a numpy dtype."""
    name = ELEMENT_NAMES.get(np.dtype(dtype).newbyteorder("<"))
    if name is None:
        raise ValueError(f"no isaac element type for {dtype}")
    return name


def fill_tensor(tensor: Any, array: np.ndarray, buffer_index: int) -> None:
    """Sets a ``TensorProto`` builder to describe ``array`` stored in buffer ``buffer_index``."""
    tensor.elementType = element_type_name(array.dtype)
    tensor.sizes = [int(size) for size in array.shape]
    tensor.dataBufferIndex = buffer_index


def buffers_layout(sizes: Sequence[int]) -> tuple[int, list[int]]:
    """Total byte length of a ``transport.Buffers`` message holding buffers of ``sizes`` bytes,
    and the byte offset where each buffer's data starts in it."""
    count = len(sizes)
    word = 8 + 16 + 8 * count  # segment table, root pointer + list pointer, element pointers
    offsets = []
    for size in sizes:
        offsets.append(word)
        word += -(-size // 8) * 8
    return word, offsets


def encode_buffers(buffers: Sequence[bytes | bytearray | memoryview | np.ndarray]) -> bytearray:
    """One ``transport.Buffers`` Cap'n Proto message (single segment) holding ``buffers``.

    Written directly rather than through pycapnp so each buffer is copied exactly once.
    """
    views = [_byte_view(buffer) for buffer in buffers]
    total, offsets = buffers_layout([len(view) for view in views])
    out = bytearray(total)
    count = len(views)
    # Segment table: one segment of (total - 8) / 8 words.
    struct.pack_into("<II", out, 0, 0, (total - 8) // 8)
    # Root: struct pointer, offset 0, no data words, one pointer.
    struct.pack_into("<Q", out, 8, 1 << 48)
    # Buffers.buffers: list pointer, offset 0, element size 6 (pointer), count elements.
    struct.pack_into("<Q", out, 16, 1 | (6 << 32) | (count << 35))
    for i, (view, offset) in enumerate(zip(views, offsets, strict=True)):
        pointer_at = 24 + 8 * i
        relative = (offset - (pointer_at + 8)) // 8
        # Data element: list pointer, element size 2 (byte), len(view) elements.
        struct.pack_into("<Q", out, pointer_at, 1 | (relative << 2) | (2 << 32) | (len(view) << 35))
        out[offset : offset + len(view)] = view
    return out


def _byte_view(buffer: bytes | bytearray | memoryview | np.ndarray) -> memoryview:
    raw = np.ascontiguousarray(buffer).data if isinstance(buffer, np.ndarray) else buffer
    view = memoryview(raw).cast("B")
    if len(view) >= 1 << 29:
        raise ValueError(f"buffer of {len(view)} bytes exceeds a Cap'n Proto Data field")
    return view


# -- display models -------------------------------------------------------------------------
@converter("isaac.point_cloud", "isaac.PointCloudProto")
def point_cloud(decoded: DecodedMessage) -> PointCloud:
    """A ``PointCloudProto`` as a display cloud: views of the attachment when every point is
    finite, else the finite points only (the others counted)."""
    try:
        xyz = point_cloud_to_numpy(decoded)
        intensity = point_intensities_to_numpy(decoded)
    except (MalformedMessage, MissingAttachment, ValueError) as exc:
        raise ConversionError(str(exc)) from None
    if intensity is not None and len(intensity) != len(xyz):
        raise ConversionError(f"{len(intensity)} intensities for {len(xyz)} points")
    finite = np.isfinite(xyz).all(axis=1)
    dropped = len(xyz) - int(np.count_nonzero(finite))
    if dropped:
        xyz = xyz[finite]
        intensity = intensity[finite] if intensity is not None else None
    return PointCloud(xyz, intensity, dropped=dropped)
