"""Converters for the camera panel: what is drawn over an image, and camera calibrations.

Registered without wire types, so the 3D scene never picks them; the camera panel asks for
them by name. The work is in app/camera/overlays.py and app/camera/projection.py.
"""

from __future__ import annotations

from app.camera.model import ImageOverlay
from app.camera.overlays import overlay_from
from app.camera.projection import CameraModel, camera_model_from
from app.codec.decode import DecodedMessage
from app.convert.registry import converter


@converter("overlays.image")
def image_overlay(decoded: DecodedMessage) -> ImageOverlay:
    """isaac ``Detections2Proto`` / ``Skeleton2ListProto``, foxglove ``ImageAnnotations``."""
    return overlay_from(decoded)


@converter("overlays.calibration")
def calibration(decoded: DecodedMessage, rectified: bool = False) -> CameraModel:
    """foxglove ``CameraCalibration``; isaac ``CameraIntrinsicsProto``, ``PinholeProto`` and
    the camera messages with a ``pinhole``. ``rectified``: the image is rectified (use P)."""
    return camera_model_from(decoded, rectified)
