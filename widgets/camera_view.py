"""An image view with overlays: fit, 1:1, zoom at the cursor, pan, rotate, flip.

Raster painting (QPainter), not OpenGL: a frame costs one ``drawImage`` of a QImage laid over
the decoded array (no copy) plus one of its overlays' layer, drawn on a thread of their own
(``widgets.overlay_layers``), and the view never forces the window into GL composition.
Overlays are in image pixels (``app.convert.camera.model``) and drawn through the same transform as
the image, so they stay on what they describe at any zoom, rotation or flip.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.convert.camera.display import UNRESAMPLED_FROM
from widgets.overlay_layers import LayerGeometry, LayerRequest, LayerThread
from widgets.overlay_painter import DrawnOverlay, OverlayPainter

BACKGROUND = QColor(18, 20, 24)
MESSAGE_BACK = QColor(0, 0, 0, 190)
GREY_VEIL = QColor(40, 42, 46, 170)
ZOOM_STEP = 1.25
ZOOM_RANGE = (0.02, 64.0)
MAX_HOLD_S = 0.25  # a picture waits at most this long for its layer of overlays


def _smooth_below(painter: QPainter, scale: float) -> None:
    """Smoothing where a picture is drawn well below its size keeps fine detail from
    aliasing; near its size it would only blur it, and above it pixels stay square so an
    engineer can read them."""
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform,
                          scale < UNRESAMPLED_FROM)


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


@dataclass(frozen=True)
class _Picture:
    array: np.ndarray | None = None  # kept alive while ``image`` is drawn over it
    image: QImage | None = None
    preview_array: np.ndarray | None = None
    preview: QImage | None = None  # the picture scaled down on a worker thread
    preview_scale: float = 1.0
    size: tuple[int, int] = (0, 0)  # in image pixels
    full: Callable[[], np.ndarray] | None = None  # the picture, when only previewed

    def shown(self) -> bool:
        return self.image is not None or self.preview is not None


@dataclass(frozen=True)
class _Drawn:
    picture: _Picture
    overlays: list[DrawnOverlay]
    version: int


class _LayerDelivery(QObject):
    """Carries drawn layers from their thread to the GUI thread (a queued signal)."""

    ready = Signal(object)


class CameraView(QWidget):
    hovered = Signal(float, float)  # the image pixel under the cursor; NaN when off the image

    def __init__(self) -> None:
        super().__init__()
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(160, 120)
        self._picture = _Picture()  # the newest
        self._overlays: list[DrawnOverlay] = []  # the newest
        self._version = 0  # one more for each new picture or set of overlays
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)  # paints its every pixel
        # What the paints show: the newest, except while a layer of overlays for the newest
        # is being drawn (the picture waits for its overlays, so they never lag behind it).
        self._drawn = _Drawn(_Picture(), [], 0)
        self._pending: LayerRequest | None = None  # the newest layer asked for
        self._layer: LayerRequest | None = None  # the newest layer drawn
        self._layer_failed = False  # the newest layer could not be drawn
        self._overlay_painter = OverlayPainter()  # overlays painted here, not as a layer
        self._delivery = _LayerDelivery()
        self._delivery.ready.connect(self._on_layer, Qt.ConnectionType.QueuedConnection)
        self._message = ""
        self._greyed = False
        self._fit = True
        self._scale = 1.0
        self._centre = QPointF(0.0, 0.0)  # oriented-image point at the widget's centre
        self._quarter_turns = 0
        self._flip_h = self._flip_v = False
        self._drag_from: QPointF | None = None
        self._transform = QTransform()  # image_transform(), while _transform_key holds
        self._transform_key: tuple[object, ...] = ()

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
        if image is not None:
            size = (image.shape[1], image.shape[0])
        elif size is None or preview is None:
            size = (0, 0)
        self._picture = _Picture(
            image, qimage_over(image) if image is not None else None, preview,
            qimage_over(preview) if preview is not None else None, preview_scale, size,
            full if image is None and preview is not None else None)
        self._version += 1
        if self.image_size() != old_size and not self._fit:
            self._fit = True
        self.update()

    def set_overlays(self, overlays: list[DrawnOverlay]) -> None:
        """Drawn over the picture from the next paint on; a new picture given just before
        is held back until they are drawn (a few milliseconds, on their own thread)."""
        self._overlays = overlays
        self._version += 1
        self._pending = None
        if overlays and self.has_picture():
            self._pending = self._ask_layer(hold=True)
        self.update()

    def overlays_ready(self) -> bool:
        """Whether the newest picture and overlays are what the next paint shows (the
        picture is not held back for a layer of overlays being drawn)."""
        return self._pending is None or not self._pending.hold

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
        return self._picture.size

    def has_picture(self) -> bool:
        return self._picture.shown()

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
        # Kept while nothing it depends on changes: it is asked for several times a frame,
        # and each Qt call that makes it is a chance for the GUI thread to wait for the GIL.
        key = (self._fit, self._scale, self._centre.x(), self._centre.y(), self._quarter_turns,
               self._flip_h, self._flip_v, self._picture.size, self.width(), self.height())
        if key != self._transform_key:
            scale = self.view_scale()
            centre = self._oriented_centre() if self._fit else self._centre
            self._transform = self._orientation_transform() * \
                QTransform.fromScale(scale, scale) * \
                QTransform.fromTranslate(self.width() / 2 - scale * centre.x(),
                                         self.height() / 2 - scale * centre.y())
            self._transform_key = key
        return QTransform(self._transform)

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
        picture = self._picture
        array = picture.full() if picture.image is None and picture.full is not None else None
        image = picture.image if array is None else qimage_over(array)
        if image is None:
            return out
        painter = QPainter(out)
        transform = self._orientation_transform()
        painter.setTransform(transform)
        painter.drawImage(QPointF(0, 0), image)
        painter.resetTransform()  # overlays are mapped through it as they are drawn
        self._overlay_painter.paint(painter, transform, 1.0, self._overlays, self.font())
        painter.end()
        return out

    # -- painting -----------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        drawn = self._drawn_now()
        painter = QPainter(self)
        painter.fillRect(self.rect(), BACKGROUND)
        if drawn.picture.shown():
            transform = self.image_transform()
            scale = self.view_scale()
            painter.setTransform(transform)
            self._draw_picture(painter, drawn.picture, transform, scale)
            painter.resetTransform()
            if self._greyed:
                painter.fillRect(self.rect(), GREY_VEIL)
            if drawn.overlays:
                self._draw_overlays(painter, drawn, transform, scale)
        if self._message:
            self._paint_message(painter)
        painter.end()

    @staticmethod
    def _draw_picture(painter: QPainter, picture: _Picture, transform: QTransform,
                      scale: float) -> None:
        preview, image = picture.preview, picture.image
        if image is not None and (preview is None or scale > picture.preview_scale * 1.001):
            _smooth_below(painter, scale)
            painter.drawImage(QPointF(0, 0), image)  # zoomed in past it: the full picture
            return
        # (with no full picture, a preview zoomed past stands in until the next frame's,
        # made at the new size, comes)
        assert preview is not None
        relative = scale / picture.preview_scale  # screen pixels per preview pixel
        upright = not transform.isRotating() and transform.m11() > 0 and transform.m22() > 0
        if abs(relative - 1.0) < 1e-3 and upright:
            # The preview is the picture at this very scale: copied, not scaled.
            painter.resetTransform()
            origin = transform.map(QPointF(0, 0))
            painter.drawImage(QPointF(round(origin.x()), round(origin.y())), preview)
            return
        painter.setTransform(QTransform.fromScale(1 / picture.preview_scale,
                                                  1 / picture.preview_scale) * transform)
        _smooth_below(painter, relative)
        painter.drawImage(QPointF(0, 0), preview)

    def _drawn_now(self) -> _Drawn:
        """What this paint shows: the newest, unless its layer of overlays is being drawn
        (then what was shown, for at most MAX_HOLD_S, and never across a change of size)."""
        pending = self._pending
        shown = self._drawn.picture
        if pending is not None and pending.hold and (
                (shown.shown() and shown.size != self._picture.size)
                or time.monotonic() - pending.sent > MAX_HOLD_S):
            self._pending = pending = None
        if pending is None or not pending.hold:
            self._drawn = _Drawn(self._picture, self._overlays, self._version)
        return self._drawn

    def _draw_overlays(self, painter: QPainter, drawn: _Drawn, transform: QTransform,
                       scale: float) -> None:
        layer = self._layer
        if layer is not None and layer.image is not None and \
                layer.overlays is drawn.overlays and layer.geometry == self._geometry():
            painter.drawImage(QPointF(0, 0), layer.image)
            return
        # The view moved, resized or zoomed since: painted here, and a layer for the new
        # geometry asked for the paints after.
        width, height = self.image_size()
        painter.setClipRect(transform.mapRect(QRectF(0, 0, width, height)))
        self._overlay_painter.paint(painter, transform, scale, drawn.overlays, self.font())
        painter.setClipping(False)
        if drawn.overlays is self._overlays and self._pending is None and \
                not self._layer_failed:
            self._pending = self._ask_layer(hold=False)

    def _geometry(self) -> LayerGeometry:
        transform = self.image_transform()
        width, height = self.image_size()
        clip = transform.mapRect(QRectF(0, 0, width, height))
        return LayerGeometry(
            self.width(), self.height(), self.devicePixelRatioF(),
            (transform.m11(), transform.m12(), transform.m21(), transform.m22(),
             transform.dx(), transform.dy()),
            self.view_scale(), (clip.x(), clip.y(), clip.width(), clip.height()),
            self.font().key())

    def _ask_layer(self, hold: bool) -> LayerRequest:
        request = LayerRequest(self._overlays, self._geometry(), QFont(self.font()),
                               self._version, hold, self._picture)
        LayerThread.instance().submit(id(self), request, self._delivery.ready.emit)
        return request

    def _on_layer(self, request: LayerRequest) -> None:
        held = request is self._pending
        if held:
            self._pending = None
        self._layer_failed = request.image is None
        if self._layer_failed:  # overlays are painted here instead
            if held:
                self.update()
            return
        if request.version < self._drawn.version:
            return  # something newer is shown already
        self._layer = request
        if request.hold:  # its picture and overlays are shown now, together, at once
            assert isinstance(request.picture, _Picture)
            self._drawn = _Drawn(request.picture, request.overlays, request.version)
            if self.isVisible():
                self.repaint()
                return
        self.update()

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
