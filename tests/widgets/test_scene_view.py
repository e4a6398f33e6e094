"""The 3D view with plain arrays: real frames under a fixed camera, pixels read back.

Default test camera: looking along +x from 20 m behind the origin, 30° up, so x goes up the
screen and y to the left; grid and axes hidden unless a test wants them."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage

from tests.widgets.clean_exit import assert_exits_cleanly
from widgets.scene_view import BACKGROUND, SceneView

pytestmark = [pytest.mark.gl,  # vispy's Qt backend reads mouse positions the deprecated way
              pytest.mark.filterwarnings("ignore:.*QMouseEvent.pos:DeprecationWarning")]

W, H = 320, 240
BG = np.round(np.array(BACKGROUND[:3]) * 255)


@pytest.fixture
def view(qtbot) -> SceneView:
    widget = SceneView()
    qtbot.addWidget(widget)
    widget.resize(W, H)
    widget.show()
    qtbot.waitExposed(widget)
    widget.set_grid_visible(False)
    widget.set_axes_visible(False)
    widget.look_at((0.0, 0.0, 0.0), 20.0)
    return widget


def patch(x: float = 5.0, step: float = 0.02) -> np.ndarray:
    """A dense 1 m square of points in the plane x = const, y -0.5..0.5, z 0..1."""
    u, v = np.mgrid[0:1:step, 0:1:step].reshape(2, -1)
    return np.c_[np.full(u.size, x), u - 0.5, v].astype(np.float32)


def red_mask(image: np.ndarray) -> np.ndarray:
    return (image[..., 0] > 200) & (image[..., 1] < 60) & (image[..., 2] < 60)


def not_background(image: np.ndarray) -> np.ndarray:
    return np.abs(image[..., :3].astype(int) - BG).sum(axis=-1) > 12


def region(view: SceneView, corners: np.ndarray, margin: float = 4.0
           ) -> tuple[float, float, float, float]:
    xy = view.project(corners)
    return (xy[:, 0].min() - margin, xy[:, 0].max() + margin,
            xy[:, 1].min() - margin, xy[:, 1].max() + margin)


def inside(mask: np.ndarray, box: tuple[float, float, float, float]) -> bool:
    rows, cols = np.nonzero(mask)
    x0, x1, y0, y1 = box
    return bool(np.all((cols >= x0) & (cols <= x1) & (rows >= y0) & (rows <= y1)))


def red_cloud(view: SceneView, group_id: str = "cloud", version: int = 1) -> None:
    group = view.group(group_id)
    group.set_point_style("flat", (1.0, 0.0, 0.0), 3.0, None)
    group.set_points(patch(), version)


PATCH_CORNERS = np.array([[5, -0.5, 0], [5, 0.5, 0], [5, -0.5, 1], [5, 0.5, 1]], float)


def test_flat_cloud_is_drawn_where_projected_and_nowhere_else(view: SceneView) -> None:
    red_cloud(view)
    image = view.render_image()
    assert image.shape == (H, W, 4) and image.dtype == np.uint8
    red = red_mask(image)
    assert red.sum() > 50
    assert inside(red, region(view, PATCH_CORNERS))
    cx, cy = view.project(np.array([[5.0, 0.0, 0.5]]))[0]
    rows, cols = np.nonzero(red)
    assert cols.min() <= cx <= cols.max() and rows.min() <= cy <= rows.max()
    # x forward goes up the screen from the default camera, y to the left
    origin, ahead, left = view.project(np.array([[0, 0, 0], [5, 0, 0], [0, 5, 0]], float))
    assert ahead[1] < origin[1] and left[0] < origin[0]


def test_group_matrix_moves_the_pixels(view: SceneView) -> None:
    red_cloud(view)
    before = np.nonzero(red_mask(view.render_image()))[1].mean()
    matrix = np.eye(4)
    matrix[:3, 3] = (0.0, 3.0, 0.0)  # 3 m to the left
    view.group("cloud").set_matrix(matrix)
    red = red_mask(view.render_image())
    assert inside(red, region(view, PATCH_CORNERS + np.array([0.0, 3.0, 0.0])))
    assert np.nonzero(red)[1].mean() < before - 10
    # a rotation about z by 90°: x -> y, so the patch at x=5 goes to y=5
    turn = np.array([[0, -1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], float)
    view.group("cloud").set_matrix(turn)
    red = red_mask(view.render_image())
    assert red.sum() > 20
    assert inside(red, region(view, PATCH_CORNERS @ turn[:3, :3].T))


def test_segments_draw_a_box_by_its_edges(view: SceneView) -> None:
    corners = np.array([[x, y, z] for x in (4, 6) for y in (-1, 1) for z in (0, 2)], float)
    edges = [(a, b) for a in range(8) for b in range(a + 1, 8)
             if np.count_nonzero(corners[a] != corners[b]) == 1]
    assert len(edges) == 12
    positions = np.array([corners[i] for edge in edges for i in edge], np.float32)
    colors = np.tile(np.array([0.0, 1.0, 0.0, 1.0], np.float32), (len(positions), 1))
    view.group("box").set_segments(positions, colors, version=1, width=2.0)
    image = view.render_image()
    green = (image[..., 1] > 200) & (image[..., 0] < 80) & (image[..., 2] < 80)
    assert green.sum() > 50
    assert inside(green, region(view, corners))
    for a, b in edges:  # each edge's middle is drawn
        mx, my = view.project((corners[a] + corners[b])[None] / 2)[0]
        near = green[int(my) - 2:int(my) + 3, int(mx) - 2:int(mx) + 3]
        assert near.any(), (a, b)
    # the middle of the near face is empty: edges, not faces
    fx, fy = view.project(np.array([[4.0, 0.0, 1.0]]))[0]
    assert not green[int(fy) - 1:int(fy) + 2, int(fx) - 1:int(fx) + 2].any()


def test_translucent_mesh_blends_with_what_is_behind(view: SceneView) -> None:
    red_cloud(view)  # the patch at x = 5, behind a quad at x = 3 in the line of sight
    vertices = np.array([[3, -2, -1], [3, 2, -1], [3, 2, 3], [3, -2, 3]], np.float32)
    faces = np.array([[0, 1, 2], [0, 2, 3]], np.uint32)
    colors = np.tile(np.array([0.0, 0.0, 1.0, 0.3], np.float32), (4, 1))
    view.group("volume").set_mesh(vertices, faces, colors, version=1)
    image = view.render_image().astype(int)
    cx, cy = view.project(np.array([[5.0, 0.0, 0.5]]))[0].astype(int)
    r, _, b = image[cy, cx, :3]
    assert 0.6 * 255 < r < 0.8 * 255  # 70 % of the red behind ...
    assert 0.25 * 255 < b < 0.4 * 255  # ... plus 30 % of the blue in front
    ox, oy = view.project(np.array([[3.0, 1.5, 2.5]]))[0].astype(int)  # over the background
    expected = 0.3 * np.array([0, 0, 255]) + 0.7 * BG
    assert np.abs(image[oy, ox, :3] - expected).max() < 8


def test_a_mesh_moved_and_recoloured_is_drawn_anew(view: SceneView) -> None:
    """Boxes move every frame: each update lands where and in the colour it says (the
    mesh's buffers are refilled without building its shader again)."""
    faces = np.array([[0, 1, 2], [0, 2, 3]], np.uint32)

    def quad(y: float) -> np.ndarray:
        return np.array([[3, y - 1, 0], [3, y + 1, 0], [3, y + 1, 2], [3, y - 1, 2]],
                        np.float32)

    group = view.group("boxes")
    group.set_mesh(quad(-2.5), faces, np.tile([1.0, 0.0, 0.0, 1.0], (4, 1)), version=1)
    left = view.project(np.array([[3.0, -2.5, 1.0]]))[0].astype(int)
    right = view.project(np.array([[3.0, 2.5, 1.0]]))[0].astype(int)
    image = view.render_image()
    assert red_mask(image)[left[1], left[0]] and not not_background(image)[right[1], right[0]]
    for version, (y, colour) in enumerate([(2.5, [0.0, 1.0, 0.0, 1.0]),
                                          (-2.5, [0.0, 0.0, 1.0, 1.0])], 2):
        group.set_mesh(quad(y), faces, np.tile(colour, (4, 1)), version=version)
        image = view.render_image().astype(int)
        at, away = (right, left) if y > 0 else (left, right)
        assert np.abs(image[at[1], at[0], :3] - np.array(colour[:3]) * 255).max() < 8
        assert not not_background(image)[away[1], away[0]]


def test_hiding_the_group_removes_its_pixels(view: SceneView) -> None:
    red_cloud(view)
    assert red_mask(view.render_image()).sum() > 50
    view.group("cloud").set_visible(False)
    assert not red_mask(view.render_image()).any()
    view.group("cloud").set_visible(True)
    assert red_mask(view.render_image()).sum() > 50


def test_points_upload_only_when_the_version_changes(view: SceneView) -> None:
    group = view.group("cloud")
    group.set_point_style("flat", (1.0, 0.0, 0.0), 3.0, None)
    start = view.uploads
    group.set_points(patch(), 7)
    assert view.uploads == start + 1
    group.set_points(patch(x=8.0), 7)  # same version: nothing moves, nothing is uploaded
    assert view.uploads == start + 1
    assert inside(red_mask(view.render_image()), region(view, PATCH_CORNERS))
    group.set_points(patch(x=8.0), 8)
    assert view.uploads == start + 2
    red = red_mask(view.render_image())
    assert red.any() and inside(red, region(view, PATCH_CORNERS + np.array([3.0, 0.0, 0.0])))


def test_style_changes_never_reupload(view: SceneView) -> None:
    red_cloud(view)
    view.render_image()
    start = view.uploads
    group = view.group("cloud")
    group.set_point_style("flat", (0.0, 0.0, 1.0), 5.0, None)
    image = view.render_image()
    assert not red_mask(image).any()
    assert ((image[..., 2] > 200) & (image[..., 0] < 60)).sum() > 50
    group.set_point_style("height", (1.0, 1.0, 1.0), 2.0, (0.0, 1.0))
    group.set_matrix(np.diag([1.0, 1.0, 2.0, 1.0]))
    view.render_image()
    assert view.uploads == start


def test_height_colours_low_and_high_points_differently(view: SceneView) -> None:
    low = patch()
    high = patch() + np.array([0.0, 0.0, 4.0], np.float32)
    group = view.group("cloud")
    group.set_point_style("height", (1.0, 1.0, 1.0), 4.0, None)  # automatic range: 0..5
    group.set_points(np.concatenate([low, high]), 1)
    image = view.render_image().astype(int)
    (lx, ly), (hx, hy) = view.project(np.array([[5, 0, 0.5], [5, 0, 4.5]], float)).astype(int)
    low_rgb, high_rgb = image[ly, lx, :3], image[hy, hx, :3]
    assert np.abs(low_rgb - high_rgb).sum() > 150
    assert low_rgb[2] > low_rgb[0] and high_rgb[0] > high_rgb[2]  # turbo: blue low, red high
    # height is world z after the group's matrix: lifted 4 m with the range lifted too,
    # the low patch, now where the high one was, keeps its cool colour
    lift = np.eye(4)
    lift[2, 3] = 4.0
    group.set_point_style("height", (1.0, 1.0, 1.0), 4.0, (4.0, 9.0))
    group.set_matrix(lift)
    image = view.render_image().astype(int)
    lx2, ly2 = view.project(np.array([[5, 0, 4.5]], float))[0].astype(int)
    lifted = image[ly2, lx2, :3]
    assert lifted[2] > lifted[0] and np.abs(lifted - high_rgb).sum() > 150


def test_value_and_rgb_colouring(view: SceneView) -> None:
    group = view.group("cloud")
    xyz = patch()
    rgb = np.zeros((len(xyz), 3), np.uint8)
    rgb[:] = (10, 200, 30)
    group.set_point_style("rgb", (1.0, 1.0, 1.0), 4.0, None)
    group.set_points(xyz, 1, values=xyz[:, 2].copy(), rgb=rgb)
    image = view.render_image().astype(int)
    cx, cy = view.project(np.array([[5.0, 0.0, 0.5]]))[0].astype(int)
    assert np.abs(image[cy, cx, :3] - (10, 200, 30)).max() <= 2
    group.set_point_style("value", (1.0, 1.0, 1.0), 4.0, (0.0, 1.0))
    image = view.render_image().astype(int)
    (lx, ly), (hx, hy) = view.project(np.array([[5, 0, 0.1], [5, 0, 0.9]], float)).astype(int)
    assert image[ly, lx, 2] > image[ly, lx, 0] and image[hy, hx, 0] > image[hy, hx, 2]


def test_foreign_readonly_strided_points(view: SceneView) -> None:
    base = np.zeros((2500, 4), np.float32)
    base[:, :3] = patch()
    xyz = base[:, :3]
    xyz.flags.writeable = False
    view.group("cloud").set_point_style("flat", (1.0, 0.0, 0.0), 3.0, None)
    view.group("cloud").set_points(xyz, 1)
    assert inside(red_mask(view.render_image()), region(view, PATCH_CORNERS))


def test_empty_inputs_draw_nothing(view: SceneView) -> None:
    group = view.group("empty")
    group.set_points(np.zeros((0, 3), np.float32), 1)
    group.set_points(np.zeros((0, 3), np.float32), 2, values=np.zeros(0, np.float32),
                     rgb=np.zeros((0, 3), np.uint8))
    group.set_segments(np.zeros((0, 3), np.float32), np.zeros((0, 4), np.float32), 1)
    group.set_mesh(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.uint32),
                   np.zeros((0, 4), np.float32), 1)
    group.set_texts([], 1)
    for mode in ("height", "value", "rgb", "flat"):
        group.set_point_style(mode, (1.0, 0.0, 0.0), 3.0, None)
        assert not not_background(view.render_image()).any()
    # a cloud that empties again leaves nothing behind
    group.set_points(patch(), 3)
    assert not_background(view.render_image()).any()
    group.set_points(np.zeros((0, 3), np.float32), 4)
    assert not not_background(view.render_image()).any()
    red_cloud(view, "other")
    group.clear()
    view.group("other").clear()
    assert not not_background(view.render_image()).any()


