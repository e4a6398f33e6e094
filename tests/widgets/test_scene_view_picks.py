"""Picking and labels in the 3D view with plain data: what a click names is where the frame
on screen drew it, and labels never pile up."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from widgets.scene_view import SceneView

pytestmark = [pytest.mark.gl,
              pytest.mark.filterwarnings("ignore:.*QMouseEvent.pos:DeprecationWarning")]
TIMEOUT_MS = 10_000


@pytest.fixture
def view(qtbot) -> SceneView:
    """320 x 240, looking along +x from 20 m behind the origin: y goes to the left."""
    widget = SceneView()
    qtbot.addWidget(widget)
    widget.resize(320, 240)
    widget.show()
    qtbot.waitExposed(widget)
    widget.set_grid_visible(False)
    widget.set_axes_visible(False)
    widget.look_at((0.0, 0.0, 0.0), 20.0)
    return widget


def wait_for_a_frame_shown(view: SceneView, qtbot) -> None:
    """The next frame the view draws is on screen (its picks and labels placed)."""
    before = view.canvas.native.frames_recorded
    view.canvas.update()
    qtbot.waitUntil(lambda: view.canvas.native.shown_frame > before, timeout=TIMEOUT_MS)


def intersecting(rects: np.ndarray) -> int:
    count = 0
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            if (a[0] < b[0] + b[2] and b[0] < a[0] + a[2]
                    and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]):
                count += 1
    return count


def test_overlapping_labels_are_decluttered_nearest_first(view: SceneView, qtbot) -> None:
    group = view.group("crowd")
    # twenty labels in a heap around the origin, and one well apart
    heap = [((0.0, 0.1 * i, 0.05 * i), f"pedestrian {i}", (1, 1, 1)) for i in range(20)]
    group.set_texts([*heap, ((0.0, -6.0, 0.0), "far apart", (1, 1, 1))], version=1)
    wait_for_a_frame_shown(view, qtbot)
    rects = view.label_rects()
    assert intersecting(rects) == 0
    assert 2 <= len(rects) < 21  # the heap thinned out, the lone label kept
    xy = view.project(np.array([[0.0, -6.0, 0.0]]))[0]
    assert any(np.allclose(r[:2], xy, atol=1) for r in rects)


def test_a_click_names_the_item_where_the_shown_frame_drew_it(view: SceneView,
                                                              qtbot) -> None:
    view.set_pickables(np.array([[0.0, 0.0, 0.0], [0.0, 9.0, 0.0]]),
                       np.array([[6.0, 6.0, 6.0], [0.0, 0.0, 0.0]]), ["big box", "point"])
    wait_for_a_frame_shown(view, qtbot)
    big, point = view.project(np.array([[0.0, 0.0, 0.0], [0.0, 9.0, 0.0]]))
    view.set_pickables(np.array([[0.0, -8.0, 0.0]]), np.zeros((1, 3)), ["moved"])
    # not drawn yet: a click still names what is on screen
    assert view.pick_at(*big) == "big box"
    assert view.pick_at(big[0] + 30, big[1]) == "big box"  # within its projected box
    assert view.pick_at(point[0] + 8, point[1]) == "point"  # ~12 px around a point
    assert view.pick_at(point[0] + 30, point[1]) is None
    clicks: list[tuple[float, float]] = []
    view.clicked.connect(lambda x, y: clicks.append((x, y)))
    qtbot.mouseClick(view.canvas.native, Qt.MouseButton.LeftButton,
                     pos=QPoint(round(big[0]), round(big[1])))
    assert view.pick_at(*clicks[0]) == "big box"
