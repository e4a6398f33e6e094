"""A vispy canvas backend that renders on a thread of its own into an offscreen framebuffer
and paints the picture as an image, so the window around it stays a plain raster window and
the GUI thread never waits for OpenGL.

Qt composes every window that holds a ``QOpenGLWidget`` through OpenGL: any repaint of any
widget in it (a camera frame, a plot) then redraws and swaps the whole window through GL.
On a software renderer (Mesa's llvmpipe: laptops without a usable GPU, remote desktops,
CI) that costs tens of milliseconds per repaint, and drawing a 200k-point cloud costs ~90.

Here the GUI thread only walks vispy's scene, which turns it into GLIR commands (vispy's
list of GL calls to make). The commands go to the render thread, which owns the GL context,
runs them, reads the pixels back and hands the picture to the GUI thread to paint. One frame
is in flight at a time; changes meanwhile are drawn by the next one, so a slow renderer
lowers the 3D view's frame rate, never the window's.
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import math
import queue
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import vispy
from PySide6.QtCore import QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QImage,
    QOffscreenSurface,
    QOpenGLContext,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QShowEvent,
    QSurfaceFormat,
)
from PySide6.QtOpenGL import QOpenGLFramebufferObject
from PySide6.QtWidgets import QWidget
from vispy.app.backends import _pyside6  # noqa: F401 (sets up vispy's Qt backend module)
from vispy.app.backends import _qt as vispy_qt
from vispy.gloo import gl
from vispy.gloo.glir import BaseGlirParser, GlirParser

vispy.use("pyside6")
log = logging.getLogger(__name__)

BACKEND_NAME = "qt-render-thread"
GL_BGRA = 0x80E1  # in memory B, G, R, A: Qt's RGB32 on little-endian machines
GL_READ_PIXELS = getattr(ctypes, "WINFUNCTYPE", ctypes.CFUNCTYPE)(  # GL's calling convention
    None, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
    ctypes.c_uint, ctypes.c_void_p)
# On a GPU a frame takes a few milliseconds; on a software renderer a 200k-point cloud takes
# ~90 ms. Frames start no more often than keeps them (the GUI thread's walk of the scene and
# the render thread's drawing) within this share of a core; a change in between is drawn by
# the next frame.
MAX_FRAME_SHARE = 0.35
SYNC_TIMEOUT_S = 30.0  # a synchronous render (a test, a snapshot) waits at most this long
RENDER_TIMES_KEPT = 256


class CommandRecorder(BaseGlirParser):
    """The canvas's GLIR parser on the GUI thread: it keeps the commands it is given, in
    order, for the render thread. Being "remote" makes gloo refuse direct GL reads here."""

    def __init__(self) -> None:
        super().__init__()
        self.commands: list[tuple[Any, ...]] = []

    def is_remote(self) -> bool:
        return True

    @property
    def shader_compatibility(self) -> str:
        return "desktop"

    def parse(self, commands: list[tuple[Any, ...]]) -> None:
        self.commands.extend(commands)

    def take(self) -> list[tuple[Any, ...]]:
        commands, self.commands = self.commands, []
        return commands


@dataclass
class RenderJob:
    commands: list[tuple[Any, ...]]
    width: int
    height: int
    done: threading.Event | None = None  # set when a synchronous caller waits for it
    walk_seconds: float = 0.0  # the GUI thread's part: the scene turned into commands
    number: int = 0  # the backend's count of frames recorded, this one included
    pixels: np.ndarray | None = None  # (H, W, 4) BGRA, top row first
    error: str = ""
    seconds: float = 0.0


@dataclass
class _Target:
    fbo: QOpenGLFramebufferObject | None = None
    read_pixels: Any = None


class RenderThread(threading.Thread):
    """Owns one GL context; runs render jobs in order. A job someone waits for is marked
    done; any other is handed to ``finished`` (called on this thread).

    Every one still running is ended at interpreter exit, before Qt and the GL driver are
    torn down: a frame being drawn then would crash the process on its way out."""

    running: ClassVar[weakref.WeakSet[RenderThread]] = weakref.WeakSet()

    def __init__(self, surface_format: QSurfaceFormat, surface: QOffscreenSurface,
                 finished: Any) -> None:
        super().__init__(name="3d-render", daemon=True)
        self._format = surface_format
        self._surface = surface
        self._finished = finished
        self._jobs: queue.Queue[RenderJob | None] = queue.Queue()
        self._parser = GlirParser()
        self.renderer = ""  # GL_RENDERER, once the context is made

    def submit(self, job: RenderJob) -> None:
        self._jobs.put(job)

    def stop_and_wait(self) -> None:
        """Ends the thread after the frame it is drawing, if any, and waits for that."""
        self._jobs.put(None)
        self.join(SYNC_TIMEOUT_S)

    def start(self) -> None:
        RenderThread.running.add(self)
        super().start()

    def run(self) -> None:
        context = QOpenGLContext()
        context.setFormat(self._format)
        target = _Target()
        ready = context.create() and context.makeCurrent(self._surface)
        if ready:
            self.renderer = str(gl.glGetParameter(gl.GL_RENDERER))
        try:
            while (job := self._jobs.get()) is not None:
                if not ready:
                    job.error = "no OpenGL context could be made for the 3D view"
                else:
                    self._render(context, target, job)
                if job.done is not None:
                    job.done.set()
                else:
                    self._finished(job)
        finally:
            if ready and context.makeCurrent(self._surface):
                target.fbo = None  # GL objects go while their context is current
                context.doneCurrent()

    def _render(self, context: QOpenGLContext, target: _Target, job: RenderJob) -> None:
        started = time.perf_counter()
        try:
            if not context.makeCurrent(self._surface):
                raise RuntimeError("the 3D view's OpenGL context was lost")
            size = QSize(job.width, job.height)
            if target.fbo is None or target.fbo.size() != size:
                target.fbo = QOpenGLFramebufferObject(
                    size, QOpenGLFramebufferObject.Attachment.CombinedDepthStencil)
            target.fbo.bind()
            handle = target.fbo.handle()
            self._parser.env["fbo"] = handle  # vispy binds it back after its own FBOs
            self._parser.parse([(c[0], c[1], handle) if c[0] == "CURRENT" else c
                                for c in job.commands])
            target.fbo.bind()  # vispy may have left one of its own bound
            job.pixels = self._read(context, target, job.width, job.height)
        except Exception as exc:  # shown on the view; the next frame tries again
            log.exception("3D view: drawing failed")
            job.error = f"3D view: drawing failed: {exc}"
        job.seconds = time.perf_counter() - started

    @staticmethod
    def _read(context: QOpenGLContext, target: _Target, width: int,
              height: int) -> np.ndarray:
        """What was drawn, opaque (alpha 255) and the right way up (GL's rows run
        bottom-up)."""
        gl.glColorMask(False, False, False, True)
        gl.glClearColor(0.0, 0.0, 0.0, 1.0)
        gl.glClear(gl.GL_COLOR_BUFFER_BIT)
        gl.glColorMask(True, True, True, True)
        if target.read_pixels is None:
            target.read_pixels = GL_READ_PIXELS(context.getProcAddress(b"glReadPixels"))
        rows = np.empty((height, width, 4), np.uint8)
        gl.glPixelStorei(gl.GL_PACK_ALIGNMENT, 4)
        target.read_pixels(0, 0, width, height, GL_BGRA, gl.GL_UNSIGNED_BYTE,
                           rows.ctypes.data)
        return np.ascontiguousarray(rows[::-1])


@atexit.register
def _end_render_threads() -> None:
    for thread in list(RenderThread.running):
        thread.stop_and_wait()


class _Delivery(QObject):
    """Carries finished frames from the render thread to the GUI thread (a queued signal)."""

    finished = Signal(object)


class ReadbackCanvasBackend(vispy_qt.QtBaseCanvasBackend, QWidget):
    """A QWidget that shows its vispy canvas as drawn by its render thread."""

    def _init_specific(self, p: Any, kwargs: Any) -> None:
        p.context.shared.add_ref(BACKEND_NAME, self)
        QWidget.__init__(self, p.parent)
        self._recorder = CommandRecorder()
        p.context.shared.parser = self._recorder
        surface_format = vispy_qt._set_config(p.context.config)
        self._surface = QOffscreenSurface()
        self._surface.setFormat(surface_format)
        self._surface.create()
        self._delivery = _Delivery()
        self._delivery.finished.connect(self._on_finished,
                                        Qt.ConnectionType.QueuedConnection)
        self._thread = RenderThread(surface_format, self._surface, self._delivery.finished.emit)
        self._thread.start()
        thread = self._thread  # not self: the widget is gone when this runs
        self.destroyed.connect(lambda *_: thread.stop_and_wait())
        self._gl_initialized = False
        self._in_flight = False
        self._wanted = False
        self._next_frame = 0.0  # time.monotonic() before which no frame starts
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.timeout.connect(self._start_frame)
        self._picture: tuple[np.ndarray, QImage] | None = None
        self.error = ""
        self.frames_drawn = 0
        self.frames_recorded = 0  # frames walked (shown or rendered for a caller)
        self.shown_frame = 0  # the number of the frame on screen (0: none yet)
        # the last frames' times: on the render thread, and the GUI thread's walk before it
        self.render_seconds: deque[float] = deque(maxlen=RENDER_TIMES_KEPT)
        self.walk_seconds: deque[float] = deque(maxlen=RENDER_TIMES_KEPT)
        self.setFocusPolicy(Qt.FocusPolicy.WheelFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self._initialized = True

    # -- vispy's side ------------------------------------------------------------------------
    def _vispy_set_current(self) -> None:
        pass  # the context is the render thread's; commands reach it through the recorder

    def _vispy_swap_buffers(self) -> None:
        pass

    def _vispy_get_fb_bind_location(self) -> int:
        return 0  # the render thread binds its own framebuffer

    def _vispy_update(self) -> None:
        if self._vispy_canvas is None:
            return
        self._wanted = True
        self._schedule()

    def _schedule(self) -> None:
        if not self._in_flight and not self._later.isActive():
            self._later.start(max(0, math.ceil((self._next_frame - time.monotonic()) * 1000)))

    def _vispy_close(self) -> None:
        self._thread.stop_and_wait()
        self.close()

    # -- frames ------------------------------------------------------------------------------
    def _record(self, done: threading.Event | None = None) -> RenderJob | None:
        """One frame of the scene at the widget's size, as GLIR commands."""
        canvas = self._vispy_canvas
        width, height = (int(v) for v in self._physical_size)
        if canvas is None or width < 1 or height < 1:
            return None
        started = time.perf_counter()
        self.frames_recorded += 1
        if not self._gl_initialized:
            canvas.events.initialize()
            self._gl_initialized = True
        canvas.set_current()
        canvas.events.draw(region=None)
        walk = time.perf_counter() - started
        self.walk_seconds.append(walk)
        return RenderJob(self._recorder.take(), width, height, done, walk,
                         self.frames_recorded)

    def _start_frame(self) -> None:
        if self._in_flight or not self._wanted or not self.isVisible():
            return
        job = self._record()
        if job is None:
            return
        self._wanted = False
        self._in_flight = True
        self._thread.submit(job)

    def next_frame_in(self) -> float:
        """Seconds until the next frame may start (infinite while one is being drawn):
        changes made before then are all drawn by that frame."""
        if self._in_flight:
            return math.inf
        return max(0.0, self._next_frame - time.monotonic())

    def render_now(self) -> np.ndarray:
        """(H, W, 4) BGRA of the scene drawn now, waiting for the render thread (tests,
        snapshots). Raises RuntimeError when drawing fails."""
        done = threading.Event()
        job = self._record(done)
        if job is None:
            raise RuntimeError("the 3D view has no size to draw at")
        self._thread.submit(job)
        if not done.wait(SYNC_TIMEOUT_S):
            raise RuntimeError("the 3D view's renderer did not answer")
        if job.pixels is None:
            raise RuntimeError(job.error)
        return job.pixels

    @property
    def renderer(self) -> str:
        """The OpenGL renderer's name (e.g. "llvmpipe ..." for Mesa's software one), once the
        render thread has made its context; "" until then."""
        return self._thread.renderer

    def _on_finished(self, job: RenderJob) -> None:
        self._in_flight = False
        self.render_seconds.append(job.seconds)
        cost = job.walk_seconds + job.seconds
        self._next_frame = time.monotonic() + cost * (1 / MAX_FRAME_SHARE - 1)
        self.error = job.error
        if job.pixels is not None:
            pixels = job.pixels
            height, width = pixels.shape[:2]
            image = QImage(pixels.data, width, height, width * 4, QImage.Format.Format_RGB32)
            image.setDevicePixelRatio(self.devicePixelRatioF())
            self._picture = (pixels, image)
            self.frames_drawn += 1
            self.shown_frame = job.number
        self.update()
        if self._wanted:
            self._schedule()

    # -- Qt's side ---------------------------------------------------------------------------
    def resizeEvent(self, event: QResizeEvent) -> None:
        canvas = self._vispy_canvas
        if canvas is None:
            return
        ratio = self.devicePixelRatioF()
        width, height = event.size().width(), event.size().height()
        self._vispy_set_physical_size(round(width * ratio), round(height * ratio))
        canvas.events.resize(size=(width, height), physical_size=self._physical_size)
        self._vispy_update()

    def showEvent(self, event: QShowEvent) -> None:
        self._vispy_update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Source)
        background = QColor.fromRgbF(*self._vispy_canvas.bgcolor.rgba) \
            if self._vispy_canvas is not None else QColor(0, 0, 0)
        if self._picture is not None:
            image = self._picture[1]
            painter.drawImage(0, 0, image)  # a straight copy: BGRA is Qt's RGB32 layout
            shown = image.deviceIndependentSize()
            painter.fillRect(int(shown.width()), 0, self.width(), self.height(), background)
            painter.fillRect(0, int(shown.height()), self.width(), self.height(), background)
        else:
            painter.fillRect(self.rect(), background)
        if self.error:
            painter.setPen(QColor(240, 120, 120))
            painter.drawText(self.rect().adjusted(8, 8, -8, -8),
                             Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap, self.error)
        painter.end()
