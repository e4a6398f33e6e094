"""Camera panel: a robot's camera, decoded off the GUI thread, with what it saw drawn over it.

Stills (JPEG, PNG, WebP, raw and isaac images) are converted interests: the topic's lane
decodes the newest sample into a display frame. Video (foxglove ``CompressedVideo``, bow
``ImageSamples``) is a stream: this panel's consumer hands every packet, on the topic's
lane, to a stateful decoder. 2D overlays are streams too (a short history each, matched to
the image by time); 3D boxes are the 3D scene's converted models projected through the
camera's calibration and the robot's transforms. The GUI thread only swaps in finished
frames and paints.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from itertools import count
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtGui import QAction, QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMenu,
    QToolButton,
    QVBoxLayout,
)

from app.bus.keys import robot_of
from app.convert.registry import ConversionError
from app.qt.panel_api import PanelHost
from app.station.frame import FrameBatch
from app.station.interests import Converted, ConvertedValue, Interest, Stream
from panels.base import PanelBase
from widgets.user_folders import pictures_folder

if TYPE_CHECKING:
    from collections.abc import Callable

    from app.camera.projected import BoxProjector
    from app.camera.sources import Topic
    from app.camera.sync import OverlayHistory
    from app.camera.video_stream import VideoFeed
    from app.convert.camera.model import CameraFrame
    from app.station.feeds import Consumer
    from app.station.lane import Delivery
    from widgets.camera_view import CameraView

    Handler = Callable[[Delivery], None]  # takes a sample on its key's lane thread

AUTO = ""  # the camera choice that follows the active robot's first camera
FPS_WINDOW_S = 2.0
_panel_numbers = count(1)


@dataclass
class _Shown:
    """What the view shows now, for the status line."""

    frame: CameraFrame | None = None
    version: int = -1
    error: str = ""
    shown_at: list[float] = field(default_factory=list)


class CameraPanel(PanelBase):
    panel_id = "camera"
    title = "Camera"
    accepts = frozenset({"topic", "robot"})

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        from widgets.camera_view import CameraView  # numpy: when a camera opens

        self.view: CameraView = CameraView()
        self._number = next(_panel_numbers)
        self._choice = AUTO  # "key" or "key#source"; AUTO follows the active robot
        self._topics_for: tuple[str | None, str] | None = None  # (active robot, choice)
        self._camera: Topic | None = None
        self._source = ""
        self._topics: list[Topic] = []
        self._robot: str | None = None
        self._overlay_off: set[str] = set()  # overlay keys the user switched off
        self._boxes_on = True
        self._depth_range: tuple[float, float] | None = None
        self._feed: VideoFeed | None = None
        self._histories: dict[str, OverlayHistory] = {}
        self._handlers: dict[str, Handler] = {}  # key -> lane-thread handler, replaced whole
        self._projector: BoxProjector | None = None
        # what the drawn overlays were made of: (signature, the objects whose ids it holds)
        self._overlays_of: tuple[object, object] = ((), ())
        self._consumer: Consumer | None = None
        self._shown = _Shown()
        self._hover = (math.nan, math.nan)

        self.camera_box = QComboBox()
        self.camera_box.setMinimumContentsLength(10)
        self.camera_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.camera_box.setToolTip("Camera: the active robot's first camera unless chosen")
        self.camera_box.activated.connect(lambda _: self._choose(self.camera_box.currentData()))
        fit = QToolButton()
        fit.setText("Fit")
        fit.setToolTip("Fit the image to the panel (double-click the image toggles 1:1)")
        fit.clicked.connect(self.view.fit)
        one = QToolButton()
        one.setText("1:1")
        one.clicked.connect(self.view.one_to_one)
        rotate = QToolButton()
        rotate.setText("⟳ 90°")
        rotate.setToolTip("Rotate clockwise")
        rotate.clicked.connect(self._rotate)
        self.flip_h = QToolButton()
        self.flip_h.setText("⇆")
        self.flip_h.setToolTip("Flip horizontally")
        self.flip_v = QToolButton()
        self.flip_v.setText("⇅")
        self.flip_v.setToolTip("Flip vertically")
        for button in (self.flip_h, self.flip_v):
            button.setCheckable(True)
            button.toggled.connect(lambda _: self._orient())
        self.overlay_button = QToolButton()
        self.overlay_button.setText("Overlays")
        self.overlay_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.overlay_menu = QMenu(self)
        self.overlay_button.setMenu(self.overlay_menu)
        self.range_button = QToolButton()
        self.range_button.setText("Range: auto")
        self.range_button.setToolTip("Colour-map range of depth and float images")
        self.range_button.clicked.connect(self._ask_range)
        snapshot = QToolButton()
        snapshot.setText("Snapshot")
        snapshot.setToolTip("Save the image with its overlays as a PNG")
        snapshot.clicked.connect(self._ask_snapshot)
        bar = QHBoxLayout()
        bar.addWidget(self.camera_box, 1)
        for widget in (fit, one, rotate, self.flip_h, self.flip_v, self.overlay_button,
                       self.range_button, snapshot):
            bar.addWidget(widget)
        self.status_line = QLabel("no camera")
        self.status_line.setObjectName("cameraStatus")
        self.pixel_line = QLabel("")
        status = QHBoxLayout()
        status.addWidget(self.status_line, 1)
        status.addWidget(self.pixel_line)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.view, 1)
        layout.addLayout(status)
        self.view.hovered.connect(self._on_hover)

    # -- the panel contract --------------------------------------------------------------
    def interests(self) -> set[Interest]:
        wanted: set[Interest] = set()
        still = self._still_interest()  # None without a camera
        if still is not None:
            wanted.add(still)
        if self._projector is not None and self._boxes_on:
            wanted |= set(self._projector.interests())
        return wanted

    def accept_topic(self, key: str, type_name: str) -> bool:
        from app.camera.sources import CAMERA_TYPES

        if type_name and type_name not in CAMERA_TYPES:
            self.host.show_message(f"Camera: {type_name} is not an image")
            return False
        self._choose(key)
        return True

    def save_state(self) -> dict[str, Any]:
        turns, flip_h, flip_v = self.view.orientation()
        return {"camera": self._choice, "overlays_off": sorted(self._overlay_off),
                "boxes": self._boxes_on, "turns": turns, "flip_h": flip_h, "flip_v": flip_v,
                "depth_range": list(self._depth_range) if self._depth_range else None}

    def restore_state(self, state: dict[str, Any]) -> None:
        choice = state.get("camera", AUTO)
        self._choice = choice if isinstance(choice, str) else AUTO
        off = state.get("overlays_off", [])
        self._overlay_off = {k for k in off if isinstance(k, str)} if isinstance(off, list) \
            else set()
        self._boxes_on = state.get("boxes", True) is not False
        depth = state.get("depth_range")
        if isinstance(depth, list) and len(depth) == 2 and all(
                isinstance(v, int | float) and math.isfinite(v) for v in depth) \
                and depth[0] < depth[1]:
            self._depth_range = (float(depth[0]), float(depth[1]))
        self._show_range()
        turns = state.get("turns", 0)
        self.flip_h.setChecked(state.get("flip_h") is True)
        self.flip_v.setChecked(state.get("flip_v") is True)
        self.view.set_orientation(turns if isinstance(turns, int) else 0,
                                  self.flip_h.isChecked(), self.flip_v.isChecked())

    def on_frame(self, batch: FrameBatch) -> None:
        # The robots and topics of a batch change only with its tables (twice a second):
        # scanning them costs a fleet's worth of topics, so only then or on a new choice.
        if batch.tables_changed or self._topics_for != (batch.active_robot, self._choice):
            self._topics_for = (batch.active_robot, self._choice)
            self._refresh_topics(batch)
        frame, stamp, error, dropped = self._current(batch)
        new_picture = frame is not None and frame is not self._shown.frame
        self._show(frame, error)
        self._draw_overlays(batch, frame, stamp)
        self._show_status(frame, stamp, dropped)
        if new_picture and self.view.overlays_ready() and self.view.isVisible():
            # Painted now, not when the window's other panels have had their turn and Qt
            # gets round to its repaints (about a millisecond later): this is the robot's view.
            self.view.repaint()

    def shutdown(self) -> None:
        if self._consumer is not None:
            self._consumer.close()
            self._consumer = None

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._want_streams()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        if self._consumer is not None:
            self._consumer.want(set())  # a hidden camera costs nothing

    # -- topics --------------------------------------------------------------------------
    def _refresh_topics(self, batch: FrameBatch) -> None:
        from app.camera.sources import Topic, cameras

        online = [r for r in batch.robots if r.online]
        robot = batch.active_robot or (online[0].robot_id if len(online) == 1 else None)
        root = self.host.station.root
        chosen_key = self._choice.split("#", 1)[0]
        shown = {robot, robot_of(chosen_key, root)}
        topics: dict[str, Topic] = {}
        for info in batch.robots:
            if info.robot_id in shown and info.catalog:
                for topic in info.catalog.topics:
                    topics[topic.key] = Topic(topic.key, topic.type, topic.frame_id)
        for key, stats in batch.topics.items():
            if key not in topics and stats.type_name and robot_of(key, root) in shown:
                topics[key] = Topic(key, stats.type_name)
        self._topics = list(topics.values())
        self._robot = robot
        found = cameras(self._topics)
        camera = next((t for t in found if t.key == chosen_key), None) if self._choice \
            else (found[0] if found else None)
        source = self._choice.split("#", 1)[1] if "#" in self._choice else ""
        self._fill_camera_box(found)
        same = camera is not None and self._camera is not None and \
            camera.key == self._camera.key and source == self._source
        if same:
            self._camera = camera  # what the catalog says of it may have come since
            self._update_overlay_sources()
        elif camera != self._camera or source != self._source:
            self._switch(camera, source)

    def _fill_camera_box(self, found: list[Topic]) -> None:
        entries = [("Automatic (first camera)", AUTO)]
        for topic in found:
            entries.append((f"{topic.key}  ({topic.type_name})", topic.key))
            sources = self._feed.sources() if self._feed is not None and \
                self._camera is not None and self._camera.key == topic.key else []
            entries += [(f"{topic.key} · {s}", f"{topic.key}#{s}") for s in sources]
        if self._choice and all(data != self._choice for _, data in entries):
            entries.append((f"{self._choice} (not seen)", self._choice))
        current = [(self.camera_box.itemText(i), self.camera_box.itemData(i))
                   for i in range(self.camera_box.count())]
        if current != entries:
            self.camera_box.blockSignals(True)
            self.camera_box.clear()
            for text, data in entries:
                self.camera_box.addItem(text, data)
            self.camera_box.blockSignals(False)
        self.camera_box.setCurrentIndex(max(self.camera_box.findData(self._choice), 0))

    def _choose(self, choice: object) -> None:  # the camera box's data
        self._choice = choice if isinstance(choice, str) else AUTO
        self._camera = None
        self._topics_for = None  # re-chosen at the next frame

    def _switch(self, camera: Topic | None, source: str) -> None:
        from app.camera.projected import BoxProjector
        from app.camera.sources import VIDEO_TYPES

        self._camera, self._source = camera, source
        self._feed = None
        if camera is not None and camera.type_name in VIDEO_TYPES:
            from app.camera.video_stream import VideoFeed  # PyAV: when a video is shown

            self._feed = VideoFeed(source, on_picture=self.host.station.wake)
        self._projector = BoxProjector(self._robot or "") if camera is not None else None
        self._shown = _Shown()
        self.view.set_image(None)
        self.view.set_overlays([])
        self._histories = {}
        self._update_overlay_sources()

    def _update_overlay_sources(self) -> None:
        from app.camera.sources import overlays_for
        from app.camera.sync import OverlayHistory

        if self._camera is None:
            self._handlers = {}
            self._want_streams()
            return
        overlay_topics = overlays_for(self._camera, self._topics)
        histories = {t.key: self._histories.get(t.key) or OverlayHistory()
                     for t in overlay_topics}
        self._histories = histories
        handlers: dict[str, Handler] = {key: _overlay_handler(h)
                                        for key, h in histories.items()}
        if self._feed is not None:
            handlers[self._camera.key] = self._feed.on_delivery
        if self._projector is not None:
            self._projector.set_topics(self._topics, self._camera)
        if handlers.keys() != self._handlers.keys():
            self._handlers = handlers
            self._want_streams()
            self._fill_overlay_menu()

    def _want_streams(self) -> None:
        if not self.isVisible():
            return
        if self._consumer is None:
            self._consumer = self.host.station.consumer(
                f"camera panel {self._number}", on_sample=self._on_sample)
        self._consumer.want({Stream(key) for key in self._handlers
                             if key not in self._overlay_off})

    def _on_sample(self, delivery: Delivery) -> None:  # on the key's lane thread
        handler = self._handlers.get(delivery.sample.key)
        if handler is not None:
            handler(delivery)

    # -- frames --------------------------------------------------------------------------
    def _still_interest(self) -> Converted | None:
        from app.camera.sources import STILL_TYPES

        if self._camera is None or self._camera.type_name not in STILL_TYPES:
            return None
        options: tuple[tuple[str, Any], ...] = (("fit", self.view.fit_size()),)
        if self._depth_range is not None:
            options += (("depth_range", self._depth_range),)
        return Converted(self._camera.key, "camera.image", options=options, prompt=True)

    def _current(self, batch: FrameBatch) -> tuple[CameraFrame | None, float, str, int]:
        """The frame to show, its time, the error to show over it, frames dropped."""
        lane = batch.lanes.get(self._camera.key) if self._camera is not None else None
        lane_dropped = lane.dropped if lane is not None else 0
        if self._feed is not None:
            self._feed.fit = self.view.fit_size()
            snapshot = self._feed.latest()
            self._feed.taken(snapshot.version)
            frame = snapshot.frame
            return (frame, frame.stamp if frame is not None else 0.0,
                    snapshot.error or snapshot.status, snapshot.dropped + lane_dropped)
        interest = self._still_interest()
        value: ConvertedValue | None = batch.converted.get(interest) if interest else None
        if value is None and self._shown.frame is not None:
            # asked again (the view was resized): the last frame stays until the next one
            frame = self._shown.frame
            return frame, frame.stamp, self._shown.error, lane_dropped
        if value is None or value.value is None:
            return None, 0.0, value.error if value is not None else "", lane_dropped
        frame = cast("CameraFrame", value.value)  # what the camera.image converter makes
        return frame, frame.stamp or value.stamp, value.error, lane_dropped

    def _show(self, frame: CameraFrame | None, error: str) -> None:
        if frame is not None and frame is not self._shown.frame:
            if frame.deferred:  # decoded only at the view's size
                self.view.set_image(None, frame.preview, frame.preview_scale,
                                    size=(frame.width, frame.height), full=frame.drawn)
            else:
                self.view.set_image(frame.drawn(), frame.preview, frame.preview_scale)
            self._shown.frame = frame
            now = time.monotonic()
            self._shown.shown_at = [t for t in self._shown.shown_at
                                    if now - t < FPS_WINDOW_S] + [now]
        if self._camera is None:
            self.view.set_message("No camera on this robot" if self._robot else
                                  "Choose a robot with a camera")
        elif error:
            self.view.set_message(error, grey=frame is not None)
        elif frame is None:
            self.view.set_message(f"Waiting for {self._camera.key}")
        else:
            self.view.set_message("")
        self._shown.error = error

    def _draw_overlays(self, batch: FrameBatch, frame: CameraFrame | None,
                       stamp: float) -> None:
        from widgets.overlay_painter import DrawnOverlay

        if frame is None:
            return
        matched = [(key, history.nearest(stamp)) for key, history in self._histories.items()
                   if key not in self._overlay_off]
        boxes = self._projector is not None and self._boxes_on and self._camera is not None
        sources: tuple[int, ...] = ()
        if boxes:
            assert self._projector is not None
            self._projector.take(batch)
            sources = tuple(value.version for interest in self._projector.interests()
                            if (value := batch.converted.get(interest)) is not None)
        # Redrawn when the picture or what lies over it changes, not on every tick: a
        # repaint of a large view costs milliseconds of the GUI thread. (The objects are
        # kept with their ids, so no id is reused by another while compared.)
        kept = (frame, *(m.overlay for _, m in matched if m is not None))
        signature = (tuple(map(id, kept)), stamp, boxes, sources,
                     tuple((key, m.in_sync) for key, m in matched if m is not None))
        if signature == self._overlays_of[0]:
            return
        self._overlays_of = (signature, kept)
        drawn = [DrawnOverlay(m.overlay, m.in_sync) for _, m in matched if m is not None]
        if boxes:
            assert self._projector is not None and self._camera is not None
            drawn += [DrawnOverlay(overlay, in_sync) for overlay, in_sync in
                      self._projector.overlays(frame, stamp, self._camera)]
        self.view.set_overlays(drawn)

    # -- status --------------------------------------------------------------------------
    def _show_status(self, frame: CameraFrame | None, stamp: float, dropped: int) -> None:
        if frame is None:
            self.status_line.setText(self._camera.key if self._camera else "no camera")
            return
        now = time.monotonic()
        times = [t for t in self._shown.shown_at if now - t < FPS_WINDOW_S]
        fps = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 and \
            times[-1] > times[0] else 0.0
        parts = [f"{frame.width}×{frame.height}", frame.encoding, f"{fps:.1f} fps",
                 f"decode {frame.decode_s * 1000:.1f} ms"]
        if stamp > 0:
            parts.append(f"latency {(self.host.station.now() - stamp) * 1000:.0f} ms")
        parts.append(f"dropped {dropped}")
        if frame.value_range is not None:
            low, high = frame.value_range
            parts.append(f"range {low:.3g}–{high:.3g} {frame.value_unit}".rstrip())
        if self._projector is not None and self._boxes_on and self._projector.problem:
            parts.append(self._projector.problem)
        parts += [f"{key.rsplit('/', 1)[-1]}: {history.error}"
                  for key, history in self._histories.items() if history.error]
        self.status_line.setText("  ·  ".join(p for p in parts if p))

    def _on_hover(self, x: float, y: float) -> None:
        frame = self._shown.frame
        if frame is None or not (math.isfinite(x) and math.isfinite(y)):
            self.pixel_line.setText("")
            return
        col, row = int(x), int(y)
        try:  # a picture decoded only at the view's size is decoded in full here, once
            source = frame.values if frame.values is not None else frame.pixels()
        except ConversionError as exc:
            self.pixel_line.setText(f"no pixel values: {exc}")
            return
        if not (0 <= row < source.shape[0] and 0 <= col < source.shape[1]):
            self.pixel_line.setText("")
            return
        value = source[row, col]
        text = " ".join(f"{v:.4g}" for v in value.ravel()[:4]) if value.ndim else \
            f"{value:.4g}"
        if frame.values is not None and frame.value_unit:
            text += f" {frame.value_unit}"
        self.pixel_line.setText(f"({col}, {row}): {text}")

    # -- controls ------------------------------------------------------------------------
    def _rotate(self) -> None:
        turns, flip_h, flip_v = self.view.orientation()
        self.view.set_orientation(turns + 1, flip_h, flip_v)

    def _orient(self) -> None:
        turns, _, _ = self.view.orientation()
        self.view.set_orientation(turns, self.flip_h.isChecked(), self.flip_v.isChecked())

    def _fill_overlay_menu(self) -> None:
        self.overlay_menu.clear()
        for key in self._histories:
            action = QAction(key, self.overlay_menu, checkable=True)
            action.setChecked(key not in self._overlay_off)
            action.toggled.connect(lambda on, k=key: self._toggle_overlay(k, on))
            self.overlay_menu.addAction(action)
        boxes = QAction("3D boxes (projected)", self.overlay_menu, checkable=True)
        boxes.setChecked(self._boxes_on)
        boxes.toggled.connect(self._toggle_boxes)
        self.overlay_menu.addAction(boxes)

    def _toggle_overlay(self, key: str, on: bool) -> None:
        if on:
            self._overlay_off.discard(key)
        else:
            self._overlay_off.add(key)
        self._want_streams()

    def _toggle_boxes(self, on: bool) -> None:
        self._boxes_on = on

    def _ask_range(self) -> None:
        text, ok = QInputDialog.getText(
            self, "Colour-map range", "Range as 'low high' (empty: automatic)",
            text="" if self._depth_range is None else
            f"{self._depth_range[0]:g} {self._depth_range[1]:g}")
        if ok:
            self.set_depth_range(text)

    def set_depth_range(self, text: str) -> bool:
        """'low high' fixes the colour map's range, '' makes it automatic."""
        parts = text.replace(",", " ").split()
        if not parts:
            self._depth_range = None
        else:
            try:
                low, high = (float(p) for p in parts)
            except ValueError:
                self.host.show_message("Range: give two numbers, low and high")
                return False
            if not (math.isfinite(low) and math.isfinite(high) and low < high):
                self.host.show_message("Range: low must be below high")
                return False
            self._depth_range = (low, high)
        self._show_range()
        return True

    def _show_range(self) -> None:
        self.range_button.setText("Range: auto" if self._depth_range is None else
                                  f"Range: {self._depth_range[0]:g}–{self._depth_range[1]:g}")

    def _ask_snapshot(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save snapshot",
                                              str(pictures_folder() / self._snapshot_name()),
                                              "PNG images (*.png)")
        if path:
            self.save_snapshot(path)

    def _snapshot_name(self) -> str:
        """Never the last snapshot's name: the camera's key (less its root), then the time."""
        where = "-".join(self._camera.key.split("/")[1:]) if self._camera else "camera"
        return f"{where or 'camera'} {time.strftime('%Y-%m-%d %H%M%S')}.png"

    def save_snapshot(self, path: str) -> bool:
        if self._shown.frame is None:
            self.host.show_message("Snapshot: no image yet")
            return False
        try:
            # PySide6 6.11's stub types ``format`` as bytes, but the call takes only str
            saved = self.view.snapshot().save(path, "PNG")  # type: ignore[call-overload]
        except ConversionError as exc:  # the full picture of a preview did not decode
            self.host.show_message(f"Snapshot: {exc}")
            return False
        self.host.show_message(f"Snapshot saved to {path}" if saved else
                               f"Snapshot: cannot write {path}")
        return saved


def _overlay_handler(history: OverlayHistory) -> Handler:
    def handle(delivery: Delivery) -> None:
        from app.camera.sync import take_overlay

        take_overlay(history, delivery)

    return handle
