"""3D panel: the robots' frames, clouds, poses, paths, boxes, skeletons and scene entities.

Every layer is a converted interest: its topic's newest sample is turned into a display
model on the topic's lane, off the GUI thread; this panel only places finished models in
the fixed frame (one matrix per frame group) and hands changed arrays to the view, which
uploads them once per version. By default every topic of the active robot that the scene
can draw is a layer; topics dropped on the panel are added to them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction, QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QColorDialog,
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QMenu,
    QSplitter,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from app.bus.keys import robot_of
from app.convert.registry import scene_converter_for
from app.qt.panel_api import PanelHost
from app.station.frame import FrameBatch
from app.station.interests import Converted, Interest
from panels.base import PanelBase

if TYPE_CHECKING:
    import numpy as np

    from app.scene.drawables import Pick
    from app.scene.layers import Group, Layer, LayerStyle

CAMERA_MODES = {"orbit": "Orbit", "top": "Top-down", "follow": "Follow robot"}
AUTO_FRAME = "(auto)"
STALE_AFTER_S = 2.0
ERROR_COLOUR, WARN_COLOUR, OK_COLOUR, DIM_COLOUR = "#f85149", "#d29922", "#3fb950", "#82868c"
MAX_TRIADS = 48
# The scene is placed only for the view's next frame, when it starts within this: under a
# software renderer the view draws a few frames a second, and placing the scene at every
# tick (up to 60 a second, with cameras waking the window) cost the GUI thread 2-3 ms each.
PLACE_AHEAD_S = 0.04
SELECTION_GROUP = "__selection__"
SELECTION_COLOUR = (1.0, 0.25, 0.9, 1.0)  # magenta: no layer's palette colour
SELECTION_WIDTH = 3.0
SELECTION_MARGIN = 1.2  # the highlight's box around the item's, as a share of its size
MARKER_SIZE_M = 0.6  # the least size of the highlight (an item that is a point)
STALK_M = 1.5  # a pin above the highlight, seen when the item is small or far
NOTHING_NOTE_S = 2.0


@dataclass(frozen=True)
class PickedItem:
    """An item a click can name, as the frame it was drawn in placed it."""

    key: str
    type_name: str
    frame: str  # the frame of its data
    text: str
    index: int  # its place among its group's picks
    position: tuple[float, float, float]  # in the fixed frame
    size: tuple[float, float, float]  # its box (0: a point)

    def details(self, fixed_frame: str) -> str:
        x, y, z = self.position
        return "\n".join((self.text, f"topic: {self.key}", f"type: {self.type_name}",
                          f"frame: {self.frame}",
                          f"position: {x:.2f}, {y:.2f}, {z:.2f} m in {fixed_frame}"))


class Scene3DPanel(PanelBase):
    panel_id = "scene3d"
    title = "3D"
    accepts = frozenset({"topic", "robot"})
    loads_slowly = True  # vispy and a GL context: about a second here

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        # numpy, vispy and the scene model are paid for when a 3D view opens, not at start-up
        from app.scene.layers import SceneModel
        from panels.goal_tool import GOAL_GROUP, GoalTool
        from widgets.scene_view import SceneView

        self.view = SceneView()
        self.model = SceneModel()
        self._styles: dict[str, LayerStyle] = {}
        self._extra: list[str] = []  # topics added by hand
        # their types as the drop named them: a topic in no catalog is drawn before the
        # station has heard it (it listens to such a key only once a panel wants it)
        self._extra_types: dict[str, str] = {}
        self._wanted: dict[str, Layer] = {}  # layers shown now, by key
        # (active robot, all robots) the layers were chosen for; None: choose again
        self._layers_for: tuple[str | None, bool] | None = None
        self._pushed: dict[str, int] = {}  # group id -> content version in the view
        # per group drawn: its matrix, picks, layer and frame
        self._picks: list[tuple[np.ndarray, list[Pick], Layer, str]] = []
        self.selected: PickedItem | None = None  # the item clicked, highlighted
        self._selection_version = 0
        self._fixed_frame = ""  # "" = automatic
        self._active: str | None = None
        self._goal_group = GOAL_GROUP
        self.goal_tool = GoalTool(self)

        self.frame_box = QComboBox()
        self.frame_box.setToolTip("Fixed frame: everything is drawn in it")
        self.frame_box.addItem(AUTO_FRAME)
        self.frame_box.activated.connect(lambda _: self._choose_frame())
        self.camera_box = QComboBox()
        for mode, text in CAMERA_MODES.items():
            self.camera_box.addItem(text, mode)
        self.camera_box.currentIndexChanged.connect(
            lambda _: self.view.set_camera_mode(self.camera_box.currentData()))
        reset = QToolButton()
        reset.setText("Reset view")
        reset.clicked.connect(self.view.reset_view)
        self.grid_box = QCheckBox("Grid")
        self.grid_box.setChecked(True)
        self.grid_box.toggled.connect(self.view.set_grid_visible)
        self.axes_box = QCheckBox("Axes")
        self.axes_box.setChecked(True)
        self.axes_box.toggled.connect(self.view.set_axes_visible)
        self.frames_box = QCheckBox("Frame names")
        self.all_robots_box = QCheckBox("All robots")
        self.all_robots_box.setToolTip("Show the drawable topics of every online robot, "
                                       "not only the active one")
        bar = QHBoxLayout()
        for widget in (self.frame_box, self.camera_box, reset, self.goal_tool.button):
            bar.addWidget(widget)
        bar.addStretch(1)
        for box in (self.grid_box, self.axes_box, self.frames_box, self.all_robots_box):
            bar.addWidget(box)

        self.layer_list = QTreeWidget()
        self.layer_list.setHeaderLabels(["Layer", "Status"])
        self.layer_list.setRootIsDecorated(False)
        self.layer_list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.layer_list.customContextMenuRequested.connect(self._layer_menu)
        self.layer_list.itemChanged.connect(self._on_item_changed)
        self.layer_list.setColumnWidth(0, 260)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.view)
        splitter.addWidget(self.layer_list)
        splitter.setStretchFactor(0, 4)
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.goal_tool.bar)
        layout.addWidget(splitter, 1)
        self.view.clicked.connect(self._on_click)
        self.goal_tool.escape.activated.connect(self.clear_selection)

    # -- the panel contract --------------------------------------------------------------
    def interests(self) -> set[Interest]:
        return {self._interest(layer) for layer in self._wanted.values()
                if self._style(layer.key).visible}

    def _interest(self, layer: Layer) -> Converted:
        return Converted(layer.key, layer.converter, self._style(layer.key).voxel_m)

    def accept_topic(self, key: str, type_name: str) -> bool:
        if type_name and scene_converter_for(type_name, key) is None:
            self.host.show_message(f"3D: {key} ({type_name}) has nothing to draw")
            return False
        if key not in self._extra:
            self._extra.append(key)
        if type_name:
            self._extra_types[key] = type_name
        self._layers_for = None
        return True

    def _remove_extra(self, key: str) -> None:
        self._extra.remove(key)
        self._extra_types.pop(key, None)
        self._layers_for = None

    def save_state(self) -> dict[str, Any]:
        return {
            "fixed_frame": self._fixed_frame,
            "camera": self.camera_box.currentData(),
            "view": self.view.camera_state(),
            "grid": self.grid_box.isChecked(),
            "axes": self.axes_box.isChecked(),
            "frame_names": self.frames_box.isChecked(),
            "all_robots": self.all_robots_box.isChecked(),
            "extra": list(self._extra),
            "layers": {key: style.to_dict() for key, style in self._styles.items()},
        }

    def restore_state(self, state: dict[str, Any]) -> None:
        frame = state.get("fixed_frame", "")
        self._fixed_frame = frame if isinstance(frame, str) else ""
        index = self.camera_box.findData(state.get("camera", "orbit"))
        self.camera_box.setCurrentIndex(max(index, 0))
        for box, name, default in ((self.grid_box, "grid", True), (self.axes_box, "axes", True),
                                   (self.frames_box, "frame_names", False),
                                   (self.all_robots_box, "all_robots", False)):
            value = state.get(name, default)
            box.setChecked(value if isinstance(value, bool) else default)
        extra = state.get("extra", [])
        self._extra = [k for k in extra if isinstance(k, str)] if isinstance(extra, list) \
            else []
        self._layers_for = None
        layers = state.get("layers", {})
        if isinstance(layers, dict):
            from app.scene.layers import LayerStyle

            self._styles = {k: LayerStyle.from_dict(v) for k, v in layers.items()
                            if isinstance(k, str)}
        view = state.get("view")
        if isinstance(view, dict):
            self.view.set_camera_state(view)

    def on_frame(self, batch: FrameBatch) -> None:
        # A batch's robots and topics change only with its tables: scanning them costs a
        # fleet's worth of topics, so only then or when what is shown changed.
        shown = (batch.active_robot, self.all_robots_box.isChecked())
        if batch.tables_changed or shown != self._layers_for:
            self._layers_for = shown
            self._choose_layers(batch)
        for layer in self._wanted.values():
            value = batch.converted.get(self._interest(layer))
            if value is not None:
                self.model.take(layer, value.value, value.version, value.error)
        fixed = self.fixed_frame()
        if self.view.next_frame_in() <= PLACE_AHEAD_S:
            self._draw(fixed)
        self.goal_tool.draw(fixed)
        if self.camera_box.currentData() == "follow" and self._active:
            self._follow(fixed)
        if batch.tables_changed:
            self._show_layers(batch)
            self._refresh_frames(fixed)

    @property
    def active_robot(self) -> str | None:
        return self._active

    def fixed_frame(self) -> str:
        """The frame everything is drawn in now (the view's world)."""
        return self._fixed_frame or self.model.default_fixed_frame(self._active)

    def redraw_goal(self) -> None:
        self.goal_tool.draw(self.fixed_frame())

    def shutdown(self) -> None:
        for group_id in self.view.group_ids():
            self.view.remove_group(group_id)
        self.view.shutdown()

    # -- which topics are layers ---------------------------------------------------------------
    def _choose_layers(self, batch: FrameBatch) -> None:
        online = [r for r in batch.robots if r.online]
        active = batch.active_robot or (online[0].robot_id if len(online) == 1 else None)
        self._active = active
        robots = {r.robot_id for r in online} if self.all_robots_box.isChecked() else \
            ({active} if active else set())
        root = self.host.station.root
        frames: dict[str, str] = {}
        types: dict[str, str] = {}
        for robot in batch.robots:
            if robot.robot_id in robots and robot.catalog:
                for info in robot.catalog.topics:
                    types[info.key] = info.type
                    frames[info.key] = info.frame_id
        for key, stats in batch.topics.items():
            if key in self._extra or robot_of(key, root) in robots:
                types.setdefault(key, stats.type_name)
        for key, type_name in self._extra_types.items():
            types.setdefault(key, type_name)
        wanted: dict[str, Layer] = {}
        for key, type_name in sorted(types.items()):
            robot_id = robot_of(key, root)
            if robot_id is None or (robot_id not in robots and key not in self._extra):
                continue
            converter = scene_converter_for(type_name, key)
            if converter is None:
                continue
            wanted[key] = self.model.layer(key, robot_id, type_name, converter,
                                           frames.get(key, ""))
        for key in [k for k in self.model.layers if k not in wanted]:
            self.model.remove(key)
        self._wanted = wanted

    def _style(self, key: str) -> LayerStyle:
        from app.scene.layers import LayerStyle

        style = self._styles.get(key)
        if style is None:
            style = self._styles[key] = LayerStyle()
        return style

    # -- drawing -------------------------------------------------------------------------------
    def _draw(self, fixed: str) -> None:
        seen: set[str] = set()
        self._picks = []
        for layer in self._wanted.values():
            layer.style = self._style(layer.key)
            if not layer.style.visible:
                continue
            for group in self.model.groups(layer, fixed):
                seen.add(group.group_id)
                self._push(layer, group)
        seen.add(self._goal_group)  # the goal tool's marker: drawn by the tool
        seen.add(SELECTION_GROUP)
        self._place_picks(fixed)
        for group_id in [g for g in self.view.group_ids() if g not in seen]:
            self.view.remove_group(group_id)
            self._pushed.pop(group_id, None)

    def _push(self, layer: Layer, group: Group) -> None:
        import numpy as np

        view_group = self.view.group(group.group_id)
        view_group.set_matrix(group.matrix)
        drawables = group.drawables
        if self._pushed.get(group.group_id) != group.version:
            self._pushed[group.group_id] = group.version
            points = drawables.points if drawables.points is not None else \
                np.empty((0, 3), np.float32)
            view_group.set_points(points, group.version, drawables.point_values,
                                  drawables.point_rgb)
            segments = drawables.merged_segments()
            if segments is not None:
                view_group.set_segments(*segments, version=group.version)
            else:
                view_group.set_segments(np.empty((0, 3), np.float32),
                                        np.empty((0, 4), np.float32), version=group.version)
            mesh = drawables.merged_mesh()
            if mesh is not None:
                view_group.set_mesh(*mesh, version=group.version)
            else:
                view_group.set_mesh(np.empty((0, 3), np.float32),
                                    np.empty((0, 3), np.uint32),
                                    np.empty((0, 4), np.float32), version=group.version)
            view_group.set_texts(drawables.texts, version=group.version)
        style = layer.style
        color_by = style.color_by
        if color_by == "auto":
            color_by = "rgb" if drawables.point_rgb is not None else \
                "value" if drawables.point_values is not None else "height"
        view_group.set_point_style(color_by, style.color or layer.color, style.point_size,
                                   None)
        view_group.set_visible(True)
        if drawables.picks:  # placed in the world only when a click asks
            self._picks.append((group.matrix, drawables.picks, layer,
                                layer.frame_of(drawables.frame_id)))

    def _follow(self, fixed: str) -> None:
        from app.scene.frames import namespaced

        try:
            m = self.model.tree.lookup(fixed, namespaced(self._active or "", "base_link")).matrix
        except LookupError:
            return
        self.view.set_follow_target((float(m[0, 3]), float(m[1, 3]), float(m[2, 3])))

    def _refresh_frames(self, fixed: str) -> None:
        frames = self.model.tree.frames()
        current = self.frame_box.currentText()
        wanted = [AUTO_FRAME, *frames]
        if [self.frame_box.itemText(i) for i in range(self.frame_box.count())] != wanted:
            self.frame_box.blockSignals(True)
            self.frame_box.clear()
            self.frame_box.addItems(wanted)
            self.frame_box.setCurrentText(self._fixed_frame or AUTO_FRAME)
            self.frame_box.blockSignals(False)
        if current == AUTO_FRAME:
            self.frame_box.setItemText(0, f"{AUTO_FRAME} {fixed}")
        triads = []
        for frame in frames[:MAX_TRIADS]:
            try:
                triads.append((frame, self.model.tree.lookup(fixed, frame).matrix))
            except LookupError:
                continue
        self.view.set_frame_triads(triads, self.frames_box.isChecked())

    def _choose_frame(self) -> None:
        text = self.frame_box.currentText()
        self._fixed_frame = "" if text.startswith(AUTO_FRAME) else text

    # -- picking -------------------------------------------------------------------------
    def _place_picks(self, fixed: str) -> None:
        """Hands the view what its next frame can be clicked on; the highlight follows the
        selected item."""
        import numpy as np

        items = [_picked(matrix, pick, index, layer, frame)
                 for matrix, picks, layer, frame in self._picks
                 for index, pick in enumerate(picks)]
        self.view.set_pickables(np.array([i.position for i in items]).reshape(-1, 3),
                                np.array([i.size for i in items]).reshape(-1, 3), items)
        if self.selected is not None:
            same = _same_item(self.selected, items)
            if same is not None and same != self.selected:
                self._select(same, fixed)

    def _on_click(self, x: float, y: float) -> None:
        item = self.view.pick_at(x, y)
        if item is None:
            self.clear_selection()
            self.view.show_note("Nothing here", NOTHING_NOTE_S)
        else:
            self._select(item, self.fixed_frame())

    def _select(self, item: PickedItem, fixed: str) -> None:
        import numpy as np

        from app.scene.drawables import BOX_EDGES, CORNERS

        self.selected = item
        self.view.show_note(item.details(fixed))
        size = np.maximum(np.asarray(item.size) * SELECTION_MARGIN, MARKER_SIZE_M)
        corners = CORNERS * size + np.asarray(item.position)
        x, y, z = item.position
        top = z + size[2] / 2
        stalk = np.array([(x, y, top), (x, y, top + STALK_M)])
        edges = np.vstack([corners[BOX_EDGES].reshape(-1, 3), stalk])
        self._selection_version += 1
        group = self.view.group(SELECTION_GROUP)
        group.set_segments(edges, np.tile(SELECTION_COLOUR, (len(edges), 1)),
                           self._selection_version, SELECTION_WIDTH)
        group.set_visible(True)

    def clear_selection(self) -> None:
        """No item selected: its highlight and details go."""
        self.selected = None
        self.view.remove_group(SELECTION_GROUP)
        self.view.hide_note()

    # -- the layer list ------------------------------------------------------------------------
    def layer_status(self, key: str, batch: FrameBatch) -> tuple[str, str]:
        """(text, colour) of a layer's state: hidden, error, not drawn, waiting, nothing to
        draw, stale, ok; only faults (error, not drawn) are in the error colour, and not a
        wait for what comes by itself (the earth's datum)."""
        layer = self._wanted.get(key)
        if layer is None:
            return "not a layer", DIM_COLOUR
        if not self._style(key).visible:
            return "hidden", DIM_COLOUR
        if layer.error:
            return f"error: {layer.error}", ERROR_COLOUR
        if layer.frame_problem:  # waiting for the datum is no fault: it comes by itself
            return f"not drawn: {layer.frame_problem}", \
                WARN_COLOUR if layer.frame_problem.endswith(" yet") else ERROR_COLOUR
        if layer.version < 0:
            return "waiting for data", DIM_COLOUR
        if layer.empty:
            return "nothing to draw", DIM_COLOUR
        stats = batch.topics.get(key)
        age = stats.age_s(batch.now) if stats is not None else None
        if stats is not None and age is not None and \
                age > max(STALE_AFTER_S, 3 / max(stats.rate_hz(batch.now), 1e-3)):
            return f"stale ({age:.0f} s)", WARN_COLOUR
        lane = batch.lanes.get(key)
        notes = [f"{lane.dropped} dropped"] if lane is not None and lane.dropped else []
        if layer.inexact:
            notes.append("latest transform used")
        return " · ".join(["ok", *notes]), OK_COLOUR

    def _show_layers(self, batch: FrameBatch) -> None:
        self.layer_list.blockSignals(True)
        keys = list(self._wanted)
        if [item.data(0, Qt.ItemDataRole.UserRole) for item in self._layer_items()] != keys:
            self.layer_list.clear()
            for key in keys:
                item = QTreeWidgetItem([key.removeprefix(f"{self.host.station.root}/"), ""])
                item.setData(0, Qt.ItemDataRole.UserRole, key)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setToolTip(0, f"{key}\n{self._wanted[key].type_name}")
                self.layer_list.addTopLevelItem(item)
        for item in self._layer_items():
            key = item.data(0, Qt.ItemDataRole.UserRole)
            layer = self._wanted[key]
            style = self._style(key)
            item.setCheckState(0, Qt.CheckState.Checked if style.visible
                               else Qt.CheckState.Unchecked)
            colour = style.color or layer.color
            item.setForeground(0, QColor.fromRgbF(*colour[:3]))
            text, status_colour = self.layer_status(key, batch)
            item.setText(1, text)
            item.setToolTip(1, text)
            item.setForeground(1, QColor(status_colour))
        self.layer_list.blockSignals(False)

    def _layer_items(self) -> list[QTreeWidgetItem]:
        items = (self.layer_list.topLevelItem(i)
                 for i in range(self.layer_list.topLevelItemCount()))
        return [item for item in items if item is not None]  # none is: i < count

    def _on_item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        key = item.data(0, Qt.ItemDataRole.UserRole)
        if key and column == 0:
            self._style(key).visible = item.checkState(0) == Qt.CheckState.Checked

    def _layer_menu(self, pos: QPoint) -> None:
        item = self.layer_list.itemAt(pos)
        if item is None:
            return
        key = item.data(0, Qt.ItemDataRole.UserRole)
        style = self._style(key)
        menu = QMenu(self)
        menu.addAction("Colour…", lambda: self._pick_colour(key))
        menu.addAction("Point size…", lambda: self._pick_size(key))
        menu.addAction("Voxel decimation…", lambda: self._pick_voxel(key))
        by = menu.addMenu("Colour points by")
        for mode in ("auto", "height", "value", "rgb", "flat"):
            action = QAction(mode, by, checkable=True, checked=style.color_by == mode)
            action.triggered.connect(lambda _=False, m=mode: self._set_color_by(key, m))
            by.addAction(action)
        if key in self._extra:
            menu.addAction("Remove", lambda: self._remove_extra(key))
        menu.exec(self.layer_list.viewport().mapToGlobal(pos))

    def _pick_colour(self, key: str) -> None:
        layer = self._wanted.get(key)
        start = self._style(key).color or (layer.color if layer else (1, 1, 1, 1))
        colour = QColorDialog.getColor(QColor.fromRgbF(*start), self, "Layer colour")
        if colour.isValid():
            self._style(key).color = (colour.redF(), colour.greenF(), colour.blueF(), 1.0)

    def _pick_size(self, key: str) -> None:
        size, ok = QInputDialog.getDouble(self, "Point size", "Pixels:",
                                          self._style(key).point_size, 0.5, 20, 1)
        if ok:
            self._style(key).point_size = size

    def _pick_voxel(self, key: str) -> None:
        size, ok = QInputDialog.getDouble(
            self, "Voxel decimation", "Keep one point per cube of (m; 0 = every point):",
            self._style(key).voxel_m, 0.0, 10.0, 2)
        if ok:
            self.set_voxel(key, size)

    def set_voxel(self, key: str, size_m: float) -> None:
        """Clouds of this layer kept to one point per ``size_m`` cube (0: all), decimated
        on the topic's lane, before they reach the GUI thread."""
        self._style(key).voxel_m = max(0.0, float(size_m))

    def _set_color_by(self, key: str, mode: str) -> None:
        self._style(key).color_by = mode


def _picked(matrix: np.ndarray, pick: Pick, index: int, layer: Layer,
            frame: str) -> PickedItem:
    x, y, z = (float(v) for v in matrix[:3, :3] @ pick.position[:3] + matrix[:3, 3])
    sx, sy, sz = (float(v) for v in pick.size[:3])
    return PickedItem(layer.key, layer.type_name, frame, pick.text, index, (x, y, z),
                      (sx, sy, sz))


def _same_item(item: PickedItem, items: list[PickedItem]) -> PickedItem | None:
    """The item as now placed: of the same topic and text, the one nearest where it was."""
    import math

    same = [i for i in items if i.key == item.key and i.text == item.text]
    return min(same, key=lambda i: math.dist(i.position, item.position), default=None)