def test_texts_are_drawn_near_their_anchor(view: SceneView) -> None:
    view.group("labels").set_texts([((5.0, 0.0, 1.0), "rover", (1.0, 1.0, 1.0))], 1)
    drawn = not_background(view.render_image())
    assert drawn.sum() > 20
    ax, ay = view.project(np.array([[5.0, 0.0, 1.0]]))[0]
    assert inside(drawn, (ax - 60, ax + 60, ay - 30, ay + 30))


def test_labels_follow_their_objects_and_change_with_them(view: SceneView) -> None:
    """A label that only moves keeps its glyphs (no new layout) but is drawn at its new
    place; a new text is laid out anew."""
    group = view.group("labels")
    for version, (y, text) in enumerate([(2.0, "rover"), (-2.0, "rover"),
                                         (-2.0, "rover rover rover")], 1):
        group.set_texts([((5.0, y, 1.0), text, (1.0, 1.0, 1.0))], version)
        drawn = not_background(view.render_image())
        ax, ay = view.project(np.array([[5.0, y, 1.0]]))[0]
        assert inside(drawn, (ax - 4, ax + 160, ay - 30, ay + 30))
        width = np.nonzero(drawn.any(axis=0))[0]
        if version == 2:
            short = width.max() - width.min()
        if version == 3:
            assert width.max() - width.min() > 2 * short


