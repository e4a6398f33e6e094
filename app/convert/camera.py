"""Camera images as display frames: converter ``camera.image`` (app.camera.images).

Registered for no wire type: the 3D scene never asks for it; the camera panel names it in
its ``Converted`` interest, with options ``source`` (the camera of a bow message),
``depth_range`` (a fixed colour range, in the frame's value unit) and ``fit`` (the view's
width and height in screen pixels, in the picture's orientation: a preview that size comes
with the frame).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.camera.images import image_frame
from app.camera.model import CameraFrame
from app.codec.decode import DecodedMessage
from app.convert.registry import ConversionError, converter


@converter("camera.image")
def camera_image(decoded: DecodedMessage, source: str = "",
                 depth_range: Sequence[float] | None = None,
                 fit: Sequence[int] | None = None) -> CameraFrame:
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
