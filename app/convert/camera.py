"""Camera images as display frames: converter ``camera.image`` (app.camera.images).

Registered for no wire type: the 3D scene never asks for it; the camera panel names it in
its ``Converted`` interest, with options ``source`` (the camera of a bow message) and
``depth_range`` (a fixed colour range, in the frame's value unit).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.camera.images import image_frame
from app.camera.model import CameraFrame
from app.codec.decode import DecodedMessage
from app.convert.registry import ConversionError, converter


@converter("camera.image")
def camera_image(decoded: DecodedMessage, source: str = "",
                 depth_range: Sequence[float] | None = None) -> CameraFrame:
    fixed = None
    if depth_range is not None:
        if len(depth_range) != 2:
            raise ConversionError(f"depth_range {depth_range!r}: need (low, high)")
        fixed = (float(depth_range[0]), float(depth_range[1]))
    return image_frame(decoded, str(source), fixed)
