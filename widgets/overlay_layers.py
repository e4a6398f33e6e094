"""Camera overlays drawn off the GUI thread, into a transparent layer the view lays over its
picture in one ``drawImage``.

The labels and outlines of a busy scene cost a camera view 5-8 ms of painting per frame
(text layout, a QPen and a path per shape): with two cameras at 20-30 fps that was a third of
the GUI thread. One thread draws the layers of every view, in the order asked; a view has at
most one request waiting (a newer one replaces it).

QPainter on a QImage is allowed on any thread, text included (Qt's font database is
thread-safe for rendering); each thread keeps its own :class:`OverlayPainter`.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QImage, QPainter, QTransform

from widgets.overlay_painter import DrawnOverlay, OverlayPainter

log = logging.getLogger(__name__)

JOIN_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class LayerGeometry:
    """Where a layer's overlays land: equal geometries draw identical layers."""

    width: int  # the view's size, in its own (logical) pixels
    height: int
    ratio: float  # device pixels per logical pixel
    transform: tuple[float, float, float, float, float, float]  # image -> view (QTransform)
    scale: float  # view pixels per image pixel
    clip: tuple[float, float, float, float]  # the picture's rectangle in the view
    font: str  # QFont.key() of the view's font

    def qtransform(self) -> QTransform:
        return QTransform(*self.transform)


@dataclass
class LayerRequest:
    overlays: list[DrawnOverlay]
    geometry: LayerGeometry
    font: QFont
    version: int  # the view's content version it was asked for
    hold: bool  # the view holds its new picture back until this layer comes
    picture: object = None  # that picture, handed back with the layer
    sent: float = field(default_factory=time.monotonic)
    image: QImage | None = None  # the layer, once drawn; None if drawing failed


def draw_layer(painter_state: OverlayPainter, request: LayerRequest,
               stop: Callable[[], bool] | None = None) -> QImage:
    geometry = request.geometry
    image = QImage(max(1, round(geometry.width * geometry.ratio)),
                   max(1, round(geometry.height * geometry.ratio)),
                   QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(geometry.ratio)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    try:
        painter.setClipRect(QRectF(*geometry.clip))
        painter_state.paint(painter, geometry.qtransform(), geometry.scale, request.overlays,
                            request.font, stop)
    finally:
        painter.end()
    return image


class LayerThread(threading.Thread):
    """Draws the layers every camera view asks for. Ended at interpreter exit, before Qt is
    torn down under a layer being drawn."""

    shared: ClassVar[LayerThread | None] = None

    def __init__(self) -> None:
        super().__init__(name="camera-overlays", daemon=True)
        self._waiting: dict[int, tuple[LayerRequest, Callable[[LayerRequest], None]]] = {}
        self._ready = threading.Condition()
        self._stopped = False

    @classmethod
    def instance(cls) -> LayerThread:
        if cls.shared is None or not cls.shared.is_alive():
            cls.shared = cls()
            cls.shared.start()
        return cls.shared

    def submit(self, owner: int, request: LayerRequest,
               deliver: Callable[[LayerRequest], None]) -> None:
        """Draws ``request`` for ``owner`` (replacing one of its own not started yet);
        ``deliver`` is called on this thread with it, drawn."""
        with self._ready:
            self._waiting.pop(owner, None)  # goes to the back of the line
            self._waiting[owner] = (request, deliver)
            self._ready.notify()

    def _stopping(self) -> bool:
        return self._stopped

    def stop_and_wait(self) -> None:
        """Ends the thread, the layer it is drawing cut short, and waits for that."""
        with self._ready:
            self._stopped = True
            self._waiting.clear()
            self._ready.notify()
        self.join(JOIN_TIMEOUT_S)

    def run(self) -> None:
        painter_state = OverlayPainter()
        while True:
            with self._ready:
                while not self._waiting and not self._stopped:
                    self._ready.wait()
                if self._stopped:
                    return
                owner = next(iter(self._waiting))
                request, deliver = self._waiting.pop(owner)
            try:
                request.image = draw_layer(painter_state, request, self._stopping)
            except Exception:  # the view paints its overlays itself instead
                log.exception("camera overlays: drawing a layer failed")
            if self._stopped:
                return
            with contextlib.suppress(RuntimeError):  # the view is gone
                deliver(request)


@atexit.register
def _end_layer_thread() -> None:
    if LayerThread.shared is not None:
        LayerThread.shared.stop_and_wait()
