"""Overlays drawn with a QPainter: shapes in image pixels mapped through the view's transform.

Outlines keep their width on screen and texts stay upright and readable whatever the zoom,
turn or flip. One painter per thread: it keeps its pens, brushes and each label drawn as a
small image between paints (the same labels come back every frame, and laying out and
drawing a text cost ten times laying an image down: 1 s of every 10 on the overlay thread of
a busy Teleop station).
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Sequence

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPen,
    QPolygonF,
    QTransform,
)

from app.convert.camera.model import RGBA, ImageOverlay, Shape

OUT_OF_SYNC_ALPHA = 0.45
MIN_TEXT_PX = 9.0
POINT_PX = 5.0
MAX_LABEL_MOVES = 4  # a label moves down past at most this many others, then overlaps
MAX_PLACED_LABELS = 300  # labels moved clear of the others; any more are drawn where they are
MAX_KEPT = 1024  # label images (and pens, brushes) kept; forgotten all at once past this

log = logging.getLogger(__name__)


class DrawnOverlay:
    """An overlay as the view draws it: ``in_sync`` False draws it faded and dashed.

    ``overlay`` may be a function that makes it (3D boxes to project): it is called once,
    where the overlays are first drawn — on the layer thread, off the GUI thread. One that
    fails draws nothing, and says why in the log."""

    def __init__(self, overlay: ImageOverlay | Callable[[], ImageOverlay],
                 in_sync: bool = True) -> None:
        self.in_sync = in_sync
        self._overlay: ImageOverlay | None = None
        self._make: Callable[[], ImageOverlay] | None = None
        if isinstance(overlay, ImageOverlay):
            self._overlay = overlay
        else:
            self._make = overlay
        self._lock = threading.Lock()

    @property
    def overlay(self) -> ImageOverlay:
        with self._lock:
            if self._overlay is None:
                make, self._make = self._make, None
                assert make is not None
                try:
                    self._overlay = make()
                except Exception:
                    log.exception("camera overlays: making an overlay failed")
                    self._overlay = ImageOverlay(())
            return self._overlay


class OverlayPainter:
    def __init__(self) -> None:
        self._labels: list[QRectF] = []  # where the paint under way put its texts so far
        self._fonts: dict[int, QFont] = {}  # by pixel size
        self._label_images: dict[tuple[object, ...], QImage] = {}  # see _label_image
        self._pens: dict[tuple[object, ...], QPen] = {}
        self._brushes: dict[tuple[object, ...], QBrush] = {}
        self._font = QFont()

    def paint(self, painter: QPainter, transform: QTransform, scale: float,
              overlays: Sequence[DrawnOverlay], font: QFont,
              stop: Callable[[], bool] | None = None) -> None:
        """``transform``: image pixels -> the painter's; ``scale``: its pixels per image
        pixel; ``font``: what labels are drawn in, at their own pixel sizes; ``stop``: asked
        between shapes, ends the paint early when it says so."""
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self._labels = []
        if self._font != font or len(self._label_images) > MAX_KEPT:
            self._font = QFont(font)
            self._fonts.clear()
            self._label_images.clear()
        if len(self._pens) + len(self._brushes) > MAX_KEPT:
            self._pens.clear()
            self._brushes.clear()
        for drawn in overlays:
            alpha = 1.0 if drawn.in_sync else OUT_OF_SYNC_ALPHA
            style = Qt.PenStyle.SolidLine if drawn.in_sync else Qt.PenStyle.DashLine
            for shape in drawn.overlay.shapes:
                if stop is not None and stop():
                    break
                self._paint_shape(painter, transform, scale, shape, alpha, style)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)

    def _paint_shape(self, painter: QPainter, transform: QTransform, scale: float,
                     shape: Shape, alpha: float, style: Qt.PenStyle) -> None:
        xy = np.asarray(shape.xy, dtype=np.float64).reshape(-1, 2)
        if len(xy) == 0:
            return
        kind = shape.kind
        if kind == "text":  # one point; its label image has its colours
            anchor = transform.map(QPointF(float(xy[0, 0]), float(xy[0, 1])))
            self._paint_text(painter, shape, anchor, scale, alpha)
            return
        points = [QPointF(x, y) for x, y in _mapped(transform, xy).tolist()]
        pen = self._pen(shape.color, alpha, shape.thickness, style)
        painter.setPen(pen)
        painter.setBrush(self._brush(shape.fill, alpha))
        if kind == "box" and len(points) >= 2:
            painter.drawPolygon(QPolygonF(_box_corners(transform, xy[0], xy[1])))
        elif kind == "circle":
            radius = max(shape.size, 0.0) / 2 * scale
            painter.drawEllipse(points[0], radius, radius)
        elif kind == "points":
            self._paint_points(painter, shape, points, alpha)
        elif kind == "line_strip":
            painter.drawPolyline(QPolygonF(points))
        elif kind in ("line_loop", "polygon"):
            painter.drawPolygon(QPolygonF(points))
        elif kind == "line_list":
            self._paint_segments(painter, shape, points, QPen(pen))

    def _pen(self, color: RGBA, alpha: float, thickness: float, style: Qt.PenStyle) -> QPen:
        """A cosmetic pen (its width in screen pixels), kept between paints."""
        key = (tuple(color), alpha, thickness, style)
        pen = self._pens.get(key)
        if pen is None:
            pen = self._pens[key] = QPen(_qcolor(color, alpha), max(thickness, 1.0))
            pen.setStyle(style)
            pen.setCosmetic(True)
        return pen

    def _brush(self, fill: RGBA | None, alpha: float) -> QBrush:
        key = (None if fill is None else tuple(fill), alpha)
        brush = self._brushes.get(key)
        if brush is None:
            brush = self._brushes[key] = QBrush(Qt.BrushStyle.NoBrush) if fill is None else \
                QBrush(_qcolor(fill, alpha))
        return brush

    def _paint_points(self, painter: QPainter, shape: Shape, points: list[QPointF],
                      alpha: float) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        radius = max(shape.thickness, POINT_PX) / 2
        for index, point in enumerate(points):
            colour = shape.colors[index] if shape.colors is not None and \
                index < len(shape.colors) else shape.color
            painter.setBrush(_qcolor(tuple(colour), alpha))
            painter.drawEllipse(point, radius, radius)

    def _paint_segments(self, painter: QPainter, shape: Shape, points: list[QPointF],
                        pen: QPen) -> None:
        if shape.colors is None:
            painter.drawLines(points[:len(points) // 2 * 2])
            return
        for index in range(0, len(points) - 1, 2):
            if index < len(shape.colors):
                pen.setColor(_qcolor(tuple(shape.colors[index])))
                painter.setPen(pen)
            painter.drawLine(points[index], points[index + 1])

    def _paint_text(self, painter: QPainter, shape: Shape, anchor: QPointF, scale: float,
                    alpha: float) -> None:
        pixels = round(max((shape.size or 12.0) * scale, MIN_TEXT_PX))
        ratio = painter.device().devicePixelRatioF()
        key = (pixels, shape.text, tuple(shape.color),
               None if shape.fill is None else tuple(shape.fill), alpha, ratio)
        label = self._label_images.get(key)
        if label is None:
            label = self._label_images[key] = self._label_image(shape, pixels, alpha, ratio)
        box = self._free_place(QRectF(anchor + QPointF(-2, -1), label.deviceIndependentSize()))
        painter.drawImage(box.topLeft(), label)

    def _label_image(self, shape: Shape, pixels: int, alpha: float, ratio: float) -> QImage:
        """The label as drawn: its text centred on its fill, a pixel or two around it."""
        font = self._fonts.get(pixels)
        if font is None:
            font = self._fonts[pixels] = QFont(self._font)
            font.setPixelSize(pixels)
        text = QFontMetricsF(font).size(0, shape.text)
        box = QRectF(0, 0, text.width() + 4, text.height() + 2)
        image = QImage(max(1, math.ceil(box.width() * ratio)),
                       max(1, math.ceil(box.height() * ratio)),
                       QImage.Format.Format_ARGB32_Premultiplied)
        image.setDevicePixelRatio(ratio)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        if shape.fill is not None:
            painter.fillRect(box, _qcolor(shape.fill, alpha))
        painter.setFont(font)
        painter.setPen(_qcolor(shape.color, alpha))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, shape.text)
        painter.end()
        return image

    def _free_place(self, box: QRectF) -> QRectF:
        """``box``, moved down below the labels it would cover: two sources often name the
        same object at the same corner (a detection and its projected 3D box). Past
        MAX_PLACED_LABELS labels stay where they are (each is compared with all before it)."""
        if len(self._labels) >= MAX_PLACED_LABELS:
            return box
        for _ in range(MAX_LABEL_MOVES):
            covered = [label for label in self._labels if label.intersects(box)]
            if not covered:
                break
            box.moveTop(max(label.bottom() for label in covered))
        self._labels.append(box)
        return box


def _qcolor(rgba: RGBA, alpha: float = 1.0) -> QColor:
    r, g, b, a = (min(max(float(c), 0.0), 1.0) if math.isfinite(c) else 0.0 for c in rgba)
    return QColor.fromRgbF(r, g, b, a * alpha)


def _mapped(transform: QTransform, xy: np.ndarray) -> np.ndarray:
    """(N, 2) points through an affine ``transform`` (what ``transform.map`` does to each)."""
    linear = np.array([[transform.m11(), transform.m12()], [transform.m21(), transform.m22()]])
    return xy @ linear + (transform.dx(), transform.dy())


def _box_corners(transform: QTransform, top_left: np.ndarray,
                 bottom_right: np.ndarray) -> list[QPointF]:
    (x0, y0), (x1, y1) = top_left, bottom_right
    return [transform.map(QPointF(float(x), float(y)))
            for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
