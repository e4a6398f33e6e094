"""A vispy canvas backend that renders into an offscreen framebuffer and paints the picture
as an image, so the window around it stays a plain raster window.

Qt composes every window that holds a ``QOpenGLWidget`` through OpenGL: any repaint of any
widget in it (a camera frame, a plot) then redraws and swaps the whole window through GL.
On a software renderer (Mesa's llvmpipe: laptops without a usable GPU, remote desktops,
CI) that costs tens of milliseconds per repaint. Here only the 3D view pays for GL, and
only when it draws; the rest of the window repaints as if no GL were there.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
import vispy
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import (
    QImage,
    QOffscreenSurface,
    QOpenGLContext,
    QPainter,
    QPaintEvent,
    QResizeEvent,
)
from PySide6.QtOpenGL import QOpenGLFramebufferObject
from PySide6.QtWidgets import QWidget
from vispy.app.backends import _pyside6  # noqa: F401 (sets up vispy's Qt backend module)
from vispy.app.backends import _qt as vispy_qt
from vispy.gloo import gl

vispy.use("pyside6")
BACKEND_NAME = "qt-readback"
GL_BGRA = 0x80E1  # in memory B, G, R, A: Qt's RGB32 on little-endian machines
GL_READ_PIXELS = getattr(ctypes, "WINFUNCTYPE", ctypes.CFUNCTYPE)(  # GL's calling convention
    None, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
    ctypes.c_uint, ctypes.c_void_p)


class ReadbackCanvasBackend(vispy_qt.QtBaseCanvasBackend, QWidget):
    """A QWidget that draws its vispy canvas through an offscreen framebuffer."""

    def _init_specific(self, p: Any, kwargs: Any) -> None:
        p.context.shared.add_ref(BACKEND_NAME, self)
        QWidget.__init__(self, p.parent)
        share = p.context.shared.ref
        self._gl = QOpenGLContext()
        self._gl.setFormat(vispy_qt._set_config(p.context.config))
        if share is not self:
            self._gl.setShareContext(share._gl)
        if not self._gl.create():
            raise RuntimeError("no OpenGL context could be made for the 3D view")
        self._surface = QOffscreenSurface()
        self._surface.setFormat(self._gl.format())
        self._surface.create()
        self._fbo: QOpenGLFramebufferObject | None = None
        self._gl_initialized = False
        self._read_pixels: Any = None
        self._rows = self._upright = np.empty((0, 0, 4), np.uint8)
        self.setFocusPolicy(Qt.FocusPolicy.WheelFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self._initialized = True

    def _vispy_set_current(self) -> None:
        self._gl.makeCurrent(self._surface)

    def _vispy_swap_buffers(self) -> None:
        pass  # nothing on screen to swap: the picture is painted by paintEvent

    def _vispy_get_fb_bind_location(self) -> int:
        return self._fbo.handle() if self._fbo is not None else 0

    def _vispy_close(self) -> None:
        self.close()
        if self._fbo is not None and self._gl.makeCurrent(self._surface):
            self._fbo = None
            self._gl.doneCurrent()

    def resizeEvent(self, event: QResizeEvent) -> None:
        canvas = self._vispy_canvas
        if canvas is None:
            return
        ratio = self.devicePixelRatioF()
        width, height = event.size().width(), event.size().height()
        self._vispy_set_physical_size(round(width * ratio), round(height * ratio))
        canvas.events.resize(size=(width, height), physical_size=self._physical_size)

    def paintEvent(self, event: QPaintEvent) -> None:
        canvas = self._vispy_canvas
        width, height = (int(v) for v in self._physical_size)
        if canvas is None or width < 1 or height < 1:
            return
        if not self._gl.makeCurrent(self._surface):
            return
        if self._fbo is None or self._fbo.size() != QSize(width, height):
            self._fbo = QOpenGLFramebufferObject(
                QSize(width, height), QOpenGLFramebufferObject.Attachment.CombinedDepthStencil)
        self._fbo.bind()
        if not self._gl_initialized:
            canvas.events.initialize()
            self._gl_initialized = True
        canvas.set_current()
        canvas.events.draw(region=None)
        image = self._read_picture(canvas.context, width, height)
        painter = QPainter(self)  # straight copy: BGRA is already Qt's RGB32 layout
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Source)
        painter.drawImage(0, 0, image)
        painter.end()

    def _read_picture(self, context: Any, width: int, height: int) -> QImage:
        """What was drawn, as an opaque image the right way up (GL's rows run bottom-up)."""
        context.set_color_mask(False, False, False, True)  # RGB32 wants alpha 255
        context.clear(color=(0, 0, 0, 1), depth=False, stencil=False)
        context.set_color_mask(True, True, True, True)
        context.flush()
        if self._read_pixels is None:
            self._read_pixels = GL_READ_PIXELS(self._gl.getProcAddress(b"glReadPixels"))
        if self._rows.shape[:2] != (height, width):
            self._rows = np.empty((height, width, 4), np.uint8)
            self._upright = np.empty_like(self._rows)
        self._read_pixels(0, 0, width, height, GL_BGRA, gl.GL_UNSIGNED_BYTE,
                          self._rows.ctypes.data)
        np.copyto(self._upright, self._rows[::-1])
        image = QImage(self._upright.data, width, height, width * 4, QImage.Format.Format_RGB32)
        image.setDevicePixelRatio(self.devicePixelRatioF())
        return image