def test_camera_modes(view: SceneView) -> None:
    up = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 5.0]])
    a, b = view.project(up)
    assert np.hypot(*(a - b)) > 20  # the orbit camera sees heights
    view.set_camera_mode("top")
    a, b = view.project(up)
    assert np.hypot(*(a - b)) < 1.0  # the top view looks straight down
    origin, east, north = view.project(np.array([[0, 0, 0], [5, 0, 0], [0, 5, 0]], float))
    assert east[0] > origin[0] + 10 and north[1] < origin[1] - 10  # a map: x right, y up
    red_cloud(view)  # seen from above the patch is a line at x = 5
    assert red_mask(view.render_image()).any()
    view.set_follow_target((10.0, 2.0, 0.0))
    view.set_camera_mode("follow")
    assert np.allclose(view.project(np.array([[10.0, 2.0, 0.0]]))[0], (W / 2, H / 2), atol=1)
    view.set_follow_target((12.0, -3.0, 1.0))
    assert np.allclose(view.project(np.array([[12.0, -3.0, 1.0]]))[0], (W / 2, H / 2), atol=1)
    view.set_camera_mode("orbit")
    view.set_follow_target((0.0, 0.0, 0.0))  # no longer followed
    assert np.allclose(view.project(np.array([[12.0, -3.0, 1.0]]))[0], (W / 2, H / 2), atol=1)
    view.reset_view()
    assert np.allclose(view.project(np.zeros((1, 3)))[0], (W / 2, H / 2), atol=1)
    with pytest.raises(ValueError):
        view.set_camera_mode("sideways")


