"""An image view with an overlay painter: fit, 1:1, zoom at the cursor, pan, rotate, flip.

Raster painting (QPainter), not OpenGL: a frame costs one ``drawImage`` of a QImage laid over
the decoded array (no copy) plus the overlays, and the view never forces the window into GL
composition. Overlays are in image pixels (``app.camera.model``) and drawn through the same
transform as the image, so they stay on what they describe at any zoom, rotation or flip;
outlines keep their width on screen and texts stay upright and readable.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPolygonF,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.camera.model import RGBA, ImageOverlay, Shape

BACKGROUND = QColor(18, 20, 24)
MESSAGE_BACK = QColor(0, 0, 0, 190)
GREY_VEIL = QColor(40, 42, 46, 170)
OUT_OF_SYNC_ALPHA = 0.45
ZOOM_STEP = 1.25
ZOOM_RANGE = (0.02, 64.0)
MIN_TEXT_PX = 9.0
POINT_PX = 5.0
MAX_LABEL_MOVES = 4  # a label moves down past at most this many others, then overlaps
MAX_TEXT_SIZES = 2048  # remembered label sizes; forgotten all at once past this


@dataclass(frozen=True)
class DrawnOverlay:
    """An overlay as the view draws it: ``in_sync`` False draws it faded and dashed."""

    overlay: ImageOverlay
    in_sync: bool = True


def qimage_over(array: np.ndarray) -> QImage:
    """A QImage over ``array``'s memory (no copy: keep the array alive while it is used).
    uint8 (H, W) grey, (H, W, 3) RGB or (H, W, 4) B, G, R, X bytes — Qt's RGB32, the
    format it draws and scales fastest."""
    if array.dtype != np.uint8 or array.ndim not in (2, 3):
        raise ValueError(f"cannot show an array of {array.dtype} {array.shape}")
    channels = 1 if array.ndim == 2 else array.shape[2]
    formats = {1: QImage.Format.Format_Grayscale8, 3: QImage.Format.Format_RGB888,
               4: QImage.Format.Format_RGB32}
    if channels not in formats:
        raise ValueError(f"cannot show an image of {channels} channels")
    if array.strides[-1] != 1 or (array.ndim == 3 and array.strides[1] != channels):
        array = np.ascontiguousarray(array)
    height, width = array.shape[:2]
    return QImage(array.data, width, height, array.strides[0], formats[channels])


def _qcolor(rgba: RGBA, alpha: float = 1.0) -> QColor:
    r, g, b, a = (min(max(float(c), 0.0), 1.0) if math.isfinite(c) else 0.0 for c in rgba)
    return QColor.fromRgbF(r, g, b, a * alpha)


class CameraView(QWidget):
    hovered = Signal(float, float)  # the image pixel under the cursor; NaN when off the image

    def __init__(self) -> None:
        super().__init__()
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(160, 120)
        self._array: np.ndarray | None = None
        self._image: QImage | None = None
        self._preview: QImage | None = None  # the image scaled down on a worker thread
        self._preview_array: np.ndarray | None = None
        self._preview_scale = 1.0
        self._size = (0, 0)  # the picture's, in image pixels
        self._full: Callable[[], np.ndarray] | None = None  # the picture when only previewed
        self._overlays: list[DrawnOverlay] = []
        self._labels: list[QRectF] = []  # where the paint under way put its texts so far
        # Laying out a label's text costs more than drawing it, and the same labels come
        # back every frame: fonts by pixel size, text sizes by (pixel size, text).
        self._fonts: dict[int, QFont] = {}
        self._text_sizes: dict[tuple[int, str], QSizeF] = {}
        self._fonts_of = QFont()
        self._message = ""
        self._greyed = False
        self._fit = True
        self._scale = 1.0
        self._centre = QPointF(0.0, 0.0)  # oriented-image point at the widget's centre
        self._quarter_turns = 0
        self._flip_h = self._flip_v = False
        self._drag_from: QPointF | None = None

    # -- content ------------------------------------------------------------------------------
    def set_image(self, image: np.ndarray | None, preview: np.ndarray | None = None,
                  preview_scale: float = 1.0, *, size: tuple[int, int] | None = None,
                  full: Callable[[], np.ndarray] | None = None) -> None:
        """``preview``: the same picture scaled by ``preview_scale`` (< 1), drawn instead of
        it while the view shows it at about that scale (the size :meth:`fit_size` asks for).
        A picture decoded only at the preview's size comes as no ``image``, its ``size``
        (width, height) and ``full``, which decodes it (for a snapshot)."""
        old_size = self.image_size()
        if image is None and size is None:
            preview = None
        self._array = image
        self._image = qimage_over(image) if image is not None else None
        self._preview_array = preview
        self._preview = qimage_over(preview) if preview is not None else None
        self._preview_scale = preview_scale
        self._full = full if image is None and preview is not None else None
        if image is not None:
            self._size = (image.shape[1], image.shape[0])
        else:
            self._size = size if size is not None and preview is not None else (0, 0)
        if self.image_size() != old_size and not self._fit:
            self._fit = True
        self.update()

    def set_overlays(self, overlays: list[DrawnOverlay]) -> None:
        self._overlays = overlays
        self.update()

    def set_message(self, text: str, grey: bool = False) -> None:
        """A message over the image (a decode error, waiting for a key frame); ``grey``
        veils the last good frame behind it."""
        if (text, grey) != (self._message, self._greyed):
            self._message, self._greyed = text, grey
            self.update()

    def fit_size(self) -> tuple[int, int]:
        """The size in screen pixels, in the picture's own orientation, that a preview is
        made to fit: the widget's while the picture fits it, the picture's as zoomed (at
        most its own size) while zoomed or panned."""
        ratio = self.devicePixelRatioF()
        if not self._fit and self.has_picture():
            scale = min(self._scale * ratio, 1.0)
            width, height = self.image_size()
            return max(1, math.ceil(width * scale)), max(1, math.ceil(height * scale))
        width, height = round(self.width() * ratio), round(self.height() * ratio)
        return (height, width) if self._quarter_turns % 2 else (width, height)

    def image_size(self) -> tuple[int, int]:
        return self._size

    def has_picture(self) -> bool:
        return self._image is not None or self._preview is not None

    # -- view ---------------------------------------------------------------------------------
    def fit(self) -> None:
        self._fit = True
        self.update()

    def one_to_one(self) -> None:
        self._set_free(1.0, self._oriented_centre())

    def zoom_by(self, factor: float, anchor: QPointF | None = None) -> None:
        scale = self.view_scale()
        anchor = anchor if anchor is not None else QPointF(self.width() / 2, self.height() / 2)
        under = self._to_oriented(anchor, scale)
        new_scale = min(max(scale * factor, ZOOM_RANGE[0]), ZOOM_RANGE[1])
        half = QPointF(self.width() / 2, self.height() / 2)
        self._set_free(new_scale, under - (anchor - half) / new_scale)

    def pan_by(self, dx: float, dy: float) -> None:
        scale = self.view_scale()
        centre = self._centre if not self._fit else self._oriented_centre()
        self._set_free(scale, centre - QPointF(dx, dy) / scale)

    def set_orientation(self, quarter_turns: int, flip_h: bool, flip_v: bool) -> None:
        """Rotation clockwise in quarter turns, then the view refits."""
        self._quarter_turns = quarter_turns % 4
        self._flip_h, self._flip_v = flip_h, flip_v
        self._fit = True
        self.update()

    def orientation(self) -> tuple[int, bool, bool]:
        return self._quarter_turns, self._flip_h, self._flip_v

    def is_fit(self) -> bool:
        return self._fit

    def view_scale(self) -> float:
        """Screen pixels per image pixel."""
        if not self._fit:
            return self._scale
        width, height = self._oriented_size()
        if width == 0 or height == 0:
            return 1.0
        return min(self.width() / width, self.height() / height)

    def image_transform(self) -> QTransform:
        """Image pixels -> widget pixels."""
        scale = self.view_scale()
        centre = self._oriented_centre() if self._fit else self._centre
        return self._orientation_transform() * QTransform.fromScale(scale, scale) * \
            QTransform.fromTranslate(self.width() / 2 - scale * centre.x(),
                                     self.height() / 2 - scale * centre.y())

    def map_to_image(self, point: QPointF) -> tuple[float, float]:
        inverse, ok = self.image_transform().inverted()
        if not ok:
            return math.nan, math.nan
        mapped = inverse.map(point)
        return mapped.x(), mapped.y()

    def snapshot(self) -> QImage:
        """The image at its own resolution, oriented as shown, with the overlays drawn."""
        width, height = self._oriented_size()
        out = QImage(max(width, 1), max(height, 1), QImage.Format.Format_RGB32)
        out.fill(BACKGROUND)
        array = self._full() if self._image is None and self._full is not None else None
        image = self._image if array is None else qimage_over(array)
        if image is None:
            return out
        painter = QPainter(out)
        transform = self._orientation_transform()
        painter.setTransform(transform)
        painter.drawImage(QPointF(0, 0), image)
        self._paint_overlays(painter, transform, 1.0)
        painter.end()
        return out

    # -- painting -----------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), BACKGROUND)
        if self.has_picture():
            transform = self.image_transform()
            scale = self.view_scale()
            painter.setTransform(transform)
            # Below 1:1 smoothing keeps fine detail from aliasing; above, pixels stay square
            # so an engineer can read them.
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, scale < 1.0)
            self._draw_picture(painter, transform, scale)
            painter.resetTransform()
            if self._greyed:
                painter.fillRect(self.rect(), GREY_VEIL)
            width, height = self.image_size()
            # what lies outside the picture (a box half out of view) is not drawn beside it
            painter.setClipRect(transform.mapRect(QRectF(0, 0, width, height)))
            self._paint_overlays(painter, transform, scale)
            painter.setClipping(False)
        if self._message:
            self._paint_message(painter)
        painter.end()

    def _draw_picture(self, painter: QPainter, transform: QTransform, scale: float) -> None:
        preview, image = self._preview, self._image
        if image is not None and (preview is None or scale > self._preview_scale * 1.001):
            painter.drawImage(QPointF(0, 0), image)  # zoomed in past it: the full picture
            return
        # (with no full picture, a preview zoomed past stands in until the next frame's,
        # made at the new size, comes)
        assert preview is not None
        relative = scale / self._preview_scale  # screen pixels per preview pixel
        upright = not transform.isRotating() and transform.m11() > 0 and transform.m22() > 0
        if abs(relative - 1.0) < 1e-3 and upright:
            # The preview is the picture at this very scale: copied, not scaled.
            painter.resetTransform()
            origin = transform.map(QPointF(0, 0))
            painter.drawImage(QPointF(round(origin.x()), round(origin.y())), preview)
            return
        painter.setTransform(QTransform.fromScale(1 / self._preview_scale,
                                                  1 / self._preview_scale) * transform)
        painter.drawImage(QPointF(0, 0), preview)

    def _paint_overlays(self, painter: QPainter, transform: QTransform, scale: float) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self._labels = []
        if self._fonts_of != self.font() or len(self._text_sizes) > MAX_TEXT_SIZES:
            self._fonts_of = self.font()
            self._fonts.clear()
            self._text_sizes.clear()
        for drawn in self._overlays:
            alpha = 1.0 if drawn.in_sync else OUT_OF_SYNC_ALPHA
            style = Qt.PenStyle.SolidLine if drawn.in_sync else Qt.PenStyle.DashLine
            for shape in drawn.overlay.shapes:
                self._paint_shape(painter, transform, scale, shape, alpha, style)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)

    def _paint_shape(self, painter: QPainter, transform: QTransform, scale: float,
                     shape: Shape, alpha: float, style: Qt.PenStyle) -> None:
        xy = np.asarray(shape.xy, dtype=np.float64).reshape(-1, 2)
        if len(xy) == 0:
            return
        points = [QPointF(x, y) for x, y in _mapped(transform, xy).tolist()]
        pen = QPen(_qcolor(shape.color, alpha), max(shape.thickness, 1.0))
        pen.setStyle(style)
        pen.setCosmetic(True)
        painter.setPen(pen)
        fill = QBrush(_qcolor(shape.fill, alpha)) if shape.fill is not None else \
            QBrush(Qt.BrushStyle.NoBrush)
        painter.setBrush(fill)
        kind = shape.kind
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
            self._paint_segments(painter, shape, points, pen)
        elif kind == "text":
            self._paint_text(painter, shape, points[0], scale, alpha)

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
        font = self._fonts.get(pixels)
        if font is None:
            font = self._fonts[pixels] = QFont(self.font())
            font.setPixelSize(pixels)
        painter.setFont(font)
        size = self._text_sizes.get((pixels, shape.text))
        if size is None:
            size = self._text_sizes[pixels, shape.text] = QFontMetricsF(font).size(0, shape.text)
        box = self._free_place(QRectF(anchor, size).adjusted(-2, -1, 2, 1))
        if shape.fill is not None:
            painter.fillRect(box, _qcolor(shape.fill, alpha))
        painter.setPen(_qcolor(shape.color, alpha))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, shape.text)

    def _free_place(self, box: QRectF) -> QRectF:
        """``box``, moved down below the labels it would cover: two sources often name the
        same object at the same corner (a detection and its projected 3D box)."""
        for _ in range(MAX_LABEL_MOVES):
            covered = [label for label in self._labels if label.intersects(box)]
            if not covered:
                break
            box.moveTop(max(label.bottom() for label in covered))
        self._labels.append(box)
        return box

    def _paint_message(self, painter: QPainter) -> None:
        font = QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * 1.15)
        painter.setFont(font)
        metrics = QFontMetricsF(font)
        width = min(metrics.horizontalAdvance(self._message) + 24, self.width() - 16)
        box = QRectF(0, 0, width, metrics.height() * 2.6)
        box.moveCenter(QPointF(self.width() / 2, self.height() / 2))
        painter.fillRect(box, MESSAGE_BACK)
        painter.setPen(QColor(240, 240, 240))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                         self._message)

    # -- mouse --------------------------------------------------------------------------------
    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom_by(ZOOM_STEP ** steps, event.position())

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._drag_from = event.position()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._drag_from is not None:
            delta = event.position() - self._drag_from
            self._drag_from = event.position()
            self.pan_by(delta.x(), delta.y())
        x, y = self.map_to_image(event.position())
        width, height = self.image_size()
        inside = 0 <= x < width and 0 <= y < height
        self.hovered.emit(x if inside else math.nan, y if inside else math.nan)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._drag_from = None

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if self._fit:
            self.one_to_one()
        else:
            self.fit()

    def leaveEvent(self, event: object) -> None:
        self.hovered.emit(math.nan, math.nan)

    # -- geometry -----------------------------------------------------------------------------
    def _set_free(self, scale: float, centre: QPointF) -> None:
        self._fit = False
        self._scale = scale
        self._centre = centre
        self.update()

    def _oriented_size(self) -> tuple[int, int]:
        width, height = self.image_size()
        return (height, width) if self._quarter_turns % 2 else (width, height)

    def _oriented_centre(self) -> QPointF:
        width, height = self._oriented_size()
        return QPointF(width / 2, height / 2)

    def _to_oriented(self, widget_point: QPointF, scale: float) -> QPointF:
        centre = self._oriented_centre() if self._fit else self._centre
        return centre + (widget_point - QPointF(self.width() / 2, self.height() / 2)) / scale

    def _orientation_transform(self) -> QTransform:
        """Image pixels -> the oriented image's pixels (flips, then clockwise turns)."""
        width, height = self.image_size()
        flip = QTransform(-1.0 if self._flip_h else 1.0, 0.0, 0.0,
                          -1.0 if self._flip_v else 1.0,
                          width if self._flip_h else 0.0, height if self._flip_v else 0.0)
        turns = {
            0: QTransform(),
            1: QTransform(0.0, 1.0, -1.0, 0.0, height, 0.0),  # (x, y) -> (h - y, x)
            2: QTransform(-1.0, 0.0, 0.0, -1.0, width, height),
            3: QTransform(0.0, -1.0, 1.0, 0.0, 0.0, width),  # (x, y) -> (y, w - x)
        }
        return flip * turns[self._quarter_turns]


def _mapped(transform: QTransform, xy: np.ndarray) -> np.ndarray:
    """(N, 2) points through an affine ``transform`` (what ``transform.map`` does to each)."""
    linear = np.array([[transform.m11(), transform.m12()], [transform.m21(), transform.m22()]])
    return xy @ linear + (transform.dx(), transform.dy())


def _box_corners(transform: QTransform, top_left: np.ndarray,
                 bottom_right: np.ndarray) -> list[QPointF]:
    (x0, y0), (x1, y1) = top_left, bottom_right
    return [transform.map(QPointF(float(x), float(y)))
            for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
