"""Camera test inputs: pictures with known pixels, sent through the real wire path."""

from __future__ import annotations

from typing import Any

import numpy as np

from app.codec.buffers import encode_buffers
from app.codec.decode import DecodedMessage, decode, encoding_for
from app.codec.registry import registry
from app.convert.camera.images import image_frame
from app.convert.camera.model import CameraFrame


def new(type_name: str, **fields: Any) -> Any:
    return registry().struct(type_name).new_message(**fields)


def wire(message: Any, buffers: list[Any] | None = None) -> DecodedMessage:
    """Decodes a builder as a subscriber would, its isaac attachment included."""
    type_name = registry().name_of(message.schema.node.id)
    attachment = bytes(encode_buffers(buffers)) if buffers is not None else None
    payload = message.to_bytes()
    message.clear_write_flag()
    return decode(encoding_for(type_name), payload, attachment)


def frame(message: Any, buffers: list[Any] | None = None, **options: Any) -> CameraFrame:
    return image_frame(wire(message, buffers), **options)


def picture(height: int = 48, width: int = 64, channels: int = 3) -> np.ndarray:
    """Smooth colour gradients (so lossy codecs and demosaicing stay close) with a distinct
    value in every channel: red grows to the right, green downwards, blue the other way."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    red = 20 + 200 * x / max(width - 1, 1)
    green = 30 + 180 * y / max(height - 1, 1)
    blue = 230 - 100 * x / max(width - 1, 1) - 90 * y / max(height - 1, 1)
    planes = [red, green, blue, 128 + 0 * x][:channels]
    return np.clip(np.stack(planes, axis=-1).round(), 0, 255).astype(np.uint8)


def noise(shape: tuple[int, ...], dtype: Any = np.uint8, seed: int = 0) -> np.ndarray:
    """Random pixels: a lossless path must give them back exactly."""
    info = np.iinfo(dtype)
    return np.random.default_rng(seed).integers(info.min, info.max, shape, dtype=dtype,
                                                 endpoint=True)
