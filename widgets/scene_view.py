"""A reusable 3D view: a vispy ``SceneCanvas`` embedded in Qt that knows nothing of topics.

World frame: x forward/east, y left/north, z up. Callers draw through named groups
(:meth:`SceneView.group`); each group is one node with a transform and up to four visuals
(points, segments, mesh, texts), each made on first use and then only updated. Data comes
with a version: a group touches the GPU only when the version changes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import vispy
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget
from vispy import scene
from vispy.scene.cameras import TurntableCamera
from vispy.visuals.transforms import MatrixTransform

from widgets.gl_readback import ReadbackCanvasBackend
from widgets.scene_mesh import SteadyMesh
from widgets.scene_picks import NO_PICKS, FramePicks, pick_radii, uncluttered
from widgets.scene_points import Points

vispy.use("pyside6")

CAMERA_MODES = ("orbit", "top", "follow")
BACKGROUND = (0.11, 0.11, 0.13, 1.0)
DEFAULT_CENTER = (0.0, 0.0, 0.0)
DEFAULT_DISTANCE = 20.0
DEFAULT_AZIMUTH = -90.0  # looking along +x (from behind a robot facing x)
DEFAULT_ELEVATION = 30.0
FOV = 45.0
DEPTH = 1e4  # near/far: distance / sqrt(10 * DEPTH) ... distance * sqrt(10 * DEPTH)
GRID_HALF = 25  # m: the grid spans -25..25 m
TRIAD_LENGTH = 0.5  # m
AXES_LENGTH = 1.0  # m
TEXT_POINTS = 9  # ~12 px at 96 dpi
CLICK_SLOP = 4.0  # px a click may move and still be a click

TRANSLUCENT_ORDER = 10  # translucent meshes draw after everything opaque, of every group
TEXT_ORDER = 20
HIDDEN_LABEL = (0.0, 0.0, 0.0, 0.0)
NOTE_STYLE = ("QLabel { background: rgba(20, 22, 26, 220); color: #e6e6e6; "
              "border: 1px solid #58a6ff; border-radius: 4px; padding: 4px 6px; }")
NOTE_MARGIN = 8  # px from the view's top-left corner


def _rgba(color: Sequence[float] | np.ndarray) -> tuple[float, float, float, float]:
    """A colour as 0..1 floats (rgb or rgba); values over 1 are taken as 0..255."""
    values = [float(c) for c in color][:4]
    if values and max(values) > 1.0:
        values = [c / 255.0 for c in values]
    values += [1.0] * (4 - len(values))
    return values[0], values[1], values[2], values[3]


def _vispy_matrix(matrix: np.ndarray) -> np.ndarray:
    """Row-major math convention (p_world = M @ [p, 1]) -> vispy's (row vectors: p @ M.T)."""
    return np.ascontiguousarray(np.asarray(matrix, dtype=np.float64).reshape(4, 4).T)


class PacedCanvas(scene.SceneCanvas):
    """A canvas drawn by a render thread of its own (see widgets/gl_readback.py), at most as
    often as its frames' cost allows: ``MAX_FRAME_SHARE`` of a core."""

    def create_native(self) -> None:
        """vispy's own, with the render-thread backend instead of a ``QOpenGLWidget``."""
        if self._backend is not None:
            return
        if not self._app.native:  # vispy's application makes the QApplication if none is
            raise RuntimeError("vispy has no Qt application")
        kwargs: dict[str, Any] = self._backend_kwargs  # type: ignore[has-type]
        ReadbackCanvasBackend(self, **kwargs)
        self._backend_kwargs = None
        self.events.draw.connect(self.context.flush_commands, position="last")


