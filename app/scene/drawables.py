"""Display models -> what the 3D view draws: points, line segments, triangles, texts.

One adapter per model type (the napari habit), each returning :class:`Drawables` in the
model's own frame; the view places a whole group with one matrix, so a cloud's points are
never touched on the way to the GPU. Geodetic items (frame ``wgs84``) are the exception:
they are placed in the earth frame ``enu`` here, around the scene's datum.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.convert.models import (
    RGBA,
    WGS84,
    Boxes,
    Grid,
    PointCloud,
    Poses,
    Primitive,
    SceneEntity,
    Skeletons,
)
from app.scene.frames import EARTH, matrix_of
from app.scene.geo import to_enu

WHITE: RGBA = (1.0, 1.0, 1.0, 1.0)
AXIS_COLOURS = ((0.9, 0.2, 0.2, 1.0), (0.2, 0.85, 0.3, 1.0), (0.25, 0.45, 1.0, 1.0))
MAX_GRID_CELLS = 256 * 256


@dataclass(frozen=True)
class Pick:
    """Something a click can name: where it is (in the group's frame) and what it is."""

    position: tuple[float, ...]  # x, y, z
    text: str
    size: tuple[float, ...] = (0.0, 0.0, 0.0)  # the item's box (0: a point)


@dataclass
class Drawables:
    frame_id: str
    points: np.ndarray | None = None  # (N, 3) float32 — a cloud is passed through as is
    point_values: np.ndarray | None = None  # (N,) float32, coloured by a colormap
    point_rgb: np.ndarray | None = None  # (N, 3) uint8
    segments: list[np.ndarray] = field(default_factory=list)  # (2K, 3) each
    segment_colors: list[np.ndarray] = field(default_factory=list)  # (2K, 4) each
    vertices: list[np.ndarray] = field(default_factory=list)  # (V, 3) each
    faces: list[np.ndarray] = field(default_factory=list)  # (F, 3) uint32 each, local
    vertex_colors: list[np.ndarray] = field(default_factory=list)  # (V, 4) each
    texts: list[tuple[tuple[float, float, float], str, RGBA]] = field(default_factory=list)
    picks: list[Pick] = field(default_factory=list)

    def add_segments(self, pairs: np.ndarray, color: RGBA | np.ndarray) -> None:
        pairs = np.asarray(pairs, dtype=np.float32).reshape(-1, 3)
        if len(pairs) < 2:
            return
        colors = np.asarray(color, dtype=np.float32)
        if colors.ndim == 1:
            colors = np.broadcast_to(colors, (len(pairs), 4))
        self.segments.append(pairs)
        self.segment_colors.append(colors)

    def add_mesh(self, vertices: np.ndarray, faces: np.ndarray,
                 color: RGBA | np.ndarray) -> None:
        vertices = np.asarray(vertices, dtype=np.float32).reshape(-1, 3)
        colors = np.asarray(color, dtype=np.float32)
        if colors.ndim == 1:
            colors = np.broadcast_to(colors, (len(vertices), 4))
        self.vertices.append(vertices)
        self.faces.append(np.asarray(faces, dtype=np.uint32).reshape(-1, 3))
        self.vertex_colors.append(colors)

    def merged_segments(self) -> tuple[np.ndarray, np.ndarray] | None:
        if not self.segments:
            return None
        return np.concatenate(self.segments), np.concatenate(self.segment_colors)

    def merged_mesh(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        if not self.vertices:
            return None
        offsets = np.cumsum([0] + [len(v) for v in self.vertices[:-1]])
        faces = np.concatenate([f + o for f, o in zip(self.faces, offsets, strict=True)])
        return (np.concatenate(self.vertices), faces.astype(np.uint32),
                np.concatenate(self.vertex_colors))


def to_drawables(model: Any, color: RGBA, datum: tuple[float, float, float] | None,
                 label: str = "") -> Drawables:
    """The adapter for ``model``'s type. Raises ValueError for a model it cannot place."""
    adapter = ADAPTERS.get(type(model))
    if adapter is None:
        raise ValueError(f"the 3D view cannot draw {type(model).__name__}")
    if getattr(model, "frame_id", "") == WGS84:
        if datum is None:
            raise ValueError("no geodetic datum yet")
        model = on_earth(model, datum)
    drawables: Drawables = adapter(model, color, label)
    return drawables


def _cloud(cloud: PointCloud, color: RGBA, label: str) -> Drawables:
    return Drawables(cloud.frame_id, points=cloud.xyz, point_values=cloud.intensity,
                     point_rgb=cloud.rgb)


def _poses(poses: Poses, color: RGBA, label: str) -> Drawables:
    out = Drawables(poses.frame_id)
    rows = np.asarray(poses.poses, dtype=np.float64).reshape(-1, 7)
    if poses.path and len(rows) >= 2:
        out.add_segments(np.repeat(rows[:, :3], 2, axis=0)[1:-1], color)
    if not poses.path or len(rows) == 1:
        for row in rows[:64]:  # a triad and an arrow per pose; many poses: the first 64
            _triad(out, row, 0.5)
            out.picks.append(Pick(tuple(row[:3]), label or poses.label or "pose"))
    elif len(rows):
        out.picks.append(Pick(tuple(rows[-1, :3]), label or poses.label or "path"))
    return out


def _triad(out: Drawables, pose: np.ndarray, length: float) -> None:
    m = matrix_of(tuple(pose[:3]), tuple(pose[3:7]))
    origin = m[:3, 3]
    for axis in range(3):
        out.add_segments(np.array([origin, origin + m[:3, axis] * length]), AXIS_COLOURS[axis])


BOX_EDGES = np.array([(0, 1), (1, 3), (3, 2), (2, 0), (4, 5), (5, 7), (7, 6), (6, 4),
                      (0, 4), (1, 5), (2, 6), (3, 7)])
CORNERS = np.array([(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])


def _boxes(boxes: Boxes, color: RGBA, label: str) -> Drawables:
    out = Drawables(boxes.frame_id)
    for box in boxes.boxes:
        m = matrix_of(box.center, box.rotation)
        corners = (m[:3, :3] @ (CORNERS * np.asarray(box.size)).T).T + m[:3, 3]
        out.add_segments(corners[BOX_EDGES].reshape(-1, 3), box.color or color)
        name = " ".join(p for p in (box.label or box.kind, _score(box.score),
                                    f"#{box.track_id}" if box.track_id else "") if p)
        top = (box.center[0], box.center[1], box.center[2] + box.size[2] / 2)
        if name:
            out.texts.append((top, name, box.color or color))
        out.picks.append(Pick(tuple(box.center), name or "box", tuple(box.size)))
    return out


def _score(score: float) -> str:
    return f"{score:.2f}" if math.isfinite(score) else ""


def _skeletons(skeletons: Skeletons, color: RGBA, label: str) -> Drawables:
    out = Drawables(skeletons.frame_id)
    joints_all = []
    for skeleton in skeletons.skeletons:
        joints = np.asarray(skeleton.joints, dtype=np.float32).reshape(-1, 3)
        valid = np.asarray(np.isfinite(joints).all(axis=1), dtype=bool)
        if skeleton.valid is not None:
            valid &= np.asarray(skeleton.valid, dtype=bool)
        bones = np.asarray(skeleton.bones, dtype=np.int64).reshape(-1, 2)
        inside = (bones >= 0).all(axis=1) & (bones < len(joints)).all(axis=1)
        bones = bones[inside]
        bones = bones[valid[bones[:, 0]] & valid[bones[:, 1]]]
        out.add_segments(joints[bones].reshape(-1, 3), color)
        joints_all.append(joints[valid])
        if len(joints[valid]):
            out.picks.append(Pick(tuple(joints[valid].mean(axis=0)),
                                  skeleton.label or label or "skeleton"))
    if joints_all:
        points = np.concatenate(joints_all)
        out.points = points
        out.point_rgb = np.broadcast_to(np.asarray(color[:3]) * 255, points.shape).astype(
            np.uint8)
    return out


def _grid(grid: Grid, color: RGBA, label: str) -> Drawables:
    values = np.asarray(grid.values, dtype=np.float32)
    step = max(1, math.ceil(math.sqrt(values.size / MAX_GRID_CELLS)))
    values = values[::step, ::step]
    rows, cols = values.shape
    dx, dy = grid.cell_size[0] * step, grid.cell_size[1] * step
    low, high = grid.value_range
    level = np.clip((values - low) / ((high - low) or 1.0), 0, 1)
    ys, xs = np.mgrid[0:rows, 0:cols]
    corners = np.stack([xs * dx, ys * dy], axis=-1).reshape(-1, 2)
    quad = np.array([(0, 0), (dx, 0), (dx, dy), (0, dy)])
    vertices = np.zeros((len(corners) * 4, 3))
    vertices[:, :2] = (corners[:, None, :] + quad[None]).reshape(-1, 2)
    faces = (np.arange(len(corners))[:, None] * 4 + np.array([[0, 1, 2], [0, 2, 3]])[None])
    grey = np.where(np.isfinite(level), 1.0 - level, 0.5).reshape(-1)
    colors = np.repeat(np.stack([grey, grey, grey, np.full_like(grey, 0.6)], axis=1), 4,
                       axis=0)
    m = matrix_of(tuple(grid.origin[:3]), tuple(grid.origin[3:7]))
    vertices = (m[:3, :3] @ vertices.T).T + m[:3, 3]
    out = Drawables(grid.frame_id)
    out.add_mesh(vertices, faces.reshape(-1, 3), colors)
    return out


def entity_drawables(entity: SceneEntity, color: RGBA,
                     datum: tuple[float, float, float] | None) -> Drawables:
    if entity.frame_id == WGS84:
        if datum is None:
            raise ValueError("no geodetic datum yet")
        entity = on_earth(entity, datum)
    out = Drawables(entity.frame_id)
    for primitive in entity.primitives:
        _primitive(out, primitive)
    if entity.primitives:
        first = entity.primitives[0].pose
        out.picks.append(Pick((first[0], first[1], first[2]), entity.label or entity.id))
    return out


def _primitive(out: Drawables, p: Primitive) -> None:
    m = matrix_of(tuple(p.pose[:3]), tuple(p.pose[3:7]))
    place = lambda v: (m[:3, :3] @ np.asarray(v, dtype=np.float64).T).T + m[:3, 3]  # noqa: E731
    if p.kind in ("cube", "sphere", "cylinder"):
        vertices, faces = SOLIDS[p.kind]
        out.add_mesh(place(vertices * np.asarray(p.size)), faces, p.color)
    elif p.kind == "arrow":
        length, width = p.size[0], max(p.size[1], 1e-3)
        out.add_segments(place(np.array([(0, 0, 0), (length, 0, 0)])), p.color)
        head = place(np.array([(length, 0, 0), (length * 0.75, width, 0),
                               (length, 0, 0), (length * 0.75, -width, 0)]))
        out.add_segments(head, p.color)
    elif p.kind in ("lines", "line_strip", "line_loop") and p.points is not None:
        points = place(p.points)
        order = p.indices if p.indices is not None else np.arange(len(points))
        colors = p.colors if p.colors is not None else np.broadcast_to(
            np.asarray(p.color, dtype=np.float32), (len(points), 4))
        if p.kind == "line_loop" and len(order):
            order = np.append(order, order[0])
        pairs = order[: len(order) // 2 * 2] if p.kind == "lines" else \
            np.repeat(order, 2)[1:-1]
        out.add_segments(points[pairs], np.asarray(colors)[pairs])
    elif p.kind == "triangles" and p.points is not None:
        points = place(p.points)
        faces = p.indices if p.indices is not None else np.arange(len(points) // 3 * 3)
        out.add_mesh(points, np.asarray(faces).reshape(-1, 3),
                     p.colors if p.colors is not None else p.color)
    elif p.kind == "text":
        out.texts.append((tuple(m[:3, 3]), p.text, p.color))


def _solids() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    cube_v = CORNERS.astype(np.float32)
    cube_f = np.array([(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
                       (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)])
    n = 16
    angles = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = np.stack([np.cos(angles) / 2, np.sin(angles) / 2], axis=1)
    cyl_v = np.concatenate([np.c_[ring, np.full(n, -0.5)], np.c_[ring, np.full(n, 0.5)],
                            [(0, 0, -0.5), (0, 0, 0.5)]])
    sides = [(i, (i + 1) % n, n + i) for i in range(n)] + \
        [((i + 1) % n, n + (i + 1) % n, n + i) for i in range(n)]
    caps = [(2 * n, (i + 1) % n, i) for i in range(n)] + \
        [(2 * n + 1, n + i, n + (i + 1) % n) for i in range(n)]
    lat = np.linspace(0, np.pi, 9)
    lon = np.linspace(0, 2 * np.pi, 13)[:-1]
    sph_v = np.array([(np.sin(a) * np.cos(b) / 2, np.sin(a) * np.sin(b) / 2, np.cos(a) / 2)
                      for a in lat for b in lon])
    cols = len(lon)
    sph_f = []
    for i in range(len(lat) - 1):
        for j in range(cols):
            a, b = i * cols + j, i * cols + (j + 1) % cols
            sph_f += [(a, b, a + cols), (b, b + cols, a + cols)]
    return {"cube": (cube_v, cube_f), "cylinder": (cyl_v, np.array(sides + caps)),
            "sphere": (sph_v, np.array(sph_f))}


SOLIDS = _solids()


def on_earth(model: Any, datum: tuple[float, float, float]) -> Any:
    """A geodetic model (frame ``wgs84``: every position and point is longitude, latitude,
    altitude; sizes are metres) as the same model in the earth frame ``enu``."""
    enu = lambda xyz: to_enu(np.asarray(xyz, dtype=np.float64), datum)  # noqa: E731
    if isinstance(model, PointCloud):
        return dataclasses.replace(model, xyz=enu(model.xyz).astype(np.float32), frame_id=EARTH)
    if isinstance(model, Poses):
        rows = np.array(model.poses, dtype=np.float64).reshape(-1, 7)
        rows[:, :3] = enu(rows[:, :3])
        return dataclasses.replace(model, poses=rows, frame_id=EARTH)
    if isinstance(model, Boxes):
        boxes = tuple(dataclasses.replace(b, center=tuple(enu([b.center])[0]))
                      for b in model.boxes)
        return dataclasses.replace(model, boxes=boxes, frame_id=EARTH)
    if isinstance(model, SceneEntity):
        if model.ground_relative:  # flat geometry: heights above the ground at the datum
            datum = (datum[0], datum[1], 0.0)
            enu = lambda xyz: to_enu(np.asarray(xyz, dtype=np.float64), datum)  # noqa: E731
        primitives = []
        for p in model.primitives:
            pose = (*enu([p.pose[:3]])[0], *p.pose[3:7])
            points = enu(p.points) - pose[:3] if p.points is not None else None
            primitives.append(dataclasses.replace(
                p, pose=pose, points=points if points is None else _unrotate(points, pose)))
        return dataclasses.replace(model, primitives=tuple(primitives), frame_id=EARTH)
    raise ValueError(f"{type(model).__name__} cannot be placed on the earth")


def _unrotate(points: np.ndarray, pose: tuple[float, ...]) -> np.ndarray:
    """Absolute points made relative to a primitive's pose (which the drawing applies)."""
    m = matrix_of((0.0, 0.0, 0.0), tuple(pose[3:7]))
    return (m[:3, :3].T @ points.T).T


ADAPTERS: dict[type, Any] = {
    PointCloud: _cloud,
    Poses: _poses,
    Boxes: _boxes,
    Skeletons: _skeletons,
    Grid: _grid,
}