def test_camera_state_round_trips_and_bad_state_is_ignored(view: SceneView) -> None:
    view.set_camera_mode("top")
    view.look_at((3.0, 4.0, 0.0), 12.0)
    state = view.camera_state()
    import json
    state = json.loads(json.dumps(state))
    probe = np.array([[1.0, 2.0, 0.5]])
    expected = view.project(probe)
    view.set_camera_mode("orbit")
    view.reset_view()
    view.set_camera_state(state)
    assert view.camera_mode == "top"
    assert np.allclose(view.project(probe), expected, atol=0.5)
    for bad in ({}, {"mode": "orbit"}, {**state, "center": [1, 2]}, {**state, "mode": "x"},
                {**state, "distance": float("nan")}, {**state, "distance": "far"}, None):
        view.set_camera_state(bad)  # type: ignore[arg-type]
        assert np.allclose(view.project(probe), expected, atol=0.5)


def test_grid_axes_and_frame_triads(view: SceneView) -> None:
    assert not not_background(view.render_image()).any()
    view.set_grid_visible(True)
    grid = not_background(view.render_image()).sum()
    assert grid > 500
    view.set_grid_visible(False)
    view.set_axes_visible(True)
    image = view.render_image()
    ox, oy = view.project(np.array([[0.0, 0.5, 0.0]]))[0].astype(int)
    assert image[oy - 1:oy + 2, ox - 1:ox + 2, 1].max() > 150  # the green y axis
    view.set_axes_visible(False)
    frame = np.eye(4)
    frame[:3, 3] = (5.0, 2.0, 0.0)
    view.set_frame_triads([("base_link", frame), ("odom", np.eye(4))], show_names=True)
    with_names = not_background(view.render_image()).sum()
    tx, ty = view.project(np.array([[5.0, 2.0, 0.25]]))[0].astype(int)
    image = view.render_image()
    assert image[ty - 1:ty + 2, tx - 1:tx + 2, 2].max() > 150  # the blue z axis of the triad
    uploads = view.uploads
    view.set_frame_triads([("base_link", frame.copy()), ("odom", np.eye(4))], show_names=True)
    assert view.uploads == uploads  # the same frames again: nothing to do
    view.set_frame_triads([("base_link", frame), ("odom", np.eye(4))], show_names=False)
    assert 0 < not_background(view.render_image()).sum() < with_names
    view.set_frame_triads([], show_names=True)
    assert not not_background(view.render_image()).any()