class _TopCamera(TurntableCamera):
    """Orthographic, looking down -z with x to the right and y up; the left button pans."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(fov=0.0, elevation=90.0, azimuth=0.0, **kwargs)

    def _update_rotation(self, event: Any) -> None:  # left drag: pan instead of rotate
        camera: Any = self  # vispy's attributes, untyped
        p1 = event.mouse_event.press_event.pos
        p2 = event.mouse_event.pos
        if camera._event_value is None or len(camera._event_value) == 2:
            camera._event_value = camera.center
        norm = min(camera._viewbox.size)  # the smaller side spans scale_factor
        dx, dy = (p1 - p2)[:2] / norm * camera._scale_factor
        c = camera._event_value
        camera.center = c[0] + dx, c[1] - dy, c[2]


class SceneGroup:
    """What one layer draws in one frame: a node with a transform and up to four visuals,
    each made on first use, then only updated.

    Opaque visuals (points, segments) live under one node; the translucent mesh and the
    texts live under twin nodes with the same transform, drawn after every group's opaque
    visuals, so a translucent volume never hides the points of a group drawn after it."""

    def __init__(self, view: SceneView, group_id: str) -> None:
        self.group_id = group_id
        self._view = view
        self._count_upload: Callable[[int], None] = view._count_upload
        self._nodes = [scene.Node(parent=root, name=f"{group_id}:{kind}")
                       for root, kind in ((view._opaque_root, "opaque"),
                                          (view._translucent_root, "translucent"),
                                          (view._text_root, "text"))]
        self._matrix = np.eye(4)
        for node in self._nodes:
            node.transform = MatrixTransform()
        self._points: Any = None
        self._segments: Any = None
        self._mesh: Any = None
        self._texts: Any = None
        self._versions: dict[str, int | None] = {
            "points": None, "segments": None, "mesh": None, "texts": None}
        # point style and the data its automatic ranges need
        self._style: tuple[Any, ...] = ()  # the last set_point_style arguments
        self._color_by = "flat"
        self._color: tuple[float, float, float, float] = (1.0, 1.0, 1.0, 1.0)
        self._size = 2.0
        self._range: tuple[float, float] | None = None
        self._xyz: np.ndarray | None = None
        self._values: np.ndarray | None = None
        self._bounds: np.ndarray | None = None  # (2, 3) local min/max of the points
        self._value_bounds: tuple[float, float] | None = None
        # the labels as given (group frame), their sizes in pixels and which are shown
        self._label_pos = np.zeros((0, 3))
        self._label_colors = np.zeros((0, 4), np.float32)
        self._label_sizes = np.zeros((0, 2))
        self._labels_shown: np.ndarray | None = None

    # -- the group as a whole ------------------------------------------------------------
    @property
    def visible(self) -> bool:
        return bool(self._nodes[0].visible)

    @property
    def matrix(self) -> np.ndarray:
        return self._matrix.copy()

    def set_matrix(self, matrix: np.ndarray) -> None:
        """4x4 group frame -> world, p_world = M @ [p, 1]."""
        matrix = np.asarray(matrix, dtype=np.float64).reshape(4, 4)
        if np.array_equal(matrix, self._matrix) or not np.all(np.isfinite(matrix)):
            return
        self._matrix = matrix.copy()
        transposed = _vispy_matrix(matrix)
        for node in self._nodes:
            node.transform.matrix = transposed
        if self._color_by == "height" and self._range is None:
            self._apply_point_style()  # the world heights moved

    def set_visible(self, visible: bool) -> None:
        for node in self._nodes:
            if node.visible != bool(visible):  # a change repaints; the same value must not
                node.visible = bool(visible)

    def clear(self) -> None:
        """Empties the visuals (keeps them); the next data of any version is uploaded."""
        if self._points is not None:
            self._points.set_data(np.zeros((0, 3), np.float32))
        for visual in (self._segments, self._mesh, self._texts):
            if visual is not None:
                visual.visible = False
        self._versions = dict.fromkeys(self._versions)
        self._xyz = self._values = self._bounds = self._value_bounds = None

    def detach(self) -> None:
        for node in self._nodes:
            node.parent = None

    # -- points ----------------------------------------------------------------------------
    def set_points(self, xyz: np.ndarray, version: int, values: np.ndarray | None = None,
                   rgb: np.ndarray | None = None) -> None:
        """Uploads the cloud only when ``version`` differs from the last one uploaded."""
        if version == self._versions["points"]:
            return
        if self._points is None:
            self._points = Points(parent=self._nodes[0])
            self._apply_point_style()
        self._versions["points"] = version
        xyz = np.asarray(xyz)
        xyz = xyz.reshape(0, 3) if xyz.size == 0 else xyz
        before = self._points.uploads
        self._points.set_data(xyz, values, rgb)
        self._count_upload(self._points.uploads - before)
        self._xyz = xyz if len(xyz) else None
        self._values = (values if values is not None and len(xyz) and len(values) == len(xyz)
                        else None)
        self._bounds = self._value_bounds = None  # computed when an automatic range needs them
        if self._range is None and self._color_by in ("height", "value"):
            self._apply_point_style()

    def set_point_style(self, color_by: str, color: tuple, size: float,
                        value_range: tuple[float, float] | None) -> None:
        """color_by: "height" (world z), "value", "rgb" or "flat"; never re-uploads points."""
        if color_by not in ("height", "value", "rgb", "flat"):
            raise ValueError(f"unknown color_by {color_by!r}")
        style = (color_by, _rgba(color), float(size), value_range)
        if style == self._style:  # called every frame by panels: only a change repaints
            return
        self._style = style
        self._color_by = color_by
        self._color = _rgba(color)
        self._size = float(size)
        self._range = None
        if value_range is not None:
            lo, hi = (float(v) for v in value_range)
            if math.isfinite(lo) and math.isfinite(hi):
                self._range = (lo, hi)
        self._apply_point_style()

    def _apply_point_style(self) -> None:
        if self._points is None:
            return
        value_range = self._range or self._auto_range()
        self._points.set_style(self._color_by, self._color, self._size, value_range)

    def _auto_range(self) -> tuple[float, float]:
        if self._color_by == "value" and self._values is not None:
            if self._value_bounds is None:
                with np.errstate(all="ignore"):
                    lo, hi = np.nanmin(self._values), np.nanmax(self._values)
                self._value_bounds = (float(lo), float(hi))
            lo, hi = self._value_bounds
        elif self._color_by == "height" and self._xyz is not None:
            if self._bounds is None:
                with np.errstate(all="ignore"):
                    self._bounds = np.array([np.nanmin(self._xyz[:, :3], axis=0),
                                             np.nanmax(self._xyz[:, :3], axis=0)], float)
            # the world heights of the local box's corners bound the cloud's (exact for a
            # matrix that keeps z up, as robots' frames mostly do)
            corners = np.array([[x, y, z] for x in self._bounds[:, 0]
                                for y in self._bounds[:, 1] for z in self._bounds[:, 2]])
            heights = corners @ self._matrix[2, :3] + self._matrix[2, 3]
            lo, hi = float(heights.min()), float(heights.max())
        else:
            return (0.0, 1.0)
        if not (math.isfinite(lo) and math.isfinite(hi)):
            return (0.0, 1.0)
        return (lo, hi) if hi > lo else (lo - 0.5, lo + 0.5)

    # -- segments, mesh, texts -------------------------------------------------------------
    def set_segments(self, positions: np.ndarray, colors: np.ndarray, version: int,
                     width: float = 1.5) -> None:
        """Line segments: (2K, 3) endpoint pairs, (2K, 4) float rgba per endpoint."""
        if version == self._versions["segments"]:
            if self._segments is not None and self._segments.width != width:
                self._segments.set_data(width=width)
            return
        self._versions["segments"] = version
        positions = np.asarray(positions, dtype=np.float32).reshape(-1, 3)
        pairs = len(positions) // 2 * 2
        if self._segments is None:
            if pairs == 0:
                return
            self._segments = scene.visuals.Line(parent=self._nodes[0], connect="segments",
                                                method="gl", antialias=False)
        if pairs == 0:
            self._segments.visible = False
            return
        colors = np.asarray(colors, dtype=np.float32)
        color: Any = colors[:pairs] if colors.ndim == 2 and len(colors) >= pairs else (
            _rgba(colors.ravel()) if colors.size in (3, 4) else (1.0, 1.0, 1.0, 1.0))
        self._segments.set_data(pos=positions[:pairs], color=color, width=float(width),
                                connect="segments")
        self._segments.visible = True
        self._count_upload(1)

    def set_mesh(self, vertices: np.ndarray, faces: np.ndarray, colors: np.ndarray,
                 version: int) -> None:
        """Triangles with per-vertex rgba; alpha is honoured (translucent volumes)."""
        if version == self._versions["mesh"]:
            return
        self._versions["mesh"] = version
        vertices = np.asarray(vertices, dtype=np.float32).reshape(-1, 3)
        faces = np.asarray(faces, dtype=np.uint32).reshape(-1, 3)
        if len(vertices) == 0 or len(faces) == 0:
            if self._mesh is not None:
                self._mesh.visible = False
            return
        if self._mesh is None:
            self._mesh = SteadyMesh(parent=self._nodes[1])
            self._mesh.set_gl_state("translucent", depth_test=True, cull_face=False)
        colors = np.asarray(colors, dtype=np.float32)
        if colors.ndim != 2 or len(colors) != len(vertices):
            colors = np.tile(np.asarray(_rgba(colors.ravel() if colors.size in (3, 4)
                                              else (1, 1, 1, 1)), np.float32),
                             (len(vertices), 1))
        self._mesh.set_data(vertices=vertices, faces=faces, vertex_colors=colors)
        self._mesh.visible = True
        self._count_upload(1)

    def set_texts(self, texts: list[tuple[tuple[float, float, float], str, tuple]],
                  version: int) -> None:
        """Labels (position, text, colour) at 3D positions in the group frame, ~12 px."""
        if version == self._versions["texts"]:
            return
        self._versions["texts"] = version
        texts = [t for t in texts if t[1]]
        self._label_pos = np.array([pos for pos, _, _ in texts], np.float64).reshape(-1, 3)
        self._label_colors = np.array([_rgba(color) for _, _, color in texts],
                                      np.float32).reshape(-1, 4)
        self._label_sizes = np.array([self._view.label_size(text) for _, text, _ in texts],
                                     np.float64).reshape(-1, 2)
        self._labels_shown = None
        if not texts:
            if self._texts is not None:
                self._texts.visible = False
            return
        if self._texts is None:
            self._texts = scene.visuals.Text(parent=self._nodes[2], font_size=TEXT_POINTS,
                                             anchor_x="left", anchor_y="bottom")
        strings = [text for _, text, _ in texts]
        if strings != self._texts.text:  # laying the glyphs out is what costs: moved only
            self._texts.text = strings
        self._texts.pos = self._label_pos.astype(np.float32)
        self._texts.color = self._label_colors
        self._texts.visible = True
        self._count_upload(1)

    def label_texts(self) -> list[str]:
        """The labels' texts as drawn now."""
        if self._texts is None or not self._texts.visible or not self.visible:
            return []
        text = self._texts.text
        return [text] if isinstance(text, str) else list(text)

    def labels(self) -> tuple[np.ndarray, np.ndarray]:
        """The labels drawn now: world positions (M, 3) and sizes in pixels (M, 2)."""
        if self._texts is None or not self._texts.visible or not self.visible:
            return np.zeros((0, 3)), np.zeros((0, 2))
        world = self._label_pos @ self._matrix[:3, :3].T + self._matrix[:3, 3]
        return world, self._label_sizes

    def show_labels(self, shown: np.ndarray) -> None:
        """Only the labels marked shown are drawn (the others are made transparent)."""
        if self._texts is None or (self._labels_shown is not None
                                   and np.array_equal(shown, self._labels_shown)):
            return
        self._labels_shown = shown.copy()
        colors = self._label_colors.copy()
        colors[~shown] = HIDDEN_LABEL
        self._texts.color = colors


