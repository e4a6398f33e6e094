"""3D view cost per frame for a point cloud that changes every frame (new data, new version):
``SceneView.group().set_points`` + a synchronous render read back, against the best bare
use of vispy: a bare ``gloo`` program drawing ``GL_POINTS`` from the same numpy array, the
buffer refilled every frame (as arriving data would be), drawn with depth test, and read
back so the frame is really done. Same size (960x540), same 2 px points, same cloud; the two
are measured in one run, interleaved. Run under a display (Xvfb + Mesa in CI).

BASELINES.md: llvmpipe spends ~170 ns a point, so 1M points are a 5-6 fps figure here.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

import numpy as np
from vispy import app as vispy_app
from vispy import gloo

from tests.bench.common import iterations, median, report, short_mode
from widgets.scene_view import SceneView

SIZE = (960, 540)
POINT_PX = 2.0

BARE_VERTEX = """
uniform mat4 u_mvp;
attribute vec3 a_position;
void main() {
    gl_Position = u_mvp * vec4(a_position, 1.0);
    gl_PointSize = 2.0;
}
"""
BARE_FRAGMENT = """
void main() { gl_FragColor = vec4(1.0, 0.3, 0.2, 1.0); }
"""


def cloud(n: int, seed: int = 0) -> np.ndarray:
    """A lidar-like cloud in front of the default camera: 40 x 40 x 3 m."""
    rng = np.random.default_rng(seed)
    xyz = rng.random((n, 3), dtype=np.float32)
    xyz *= np.array([40.0, 40.0, 3.0], np.float32)
    xyz -= np.array([10.0, 20.0, 0.0], np.float32)
    return xyz


def _perspective_mvp(width: int, height: int) -> np.ndarray:
    """Looking along +x from 20 m behind and 30° above the origin (the view's default)."""
    eye = np.array([-20 * np.cos(np.radians(30)), 0.0, 20 * np.sin(np.radians(30))])
    forward = -eye / np.linalg.norm(eye)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    view = np.eye(4)
    view[0, :3], view[1, :3], view[2, :3] = right, up, -forward
    view[:3, 3] = -view[:3, :3] @ eye
    near, far, f = 0.1, 1000.0, 1 / np.tan(np.radians(45) / 2)
    proj = np.zeros((4, 4))
    proj[0, 0], proj[1, 1] = f * height / width, f
    proj[2, 2], proj[2, 3] = (far + near) / (near - far), 2 * far * near / (near - far)
    proj[3, 2] = -1.0
    return (proj @ view).T.astype(np.float32)  # gloo takes the column-major (transposed) form


class BarePoints:
    """The baseline: one canvas, one program, one VBO and one framebuffer, made once."""

    def __init__(self, size: tuple[int, int] = SIZE) -> None:
        self.canvas = vispy_app.Canvas(size=size, show=True, title="bare GL_POINTS")
        self.canvas.set_current()
        self.program = gloo.Program(BARE_VERTEX, BARE_FRAGMENT)
        self.vbo = gloo.VertexBuffer(np.zeros((1, 3), np.float32))
        self.program["a_position"] = self.vbo
        self.program["u_mvp"] = _perspective_mvp(*size)
        shape = (size[1], size[0])
        self.fbo = gloo.FrameBuffer(color=gloo.RenderBuffer(shape),
                                    depth=gloo.RenderBuffer(shape))
        self.size = size

    def frame(self, xyz: np.ndarray) -> np.ndarray:
        self.canvas.set_current()
        self.vbo.set_data(xyz)  # the new data of this frame, uploaded once
        with self.fbo:
            gloo.set_viewport(0, 0, *self.size)
            gloo.set_state(depth_test=True, blend=False)
            gloo.set_clear_color((0.11, 0.11, 0.13, 1.0))
            gloo.clear(color=True, depth=True)
            self.program.draw("points")
            return self.fbo.read()  # waits for the frame

    def close(self) -> None:
        self.canvas.close()


def _median_frame_s(frame: Callable[[int], object], frames: int) -> float:
    frame(-1)  # warm up: shader compile, buffer allocation
    times = []
    for i in range(frames):
        start = time.perf_counter()
        frame(i)
        times.append(time.perf_counter() - start)
    return median(times)


def bare_points_frame_s(xyz: np.ndarray, size: tuple[int, int] = SIZE, frames: int = 5
                        ) -> float:
    """Median seconds per frame of the bare gloo ``GL_POINTS`` program (upload + draw +
    read back)."""
    bare = BarePoints(size)
    try:
        return _median_frame_s(lambda i: bare.frame(xyz), frames)
    finally:
        bare.close()


def make_view(size: tuple[int, int] = SIZE) -> SceneView:
    view = SceneView()
    view.resize(*size)
    view.set_grid_visible(False)
    view.set_axes_visible(False)
    view.show()
    view.group("cloud").set_point_style("flat", (1.0, 0.3, 0.2), POINT_PX, None)
    return view


def view_frame(view: SceneView, xyz: np.ndarray, version: int) -> np.ndarray:
    view.group("cloud").set_points(xyz, version)
    return view.render_image()


def view_frame_s(view: SceneView, xyz: np.ndarray, frames: int = 5) -> float:
    """Median seconds per frame of ``set_points`` (a new version each frame) + render."""
    counter = iter(range(1, 1 << 30))
    return _median_frame_s(lambda i: view_frame(view, xyz, next(counter)), frames)


def run() -> list[str]:
    from PySide6.QtWidgets import QApplication

    from app.qt.application import create_application

    create_application()
    n = 100_000 if short_mode() else 1_000_000
    frames = iterations(7, 2)
    xyz = cloud(n)
    bare = BarePoints()
    view = make_view()
    for _ in range(5):
        QApplication.processEvents()
    try:
        # interleaved rounds, so both see the same machine load
        bare_times, view_times = [], []
        version = 0
        bare.frame(xyz)
        view_frame(view, xyz, version)
        for _ in range(frames):
            start = time.perf_counter()
            bare.frame(xyz)
            bare_times.append(time.perf_counter() - start)
            version += 1
            start = time.perf_counter()
            view_frame(view, xyz, version)
            view_times.append(time.perf_counter() - start)
    finally:
        bare.close()
        view.close()
        view.deleteLater()
        QApplication.processEvents()
        del bare, view
        gc.collect()  # on this thread, which owns the GL contexts
    label = "1M" if n == 1_000_000 else f"{n // 1000}k"
    return [report(f"3D view {label} points: SceneView / bare gloo GL_POINTS",
                   median(view_times), median(bare_times))]


if __name__ == "__main__":
    run()