def test_groups_are_made_once_and_removed(view: SceneView) -> None:
    assert view.group("a") is view.group("a")
    view.group("b")
    assert view.group_ids() == ["a", "b"]
    red_cloud(view, "a")
    view.remove_group("a")
    view.remove_group("missing")
    assert view.group_ids() == ["b"]
    assert not red_mask(view.render_image()).any()


def test_a_click_without_drag_is_reported(view: SceneView, qtbot) -> None:
    clicks: list[tuple[float, float]] = []
    view.clicked.connect(lambda x, y: clicks.append((x, y)))
    qtbot.mouseClick(view.canvas.native, Qt.MouseButton.LeftButton, pos=QPoint(100, 60))
    assert clicks == [(100.0, 60.0)]
    qtbot.mousePress(view.canvas.native, Qt.MouseButton.LeftButton, pos=QPoint(100, 60))
    qtbot.mouseMove(view.canvas.native, QPoint(150, 90))
    qtbot.mouseRelease(view.canvas.native, Qt.MouseButton.LeftButton, pos=QPoint(150, 90))
    assert len(clicks) == 1  # a drag orbits, it is no click


def test_top_view_pans_with_the_left_button(view: SceneView, qtbot) -> None:
    view.set_camera_mode("top")
    before = view.project(np.zeros((1, 3)))[0]
    qtbot.mousePress(view.canvas.native, Qt.MouseButton.LeftButton, pos=QPoint(160, 120))
    qtbot.mouseMove(view.canvas.native, QPoint(200, 100))
    qtbot.mouseRelease(view.canvas.native, Qt.MouseButton.LeftButton, pos=QPoint(200, 100))
    after = view.project(np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 5.0]]))
    assert np.allclose(after[0] - before, (40, -20), atol=2)  # the ground follows the mouse
    assert np.allclose(after[0], after[1], atol=1)  # still looking straight down


