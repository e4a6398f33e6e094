"""Clicking items in the 3D panel, as a user does: on the real simulated fleet's moving
detection boxes, drawn by Mesa under Xvfb."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from tests.panels.test_scene3d_goal import press_escape
from tests.panels.test_scene3d_panel import ROVER, TIMEOUT_MS, layer_ok, open_scene

pytestmark = [pytest.mark.gl,
              pytest.mark.filterwarnings("ignore:.*QMouseEvent.pos:DeprecationWarning")]
BOXES = f"{ROVER}/lidar/detections"


def shown_box(panel) -> tuple[float, float] | None:
    """Where the frame on screen drew a detection box (widget pixels), if it drew one."""
    picks = panel.view.shown_picks()
    for xy, item in zip(picks.xy, picks.payloads, strict=True):
        if item.key == BOXES:
            return float(xy[0]), float(xy[1])
    return None


def click(panel, qtbot, x: float, y: float) -> None:
    canvas = panel.view.canvas.native
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton,
                     pos=QPoint(round(x) - canvas.x(), round(y) - canvas.y()))


def highlight_pixels(image: np.ndarray) -> int:
    red, green, blue = (image[..., i].astype(int) for i in range(3))
    return int(((red > 200) & (green < 110) & (blue > 170)).sum())  # magenta


def intersecting(rects: np.ndarray) -> int:
    return sum(1 for i, a in enumerate(rects) for b in rects[i + 1:]
               if a[0] < b[0] + b[2] and b[0] < a[0] + a[2]
               and a[1] < b[1] + b[3] and b[1] < a[1] + a[3])


def scene_with_boxes(make_main_window, qtbot):
    window = make_main_window(show=True)
    panel = open_scene(window, "rover-1")
    qtbot.waitUntil(lambda: layer_ok(panel, BOXES), timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: shown_box(panel) is not None, timeout=TIMEOUT_MS)
    return window, panel


def test_a_click_on_a_detection_box_highlights_it_and_says_what_it_is(
        make_main_window, fleet, qtbot) -> None:
    window, panel = scene_with_boxes(make_main_window, qtbot)
    before = highlight_pixels(panel.view.render_image())
    click(panel, qtbot, *shown_box(panel))
    assert panel.selected is not None and panel.selected.key == BOXES
    assert panel.view.note.isVisible()
    details = panel.view.note.text()
    for part in (BOXES, "isaac.Detections3Proto", "frame: rover-1/", "position: "):
        assert part in details
    assert highlight_pixels(panel.view.render_image()) > before + 50
    qtbot.wait(300)  # a while on: the details stay, the highlight follows the box
    assert panel.view.note.isVisible() and panel.selected.key == BOXES

    press_escape(window, panel.view, qtbot)
    assert panel.selected is None and not panel.view.note.isVisible()
    assert highlight_pixels(panel.view.render_image()) <= before + 10


def test_a_click_on_empty_space_says_nothing_is_there_and_labels_never_overlap(
        make_main_window, fleet, qtbot) -> None:
    _, panel = scene_with_boxes(make_main_window, qtbot)
    x, y = 12.0, 12.0  # the sky above the ground
    assert panel.view.pick_at(x, y) is None
    click(panel, qtbot, x, y)
    assert panel.selected is None
    assert panel.view.note.isVisible() and panel.view.note.text() == "Nothing here"
    qtbot.waitUntil(lambda: not panel.view.note.isVisible(), timeout=TIMEOUT_MS)  # briefly
    assert len(panel.view.label_rects()) > 0
    assert intersecting(panel.view.label_rects()) == 0
