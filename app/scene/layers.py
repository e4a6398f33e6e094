"""The 3D scene's layers: one per topic, holding its newest display models, and what each
draws where (in the fixed frame), or why it draws nothing.

Qt-free: the 3D panel feeds it converted values once per tick and draws the groups it hands
back. Transforms from any layer build one tree; an item whose frame the tree cannot place
in the fixed frame is not drawn, and its layer says why.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from app.convert.models import (
    RGBA,
    WGS84,
    Poses,
    Scene,
    SceneChange,
    SceneEntity,
    Transform,
    Transforms,
)
from app.scene.drawables import Drawables, entity_drawables, to_drawables
from app.scene.frames import (
    EARTH,
    FrameError,
    TransformTree,
    matrix_of,
    namespaced,
    quaternion_of,
)
from app.scene.geo import to_enu

if TYPE_CHECKING:
    from app.convert.registry import DisplayModel

BASE_FRAME = "base_link"
PALETTE: tuple[RGBA, ...] = ((0.30, 0.61, 0.91, 1.0), (0.95, 0.56, 0.17, 1.0),
                             (0.35, 0.63, 0.31, 1.0), (0.88, 0.34, 0.35, 1.0),
                             (0.69, 0.48, 0.63, 1.0), (0.93, 0.79, 0.28, 1.0),
                             (0.46, 0.72, 0.70, 1.0), (1.0, 0.62, 0.65, 1.0))
ROOT_PREFERENCE = ("map", "world", "odom")


@dataclass
class LayerStyle:
    visible: bool = True
    color: RGBA | None = None  # None: the layer's palette colour
    point_size: float = 2.0
    color_by: str = "auto"  # auto | height | value | rgb | flat
    voxel_m: float = 0.0  # > 0: clouds kept to one point per voxel of this size (slow GPUs)

    def to_dict(self) -> dict[str, Any]:
        return {"visible": self.visible, "color": list(self.color) if self.color else None,
                "point_size": self.point_size, "color_by": self.color_by,
                "voxel_m": self.voxel_m}

    @classmethod
    def from_dict(cls, data: Any) -> LayerStyle:
        style = cls()
        if not isinstance(data, dict):
            return style
        if isinstance(data.get("visible"), bool):
            style.visible = data["visible"]
        color = data.get("color")
        if isinstance(color, list) and len(color) == 4 and \
                all(isinstance(c, int | float) and 0 <= c <= 1 for c in color):
            style.color = (float(color[0]), float(color[1]), float(color[2]), float(color[3]))
        size = data.get("point_size")
        if isinstance(size, int | float) and 0.5 <= size <= 20:
            style.point_size = float(size)
        if data.get("color_by") in ("auto", "height", "value", "rgb", "flat"):
            style.color_by = data["color_by"]
        voxel = data.get("voxel_m")
        if isinstance(voxel, int | float) and not isinstance(voxel, bool) and 0 <= voxel <= 10:
            style.voxel_m = float(voxel)
        return style


@dataclass
class Group:
    """What one layer draws in one frame."""

    group_id: str
    drawables: Drawables
    matrix: np.ndarray  # the frame -> the fixed frame
    version: int  # changes when the drawables changed (not when only the matrix did)


@dataclass
class Layer:
    key: str
    robot_id: str
    type_name: str
    converter: str
    color: RGBA
    topic_frame: str = ""  # the catalog frameId
    style: LayerStyle = field(default_factory=LayerStyle)
    version: int = -1  # of the converted value last taken in
    models: list[Any] = field(default_factory=list)
    entities: dict[str, tuple[SceneEntity, float]] = field(default_factory=dict)  # id -> (, expiry)
    error: str = ""  # why the newest sample did not convert
    empty: bool = False  # the newest sample converted to nothing to draw (a battery reading)
    frame_problem: str = ""  # why some of it is not drawn
    inexact: bool = False  # drawn with the latest transform, none near its time
    content_version: int = 0
    # drawables per item, valid for one (content_version, colour)
    _cache: dict[str, Drawables] = field(default_factory=dict)
    _cache_of: tuple[int, RGBA] | None = None

    def frame_of(self, frame_id: str) -> str:
        if frame_id == WGS84:
            return EARTH
        return namespaced(self.robot_id, frame_id or self.topic_frame or BASE_FRAME)


class SceneModel:
    def __init__(self) -> None:
        self.tree = TransformTree()
        self.datum: tuple[float, float, float] | None = None
        self.layers: dict[str, Layer] = {}

    # -- layers ------------------------------------------------------------------------------
    def layer(self, key: str, robot_id: str, type_name: str, converter: str,
              topic_frame: str = "") -> Layer:
        layer = self.layers.get(key)
        if layer is None or layer.converter != converter:
            layer = Layer(key, robot_id, type_name, converter,
                          PALETTE[len(self.layers) % len(PALETTE)], topic_frame)
            self.layers[key] = layer
        layer.topic_frame = topic_frame
        return layer

    def remove(self, key: str) -> None:
        self.layers.pop(key, None)

    def take(self, layer: Layer, value: DisplayModel | None, version: int, error: str) -> None:
        """A layer's newest converted value (``value`` None: nothing converted yet)."""
        if version == layer.version:
            return
        layer.version = version
        layer.error = error
        if error or value is None:
            return  # the last good models stay drawn, the error is shown beside them
        parts = list(value.parts) if isinstance(value, Scene) else [value]
        layer.empty = not parts
        models = []
        for part in parts:
            if isinstance(part, Transforms):
                self._add_transforms(layer, part.transforms)
            elif isinstance(part, SceneChange):
                self._apply_change(layer, part)
            else:
                models.append(part)
        self._link_earth(layer, models)
        if models or not any(isinstance(p, Transforms | SceneChange) for p in parts):
            layer.models = models
        layer.content_version += 1

    def _add_transforms(self, layer: Layer, transforms: tuple[Transform, ...]) -> None:
        problems = []
        for transform in transforms:
            try:
                self.tree.add(transform, layer.robot_id)
            except ValueError as exc:
                problems.append(str(exc))
        layer.error = "; ".join(problems[:3])

    def _apply_change(self, layer: Layer, change: SceneChange) -> None:
        if change.delete_all:
            layer.entities.clear()
        for entity_id in change.deletions:
            layer.entities.pop(entity_id, None)
        now = time.monotonic()
        for entity in change.entities:
            expiry = now + entity.lifetime_s if entity.lifetime_s > 0 else float("inf")
            layer.entities[entity.id] = (entity, expiry)

    def _link_earth(self, layer: Layer, models: list[Any]) -> None:
        """A geodetic pose sent with a local pose of the same instant places the robot's
        local frame on the earth (and the first geodetic fix is the scene's datum)."""
        geodetic = [m for m in models if isinstance(m, Poses) and m.frame_id == WGS84
                    and len(m.poses) == 1]
        if not geodetic:
            return
        if self.datum is None:
            lon, lat, alt = (float(v) for v in geodetic[0].poses[0][:3])
            self.datum = (lon, lat, alt)
        local = [m for m in models if isinstance(m, Poses) and m.frame_id != WGS84
                 and len(m.poses) == 1]
        if not local:
            return
        on_earth = np.array(geodetic[0].poses[0], dtype=np.float64)
        on_earth[:3] = to_enu(on_earth[None, :3], self.datum)[0]
        earth_from_robot = _pose_matrix(on_earth)
        local_from_robot = _pose_matrix(np.asarray(local[0].poses[0], dtype=np.float64))
        earth_from_local = earth_from_robot @ np.linalg.inv(local_from_robot)
        self.tree.add(_transform_of(EARTH, layer.frame_of(local[0].frame_id),
                                    earth_from_local))

    # -- drawing -------------------------------------------------------------------------------
    def groups(self, layer: Layer, fixed_frame: str) -> list[Group]:
        """What the layer draws, placed in ``fixed_frame``; sets its frame_problem."""
        now = time.monotonic()
        for entity_id in [i for i, (_, expiry) in layer.entities.items() if expiry <= now]:
            del layer.entities[entity_id]
            layer.content_version += 1
        items: list[tuple[str, Any]] = [(f"m{i}", m) for i, m in enumerate(layer.models)]
        items += [(f"e:{i}", e) for i, (e, _) in layer.entities.items()]
        color = layer.style.color or layer.color
        by_frame: dict[str, list[Drawables]] = {}
        problems: list[str] = []
        for item_id, model in items:
            try:
                drawables = self._drawables(layer, item_id, model, color)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            by_frame.setdefault(layer.frame_of(drawables.frame_id), []).append(drawables)
        groups, layer.inexact = [], False
        stamp = _stamp_of(layer.models)
        for frame, parts in by_frame.items():
            try:
                lookup = self.tree.lookup(fixed_frame, frame, stamp)
            except FrameError as exc:
                problems.append(str(exc))
                continue
            layer.inexact |= not lookup.exact
            groups.append(Group(f"{layer.key}|{frame}", _merge(frame, parts), lookup.matrix,
                                hash((layer.content_version, color))))
        layer.frame_problem = "; ".join(dict.fromkeys(problems))
        return groups

    def _drawables(self, layer: Layer, item_id: str, model: Any, color: RGBA) -> Drawables:
        if layer._cache_of != (layer.content_version, color):
            layer._cache, layer._cache_of = {}, (layer.content_version, color)
        cached = layer._cache.get(item_id)
        if cached is not None:
            return cached
        if isinstance(model, SceneEntity):
            drawables = entity_drawables(model, color, self.datum)
        else:
            drawables = to_drawables(model, color, self.datum, layer.key.rsplit("/", 1)[-1])
        layer._cache[item_id] = drawables
        return drawables

    def default_fixed_frame(self, robot_id: str | None) -> str:
        """The active robot's world/map frame, else the earth, else the frame its data is
        in, else its base frame."""
        frames = self.tree.frames()
        if robot_id:
            for name in ROOT_PREFERENCE:
                if f"{robot_id}/{name}" in frames:
                    return f"{robot_id}/{name}"
        if self.datum is not None or EARTH in frames:
            return EARTH
        if robot_id:  # no transforms at all: the frame the robot's data is in
            for layer in self.layers.values():
                if layer.robot_id == robot_id and layer.models:
                    return layer.frame_of(getattr(layer.models[0], "frame_id", ""))
        return namespaced(robot_id, BASE_FRAME) if robot_id else BASE_FRAME


def _merge(frame: str, parts: list[Drawables]) -> Drawables:
    if len(parts) == 1:
        return parts[0]
    out = Drawables(frame)
    clouds = [p for p in parts if p.points is not None]
    if clouds:
        first = clouds[0]  # one cloud per group: the first (a layer has one cloud)
        out.points, out.point_values, out.point_rgb = \
            first.points, first.point_values, first.point_rgb
    for part in parts:
        out.segments += part.segments
        out.segment_colors += part.segment_colors
        out.vertices += part.vertices
        out.faces += part.faces
        out.vertex_colors += part.vertex_colors
        out.texts += part.texts
        out.picks += part.picks
    return out


def _stamp_of(models: list[Any]) -> float:
    stamps = [getattr(m, "stamp", 0.0) for m in models]
    return max(stamps, default=0.0)


def _pose_matrix(pose: np.ndarray) -> np.ndarray:
    return matrix_of((pose[0], pose[1], pose[2]), (pose[3], pose[4], pose[5], pose[6]))


def _transform_of(parent: str, child: str, matrix: np.ndarray) -> Transform:
    t = matrix[:3, 3]
    return Transform(parent, child, (float(t[0]), float(t[1]), float(t[2])),
                     quaternion_of(matrix[:3, :3]))