def on_screen(view: SceneView) -> np.ndarray:
    shot = view.canvas.native.grab().toImage().convertToFormat(QImage.Format.Format_RGBA8888)
    return np.frombuffer(shot.constBits(), np.uint8).reshape(
        shot.height(), shot.bytesPerLine() // 4, 4)[:, :shot.width()].copy()


def test_the_on_screen_paint_draws_the_cloud_too(view: SceneView, qtbot) -> None:
    red_cloud(view)
    # drawn on the render thread, then painted on the GUI thread
    qtbot.waitUntil(lambda: red_mask(on_screen(view)).sum() > 50, timeout=5000)
    image = on_screen(view)
    red = red_mask(image)
    scale = image.shape[1] / W  # device pixels on a high-dpi screen
    x0, x1, y0, y1 = region(view, PATCH_CORNERS)
    assert inside(red, (x0 * scale, x1 * scale, y0 * scale, y1 * scale))


def test_a_frame_that_fails_to_draw_says_so_and_the_next_one_recovers(view: SceneView,
                                                                       qtbot) -> None:
    backend = view.canvas.native
    red_cloud(view)
    qtbot.waitUntil(lambda: red_mask(on_screen(view)).sum() > 50, timeout=5000)
    # a GL command the renderer cannot carry out (an object it never made)
    view.canvas.context.glir.command("DRAW", 987654321, "points", (0, 3))
    view.canvas.update()
    qtbot.waitUntil(lambda: "drawing failed" in backend.error, timeout=5000)
    view.canvas.update()
    qtbot.waitUntil(lambda: backend.error == "", timeout=5000)
    assert red_mask(on_screen(view)).sum() > 50


def test_the_render_thread_ends_with_the_view(qtbot) -> None:
    before = set(threading.enumerate())
    widget = SceneView()
    widget.resize(W, H)
    widget.show()
    qtbot.waitUntil(lambda: widget.canvas.native.frames_drawn > 0, timeout=5000)
    started = [t for t in threading.enumerate() if t not in before and t.name == "3d-render"]
    assert len(started) == 1
    widget.shutdown()
    assert not started[0].is_alive()


EXIT_WHILE_DRAWING = """
import numpy as np
from app.qt.application import create_application
app = create_application([])
from widgets.scene_view import SceneView
view = SceneView()
view.resize(960, 540)
view.show()
for _ in range(5):
    app.processEvents()
cloud = np.random.default_rng(0).random((1_000_000, 3), dtype=np.float32)
view.group("cloud").set_points(cloud, 1)
app.processEvents()  # the frame goes to the render thread; the script ends while it draws
"""


@pytest.mark.slow
def test_the_process_exits_cleanly_while_a_frame_is_being_drawn() -> None:
    # the crash this guards against came in 3 exits of 4
    assert_exits_cleanly(EXIT_WHILE_DRAWING, runs=2)