class SceneView(QWidget):
    """A vispy 3D view embedded in Qt (SceneCanvas.native in a layout); knows nothing of
    topics. World frame: x forward/east, y left/north, z up."""

    clicked = Signal(float, float)  # a left click without drag, widget pixel coords
    # While a tool is active (set_tool_active): the left button's press, drag and release,
    # widget pixel coords; the camera then ignores the mouse.
    tool_pressed = Signal(float, float)
    tool_moved = Signal(float, float)
    tool_released = Signal(float, float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.uploads = 0
        self.canvas = PacedCanvas(keys=None, show=False, bgcolor=BACKGROUND,
                                        size=(320, 240), parent=self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.canvas.native)
        self.view = self.canvas.central_widget.add_view()
        self._opaque_root = scene.Node(parent=self.view.scene, name="opaque")
        self._translucent_root = scene.Node(parent=self.view.scene, name="translucent")
        self._translucent_root.order = TRANSLUCENT_ORDER
        self._text_root = scene.Node(parent=self.view.scene, name="text")
        self._text_root.order = TEXT_ORDER
        self._groups: dict[str, SceneGroup] = {}

        self._orbit = TurntableCamera(fov=FOV, up="+z")
        self._top = _TopCamera(up="+z")
        for camera in (self._orbit, self._top):
            camera.depth_value = DEPTH
        self._mode = "orbit"
        self._follow_target: tuple[float, float, float] = DEFAULT_CENTER
        self.view.camera = self._orbit
        self.reset_view()

        self._grid = scene.visuals.Line(pos=_grid_lines(), color=_grid_colors(),
                                        connect="segments", method="gl", antialias=False,
                                        parent=self.view.scene)
        self._grid.order = -10
        self._axes = scene.visuals.Line(pos=_triad_lines(np.eye(4), AXES_LENGTH),
                                        color=_triad_colors(1), connect="segments",
                                        method="gl", width=2.0, parent=self.view.scene)
        self._axes.order = -5
        self._triads: Any = None
        self._triads_key: tuple[list[str], bytes, bool] | None = None
        self._triad_names: Any = None

        self._press: tuple[float, float] | None = None
        self._tool = False
        self._tool_down = False
        self.canvas.events.mouse_press.connect(self._on_mouse_press)
        self.canvas.events.mouse_move.connect(self._on_mouse_move)
        self.canvas.events.mouse_release.connect(self._on_mouse_release)

        font = QFont()
        font.setPointSizeF(TEXT_POINTS)
        self._label_metrics = QFontMetricsF(font)
        self._label_rects = np.zeros((0, 4))
        # world positions, points on each item's extent (K, N, 3) and what each item is
        self._pickables: tuple[np.ndarray, np.ndarray, Sequence[Any]] = (
            np.zeros((0, 3)), np.zeros((0, 0, 3)), ())
        self._frame_picks: dict[int, FramePicks] = {}  # by the number of the frame
        self.canvas.events.draw.connect(self._on_draw, position="first")
        self.note = QLabel(self)
        self.note.setStyleSheet(NOTE_STYLE)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note.move(NOTE_MARGIN, NOTE_MARGIN)
        self.note.hide()
        self._note_timer = QTimer(self)
        self._note_timer.setSingleShot(True)
        self._note_timer.timeout.connect(self.note.hide)

    def shutdown(self) -> None:
        """Stops the render thread (it would stop when the widget is deleted, too)."""
        self.canvas.close()

    def _count_upload(self, count: int) -> None:
        self.uploads += count

    # -- groups ----------------------------------------------------------------------------
    def group(self, group_id: str) -> SceneGroup:
        """The group of that id: made once, then reused."""
        group = self._groups.get(group_id)
        if group is None:
            group = self._groups[group_id] = SceneGroup(self, group_id)
        return group

    def remove_group(self, group_id: str) -> None:
        group = self._groups.pop(group_id, None)
        if group is not None:
            group.detach()

    def group_ids(self) -> list[str]:
        return list(self._groups)

    # -- camera ----------------------------------------------------------------------------
    @property
    def camera_mode(self) -> str:
        return self._mode

    def set_camera_mode(self, mode: str) -> None:
        """"orbit" (turntable), "top" (looking along -z, pan/zoom) or "follow" (orbit, the
        centre kept on the follow target)."""
        if mode not in CAMERA_MODES:
            raise ValueError(f"unknown camera mode {mode!r}")
        if mode == self._mode:
            return
        was_top = self._mode == "top"
        self._mode = mode
        if mode == "top":
            self._top.center = self._orbit.center
            self._top.scale_factor = self._orbit.distance
            self._top.distance = self._orbit.distance
            self.view.camera = self._top
        else:
            if was_top:
                self._orbit.center = self._top.center
                self.view.camera = self._orbit
            if mode == "follow":
                self._orbit.center = self._follow_target

    def set_follow_target(self, xyz: tuple[float, float, float]) -> None:
        target = tuple(float(v) for v in xyz)
        if len(target) != 3 or not all(math.isfinite(v) for v in target):
            return
        self._follow_target = (target[0], target[1], target[2])
        if self._mode == "follow" and tuple(self._orbit.center) != self._follow_target:
            self._orbit.center = self._follow_target

    def reset_view(self) -> None:
        """Back to the default view of the origin, ~20 m away."""
        self.look_at(DEFAULT_CENTER, DEFAULT_DISTANCE)

    def look_at(self, center: Sequence[float], distance: float,
                azimuth: float = DEFAULT_AZIMUTH, elevation: float = DEFAULT_ELEVATION) -> None:
        """A fixed camera: ``distance`` m from ``center``; azimuth/elevation in degrees
        (vispy's turntable angles; the top view keeps looking straight down)."""
        center3 = tuple(float(v) for v in center)[:3]
        distance = max(1e-3, float(distance))
        for camera in (self._orbit, self._top):
            camera.center = center3
            camera.distance = distance
            camera.scale_factor = distance
        self._orbit.azimuth = float(azimuth)
        self._orbit.elevation = float(np.clip(elevation, -90.0, 90.0))
        self._top.azimuth = 0.0
        self._top.elevation = 90.0

    def camera_state(self) -> dict:
        camera = self._top if self._mode == "top" else self._orbit
        return {
            "mode": self._mode,
            "center": [float(v) for v in camera.center],
            "distance": float(camera.distance),
            "scale": float(camera.scale_factor),
            "azimuth": float(self._orbit.azimuth),
            "elevation": float(self._orbit.elevation),
        }

    def set_camera_state(self, state: dict) -> None:
        """Restores :meth:`camera_state`; a state that does not parse is ignored whole."""
        try:
            mode = state["mode"]
            center = [float(v) for v in state["center"]]
            distance = float(state["distance"])
            scale = float(state.get("scale", distance))
            azimuth = float(state["azimuth"])
            elevation = float(state["elevation"])
            numbers = [*center, distance, scale, azimuth, elevation]
            if (mode not in CAMERA_MODES or len(center) != 3 or distance <= 0 or scale <= 0
                    or not all(math.isfinite(v) for v in numbers)):
                return
        except (KeyError, TypeError, ValueError, AttributeError):
            return
        self.set_camera_mode(mode)
        self.look_at(center, distance, azimuth, elevation)
        self._top.scale_factor = scale if mode == "top" else distance

    # -- furniture -------------------------------------------------------------------------
    def set_grid_visible(self, visible: bool) -> None:
        self._grid.visible = bool(visible)

    def set_axes_visible(self, visible: bool) -> None:
        self._axes.visible = bool(visible)

    def set_frame_triads(self, frames: list[tuple[str, np.ndarray]], show_names: bool) -> None:
        """A small triad (and its name) per (name, 4x4 frame -> world); one visual for all.
        The same frames again (names, matrices, show_names) upload nothing."""
        matrices = [np.asarray(m, dtype=np.float64).reshape(4, 4) for _, m in frames]
        key = ([name for name, _ in frames], np.array(matrices).tobytes(), bool(show_names))
        if key == self._triads_key:
            return
        self._triads_key = key
        keep = [i for i, m in enumerate(matrices) if np.all(np.isfinite(m))]
        if self._triads is None:
            if not keep:
                return
            self._triads = scene.visuals.Line(connect="segments", method="gl", width=2.0,
                                              parent=self._opaque_root)
            self._triad_names = scene.visuals.Text(parent=self._text_root,
                                                   font_size=TEXT_POINTS, color="white",
                                                   anchor_x="left", anchor_y="bottom")
        if not keep:
            self._triads.visible = self._triad_names.visible = False
            return
        pos = np.concatenate([_triad_lines(matrices[i], TRIAD_LENGTH) for i in keep])
        self._triads.set_data(pos=pos, color=_triad_colors(len(keep)), connect="segments")
        self.uploads += 1
        self._triads.visible = True
        names = [frames[i][0] for i in keep]
        if show_names and any(names):
            if list(self._triad_names.text) != names:  # vispy lays out any text it is given
                self._triad_names.text = names
            self._triad_names.pos = np.array([matrices[i][:3, 3] for i in keep], np.float32)
            self._triad_names.visible = True
        else:
            self._triad_names.visible = False

    # -- picks, labels and the note ------------------------------------------------------
    def set_pickables(self, positions: np.ndarray, extents: np.ndarray,
                      payloads: Sequence[Any]) -> None:
        """What the next frame drawn can be clicked on: (N, 3) world positions, (N, 3)
        sizes of each item's box (0: a point), and what each is (given back by
        :meth:`pick_at`)."""
        positions = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
        half = np.asarray(extents, dtype=np.float64).reshape(-1, 3) / 2
        rims = np.stack([positions + half * axis for axis in np.eye(3)]) if len(half) \
            else np.zeros((0, 0, 3))
        self._pickables = (positions, rims, list(payloads))

    def pick_at(self, x: float, y: float) -> Any | None:
        """What the click at widget pixel (x, y) names in the picture shown, or None."""
        shown = self.canvas.native.shown_frame
        return self._frame_picks.get(shown, NO_PICKS).nearest(x, y)

    def shown_picks(self) -> FramePicks:
        """The pickable items of the frame on screen, where it drew them."""
        return self._frame_picks.get(self.canvas.native.shown_frame, NO_PICKS)

    def label_size(self, text: str) -> tuple[float, float]:
        """A label's width and height on screen, in pixels."""
        lines = text.splitlines() or [""]
        width = max(self._label_metrics.horizontalAdvance(line) for line in lines)
        return width, self._label_metrics.height() * len(lines)

    def label_rects(self) -> np.ndarray:
        """(M, 4) x, y, w, h in widget pixels of the labels the last frame drew."""
        return self._label_rects.copy()

    def show_note(self, text: str, seconds: float | None = None) -> None:
        """A note over the view's top-left corner: kept until :meth:`hide_note`, or for
        ``seconds``."""
        self._note_timer.stop()
        self.note.setText(text)
        self.note.adjustSize()
        self.note.show()
        self.note.raise_()
        if seconds is not None:
            self._note_timer.start(round(seconds * 1000))

    def hide_note(self) -> None:
        self._note_timer.stop()
        self.note.hide()

    def _on_draw(self, event: Any) -> None:
        """Each frame, as it is walked: where its pickable items and labels land."""
        number = self.canvas.native.frames_recorded
        shown = self.canvas.native.shown_frame
        self._frame_picks = {n: p for n, p in self._frame_picks.items() if n >= shown}
        self._frame_picks[number] = self._project_pickables()
        self._declutter_labels()

    def _project_pickables(self) -> FramePicks:
        positions, rims, payloads = self._pickables
        if len(positions) == 0:
            return NO_PICKS
        centres = self.project(positions)
        edges = self.project(rims.reshape(-1, 3)).reshape(len(rims), -1, 2)
        return FramePicks(centres, pick_radii(centres, edges), payloads)

    def _declutter_labels(self) -> None:
        groups = [g for g in self._groups.values() if g.visible]
        labels = [g.labels() for g in groups]
        counts = [len(world) for world, _ in labels]
        if sum(counts) == 0:
            self._label_rects = np.zeros((0, 4))
            return
        world = np.concatenate([w for w, _ in labels])
        sizes = np.concatenate([s for _, s in labels])
        xy, depth = self._project_with_depth(world)
        # vispy's y runs up, so a label anchored at its "bottom" hangs below its anchor
        rects = np.column_stack([xy, sizes])
        rects[depth <= 0] = np.nan  # behind the camera
        shown = uncluttered(rects, depth)
        self._label_rects = rects[shown]
        start = 0
        for group, count in zip(groups, counts, strict=True):
            if count:
                group.show_labels(shown[start:start + count])
            start += count

    # -- output ----------------------------------------------------------------------------
    def next_frame_in(self) -> float:
        """Seconds until the view may start its next frame (infinite while one is being
        drawn): what changes before then is all drawn by that frame."""
        return float(self.canvas.native.next_frame_in())

    def render_image(self) -> np.ndarray:
        """(H, W, 4) uint8 RGBA of what is drawn, rendered now (waits for the render
        thread)."""
        return self.canvas.native.render_now()[..., [2, 1, 0, 3]]

    def project(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) world -> (N, 2) widget pixel coordinates (for picking)."""
        return self._project_with_depth(points)[0]

    def _project_with_depth(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, 2) widget pixels and (N,) distances in front of the camera (clip w)."""
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        if len(points) == 0:
            return np.zeros((0, 2)), np.zeros(0)
        transform = self.view.scene.node_transform(self.canvas.scene)
        mapped = np.atleast_2d(transform.map(points))
        xy = mapped[:, :2] / mapped[:, 3:4]
        offset = self.canvas.native.pos()
        return xy + np.array([offset.x(), offset.y()], dtype=np.float64), mapped[:, 3]

    def ray(self, x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
        """The world ray under widget pixel (x, y): (origin, unit direction away from the
        camera); the inverse of :meth:`project`."""
        offset = self.canvas.native.pos()
        px, py = float(x) - offset.x(), float(y) - offset.y()
        transform = self.view.scene.node_transform(self.canvas.scene)
        # two depths in clip space: the near plane (-1) and halfway to the far one
        near, far = (np.asarray(transform.imap([px, py, depth, 1.0]), dtype=np.float64)
                     for depth in (-1.0, 0.5))
        origin, beyond = near[:3] / near[3], far[:3] / far[3]
        direction = beyond - origin
        return origin, direction / np.linalg.norm(direction)

    # -- clicks and tools ----------------------------------------------------------------------
    def set_tool_active(self, active: bool) -> None:
        """A tool takes the left button (the tool_* signals) and the camera ignores the
        mouse, until it is set inactive."""
        self._tool = bool(active)
        self._tool_down = False
        for camera in (self._orbit, self._top):
            camera.interactive = not self._tool

    def _tool_event(self, signal: Any, event: Any) -> None:
        offset = self.canvas.native.pos()
        signal.emit(float(event.pos[0]) + offset.x(), float(event.pos[1]) + offset.y())

    def _on_mouse_press(self, event: Any) -> None:
        if self._tool:
            self._press = None
            if event.button == 1:
                self._tool_down = True
                self._tool_event(self.tool_pressed, event)
            return
        self._press = (float(event.pos[0]), float(event.pos[1])) if event.button == 1 else None

    def _on_mouse_move(self, event: Any) -> None:
        if self._tool_down:
            self._tool_event(self.tool_moved, event)
        elif self._press is not None and math.dist(self._press, event.pos[:2]) > CLICK_SLOP:
            self._press = None  # a drag

    def _on_mouse_release(self, event: Any) -> None:
        if self._tool_down and event.button == 1:
            self._tool_down = False
            self._tool_event(self.tool_released, event)
            return
        press, self._press = self._press, None
        if (press is not None and event.button == 1
                and math.dist(press, event.pos[:2]) <= CLICK_SLOP):
            offset = self.canvas.native.pos()
            self.clicked.emit(press[0] + offset.x(), press[1] + offset.y())


def _grid_lines() -> np.ndarray:
    ticks = np.arange(-GRID_HALF, GRID_HALF + 1, dtype=np.float32)
    n = len(ticks)
    lines = np.zeros((4 * n, 3), np.float32)
    lines[0:2 * n:2, 0], lines[1:2 * n:2, 0] = ticks, ticks  # lines along y
    lines[0:2 * n:2, 1], lines[1:2 * n:2, 1] = -GRID_HALF, GRID_HALF
    lines[2 * n::2, 1], lines[2 * n + 1::2, 1] = ticks, ticks  # lines along x
    lines[2 * n::2, 0], lines[2 * n + 1::2, 0] = -GRID_HALF, GRID_HALF
    return lines


def _grid_colors() -> np.ndarray:
    ticks = np.arange(-GRID_HALF, GRID_HALF + 1)
    major = np.repeat(np.tile(ticks % 5 == 0, 2), 2)
    colors = np.tile(np.array([0.26, 0.26, 0.28, 1.0], np.float32), (len(major), 1))
    colors[major] = (0.36, 0.36, 0.39, 1.0)
    return colors


def _triad_lines(matrix: np.ndarray, length: float) -> np.ndarray:
    origin = matrix[:3, 3]
    lines = np.empty((6, 3), np.float32)
    for axis in range(3):
        lines[2 * axis] = origin
        lines[2 * axis + 1] = origin + matrix[:3, axis] * length
    return lines


def _triad_colors(count: int) -> np.ndarray:
    one = np.array([[0.9, 0.2, 0.2, 1.0]] * 2 + [[0.2, 0.85, 0.2, 1.0]] * 2
                   + [[0.25, 0.45, 1.0, 1.0]] * 2, np.float32)
    return np.tile(one, (count, 1))
