"""Which topics a camera panel can show, and what it can draw over them.

By wire type: stills (the newest wins, converted on the topic's lane), video (every packet
decoded in order by a stateful decoder), 2D overlays, 3D boxes to project, calibrations and
transforms. A bow ``ImageSamples`` topic is handled as video: it may carry video-coded
cameras, and its stills are decoded only when no newer sample waits.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

STILL_TYPES = frozenset({
    "foxglove.CompressedImage", "foxglove.RawImage", "isaac.ImageProto",
    "isaac.ColorCameraProto", "isaac.DepthCameraProto",
})
VIDEO_TYPES = frozenset({"foxglove.CompressedVideo", "bow.ImageSamples"})
OVERLAY_TYPES = frozenset({
    "isaac.Detections2Proto", "isaac.Skeleton2ListProto", "foxglove.ImageAnnotations",
})
BOX_TYPES = frozenset({
    "isaac.Detections3Proto", "foxglove.SceneUpdate",
    "autoware.traffic_simulator_msgs.EntityStatus",
    "autoware.simulation_api_schema.UpdateEntityStatusRequest",
    "autoware.simulation_api_schema.EntityStatus",
})
CALIBRATION_TYPES = frozenset({"foxglove.CameraCalibration"})
TRANSFORM_TYPES = frozenset({
    "foxglove.FrameTransform", "foxglove.FrameTransforms", "isaac.PoseTreeProto",
    "isaac.PoseTreeEdgeProto",
})
CAMERA_TYPES = STILL_TYPES | VIDEO_TYPES


@dataclass(frozen=True)
class Topic:
    key: str
    type_name: str
    frame_id: str = ""  # the catalog's frameId ("" when the message names its frame)


def cameras(topics: Iterable[Topic]) -> list[Topic]:
    """The camera topics among ``topics``, in the order given (a catalog's order)."""
    return [t for t in topics if t.type_name in CAMERA_TYPES]


def of_types(topics: Iterable[Topic], types: frozenset[str]) -> list[Topic]:
    return [t for t in topics if t.type_name in types]


def folder(key: str) -> str:
    return key.rsplit("/", 1)[0] if "/" in key else ""


def calibration_for(camera: Topic, topics: Iterable[Topic]) -> Topic | None:
    """The calibration of ``camera``: one in the same key folder (``camera/compressed`` and
    ``camera/calibration``), else the robot's only one."""
    found = of_types(topics, CALIBRATION_TYPES)
    beside = [t for t in found if folder(t.key) == folder(camera.key)]
    if beside:
        return beside[0]
    return found[0] if len(found) == 1 else None


def overlays_for(camera: Topic, topics: Iterable[Topic]) -> list[Topic]:
    """2D overlays that may belong to ``camera``: those in its key folder first, then the
    others of the robot (a robot with one camera puts its detections anywhere)."""
    found = of_types(topics, OVERLAY_TYPES)
    return sorted(found, key=lambda t: (folder(t.key) != folder(camera.key), t.key))
