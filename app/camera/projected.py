"""3D boxes of a robot drawn into one of its cameras.

The boxes are the 3D scene's own display models (isaac 3D detections, foxglove scene cubes,
autoware entities), converted on their lanes by the scene's converters — a camera and a 3D
view open together share those conversions. The robot's transforms build a tree as in the
3D scene; each box is placed in the camera's optical frame at the image's time and projected
through the camera's calibration (foxglove ``CameraCalibration`` beside the camera, or the
isaac camera message's own pinhole).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import cast

import numpy as np

from app.camera.sources import BOX_TYPES, TRANSFORM_TYPES, Topic, calibration_for
from app.camera.sync import SYNC_TOLERANCE_S
from app.convert.camera.model import CameraFrame, ImageOverlay
from app.convert.camera.projection import CameraModel, place_model, project_placed
from app.convert.models import SceneChange
from app.convert.registry import scene_converter_for
from app.scene.frames import FrameError, namespaced
from app.scene.layers import Layer, SceneModel
from app.station.frame import FrameBatch
from app.station.interests import Converted

CALIBRATION_CONVERTER = "camera.calibration"
OWN_PINHOLE_TYPES = frozenset({"isaac.ColorCameraProto", "isaac.DepthCameraProto"})
DEFAULT_CAMERA_FRAME = "camera"


class BoxProjector:
    def __init__(self, robot_id: str) -> None:
        self.robot_id = robot_id
        self.model = SceneModel()
        self._layers: dict[str, Layer] = {}
        self._boxes: list[str] = []  # keys of box layers
        self._stamps: dict[str, float] = {}
        self._calibration: Converted | None = None
        self._camera_model: CameraModel | None = None
        self.problem = ""  # why no box is drawn, for the panel

    def set_topics(self, topics: Iterable[Topic], camera: Topic) -> None:
        topics = list(topics)
        layers: dict[str, Layer] = {}
        for topic in topics:
            if topic.type_name not in BOX_TYPES | TRANSFORM_TYPES:
                continue
            converter = scene_converter_for(topic.type_name)
            if converter is not None:
                layers[topic.key] = self.model.layer(topic.key, self.robot_id, topic.type_name,
                                                     converter, topic.frame_id)
        for key in [k for k in self.model.layers if k not in layers]:
            self.model.remove(key)
        self._layers = layers
        self._boxes = [t.key for t in topics if t.key in layers and t.type_name in BOX_TYPES]
        if camera.type_name in OWN_PINHOLE_TYPES:
            self._calibration = Converted(camera.key, CALIBRATION_CONVERTER)
        else:
            found = calibration_for(camera, topics)
            self._calibration = Converted(found.key, CALIBRATION_CONVERTER) if found else None

    def interests(self) -> list[Converted]:
        wanted = [Converted(layer.key, layer.converter) for layer in self._layers.values()]
        if self._calibration is not None and self._boxes:
            wanted.append(self._calibration)
        return wanted

    def take(self, batch: FrameBatch) -> None:
        for layer in self._layers.values():
            value = batch.converted.get(Converted(layer.key, layer.converter))
            if value is not None:
                self.model.take(layer, value.value, value.version, value.error)
                self._stamps[layer.key] = value.stamp
        if self._calibration is not None:
            value = batch.converted.get(self._calibration)
            if value is not None and value.value is not None:
                self._camera_model = cast(CameraModel, value.value)  # CALIBRATION_CONVERTER's

    def overlays(self, frame: CameraFrame, stamp: float,
                 camera_topic: Topic) -> list[tuple[Callable[[], ImageOverlay], bool]]:
        """The boxes of every box topic in ``frame`` (shown at ``stamp``), each overlay
        with whether it is of the image's time. The boxes are placed in the camera here (the
        transform tree lives on this thread); each overlay is a function that projects them,
        for the thread that draws the overlays to call."""
        if not self._boxes:
            self.problem = ""
            return []
        camera = self._camera_model
        if camera is None:
            self.problem = "3D boxes: no calibration for this camera"
            return []
        if (camera.width, camera.height) != (frame.width, frame.height):
            camera = camera.scaled(frame.width, frame.height)
        optical = namespaced(self.robot_id, camera.frame_id or frame.frame_id or
                             camera_topic.frame_id or DEFAULT_CAMERA_FRAME)
        drawn: list[tuple[Callable[[], ImageOverlay], bool]] = []
        problems: list[str] = []
        for key in self._boxes:
            layer = self._layers[key]

            def camera_from(frame_id: str, layer: Layer = layer) -> np.ndarray | None:
                return self._camera_from(optical, layer.frame_of(frame_id), stamp, problems)

            for model in self._models(layer):
                placed = place_model(model, camera_from)
                box_stamp = getattr(model, "stamp", 0.0) or self._stamps.get(key, 0.0)
                drawn.append((functools.partial(project_placed, placed, camera),
                              abs(box_stamp - stamp) <= SYNC_TOLERANCE_S))
        self.problem = "; ".join(dict.fromkeys(problems))
        return drawn

    def _models(self, layer: Layer) -> list[object]:
        models = list(layer.models)
        if layer.entities:
            models.append(SceneChange(tuple(e for e, _ in layer.entities.values())))
        return models

    def _camera_from(self, optical: str, frame: str, stamp: float,
                     problems: list[str]) -> np.ndarray | None:
        try:
            return self.model.tree.lookup(optical, frame, stamp).matrix
        except FrameError as exc:
            problems.append(f"3D boxes: {exc}")
            return None
