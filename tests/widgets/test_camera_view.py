"""The camera view draws the image and its overlays where they belong, at any zoom, turn
or flip; the snapshot carries the overlays; the pixel under the cursor is the right one."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from app.convert.camera.model import ImageOverlay, Shape
from tests.widgets.clean_exit import assert_exits_cleanly
from tests.widgets.view_pixels import shown_pixels as grab
from widgets import overlay_layers
from widgets.camera_view import MAX_HOLD_S, CameraView, qimage_over
from widgets.overlay_painter import DrawnOverlay

WIDTH, HEIGHT = 320, 240
BOX = ((100.0, 60.0), (180.0, 120.0))  # top-left, bottom-right in image pixels
RED = (1.0, 0.0, 0.0, 1.0)


def grey_image() -> np.ndarray:
    image = np.full((HEIGHT, WIDTH, 4), 90, np.uint8)
    image[..., 3] = 255
    return image


def box_overlay(in_sync: bool = True) -> DrawnOverlay:
    shape = Shape("box", np.array(BOX), color=RED, thickness=3.0)
    return DrawnOverlay(ImageOverlay((shape,)), in_sync)


def is_red(pixel: np.ndarray) -> bool:
    return bool(pixel[0] > 180 and pixel[1] < 90 and pixel[2] < 90)


def on_screen(view: CameraView, x: float, y: float) -> tuple[int, int]:
    point = view.image_transform().map(QPointF(x, y))
    return round(point.x()), round(point.y())


def red_near(pixels: np.ndarray, x: int, y: int, radius: int = 2) -> bool:
    patch = pixels[max(y - radius, 0):y + radius + 1, max(x - radius, 0):x + radius + 1]
    return any(is_red(p) for p in patch.reshape(-1, 3))


@pytest.fixture
def view(qtbot: QtBot) -> CameraView:
    view = CameraView()
    qtbot.addWidget(view)
    view.resize(640, 480)
    view.set_image(grey_image())
    view.set_overlays([box_overlay()])
    view.show()
    qtbot.waitExposed(view)
    return view


def corners_are_red(view: CameraView) -> bool:
    pixels = grab(view)
    (x0, y0), (x1, y1) = BOX
    mid_x, mid_y = (x0 + x1) / 2, (y0 + y1) / 2
    edges = [on_screen(view, x, y) for x, y in ((x0, mid_y), (x1, mid_y), (mid_x, y0),
                                                 (mid_x, y1))]
    centre = on_screen(view, mid_x, mid_y)
    return all(red_near(pixels, x, y) for x, y in edges) and not red_near(pixels, *centre)


def test_box_is_drawn_on_its_image_pixels_when_fitted_and_zoomed(view: CameraView) -> None:
    assert view.is_fit() and view.view_scale() == pytest.approx(2.0)
    assert on_screen(view, *BOX[0]) == (200, 120)  # 2x, image fills the 640x480 view
    assert corners_are_red(view)
    view.zoom_by(1.5, QPointF(300, 200))
    assert view.view_scale() == pytest.approx(3.0)
    assert corners_are_red(view)
    x, y = view.map_to_image(QPointF(300, 200))
    assert (x, y) == pytest.approx((150.0, 100.0))  # the anchor kept its image pixel


def test_rotation_and_flip_carry_the_overlay_with_the_image(view: CameraView) -> None:
    view.set_orientation(1, flip_h=True, flip_v=False)
    assert corners_are_red(view)
    # the flip takes the top-left corner to the top-right, the clockwise turn that on to
    # the bottom-right
    x, y = on_screen(view, 0, 0)
    assert x > view.width() / 2 and y > view.height() / 2


def test_segments_turn_flip_and_zoom_with_the_image(view: CameraView) -> None:
    (x0, y0), (x1, y1) = BOX
    edges = np.array([(x0, y0), (x1, y0), (x1, y0), (x1, y1),
                      (x1, y1), (x0, y1), (x0, y1), (x0, y0)])
    shape = Shape("line_list", edges, color=RED, thickness=3.0)
    view.set_overlays([DrawnOverlay(ImageOverlay((shape,)), True)])
    view.set_orientation(1, flip_h=False, flip_v=False)  # a turn: not its own transpose
    view.zoom_by(1.5, QPointF(300, 200))
    assert corners_are_red(view)


def test_pan_moves_image_and_overlay_together(view: CameraView) -> None:
    before = on_screen(view, *BOX[0])
    view.pan_by(40, -25)
    assert on_screen(view, *BOX[0]) == (before[0] + 40, before[1] - 25)
    assert corners_are_red(view)


def test_snapshot_is_full_resolution_with_overlays(view: CameraView) -> None:
    snapshot = view.snapshot()
    assert (snapshot.width(), snapshot.height()) == (WIDTH, HEIGHT)
    colour = snapshot.pixelColor(100, 90)  # the box's left edge
    assert colour.red() > 180 and colour.green() < 90
    inside = snapshot.pixelColor(140, 90)
    assert abs(inside.red() - 90) < 4 and abs(inside.green() - 90) < 4


def test_a_turned_snapshot_has_its_overlays_turned_with_the_picture(view: CameraView) -> None:
    view.set_orientation(1, False, False)  # a quarter turn clockwise: (x, y) -> (h - y, x)
    snapshot = view.snapshot()
    assert (snapshot.width(), snapshot.height()) == (HEIGHT, WIDTH)
    (x0, y0), (_, y1) = BOX
    left_edge = snapshot.pixelColor(round(HEIGHT - (y0 + y1) / 2), round(x0))
    assert left_edge.red() > 180 and left_edge.green() < 90
    where_unturned = snapshot.pixelColor(round(x0), round((y0 + y1) / 2))
    assert where_unturned.red() < 120


def test_out_of_sync_overlay_is_faded(view: CameraView) -> None:
    view.set_overlays([box_overlay(in_sync=False)])
    pixels = grab(view)
    x, y = on_screen(view, BOX[0][0], (BOX[0][1] + BOX[1][1]) / 2)
    patch = pixels[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3)
    assert not any(is_red(p) for p in patch)  # faded towards the image
    assert max(int(p[0]) - int(p[1]) for p in patch) > 40  # yet still visibly reddish


def test_hover_names_the_image_pixel(view: CameraView, qtbot: QtBot) -> None:
    seen: list[tuple[float, float]] = []
    view.hovered.connect(lambda x, y: seen.append((x, y)))
    qtbot.mouseMove(view, view.image_transform().map(QPointF(10.5, 20.5)).toPoint())
    qtbot.waitUntil(lambda: bool(seen))
    assert math.floor(seen[-1][0]) == 10 and math.floor(seen[-1][1]) == 20


def test_message_veils_the_last_frame(view: CameraView) -> None:
    view.set_message("corrupt jpeg: bad Huffman table", grey=True)
    pixels = grab(view)
    corner = pixels[10, 10]
    assert corner.max() < 90  # the veil darkened the grey image


def test_qimage_refuses_what_it_cannot_show() -> None:
    with pytest.raises(ValueError):
        qimage_over(np.zeros((4, 4, 2), np.uint8))
    with pytest.raises(ValueError):
        qimage_over(np.zeros((4, 4), np.float32))
    strided = np.zeros((8, 8, 3), np.uint8)[:, ::2]
    assert qimage_over(strided).width() == 4


def test_overlays_are_clipped_to_the_picture(qtbot: QtBot) -> None:
    view = CameraView()
    qtbot.addWidget(view)
    view.resize(640, 240)  # the 320x240 picture fitted in the middle, black bars beside it
    view.set_image(grey_image())
    beyond = Shape("box", np.array(((250.0, 60.0), (420.0, 120.0))), color=RED, thickness=3.0)
    view.set_overlays([DrawnOverlay(ImageOverlay((beyond,)))])
    view.show()
    qtbot.waitExposed(view)
    pixels = grab(view)
    assert red_near(pixels, *on_screen(view, 250, 90))  # the edge inside the picture
    assert not red_near(pixels, *on_screen(view, 400, 60))  # the top edge past the picture


def pattern_image(width: int, height: int) -> np.ndarray:
    """B, G, R, X: a gradient with 64-pixel blocks, and 8-pixel dark and light stripes
    across its middle rows (detail only the full picture has)."""
    image = np.zeros((height, width, 4), np.uint8)
    image[..., 0] = np.linspace(0, 255, width, dtype=np.uint8)
    blocks = ((np.arange(height)[:, None] // 64 + np.arange(width)[None, :] // 64) % 2)
    image[..., 1] = (blocks * 200).astype(np.uint8)
    middle = slice(height // 2 - 40, height // 2 + 40)
    image[middle, :, :3] = 0
    image[middle, (np.arange(width) // 8) % 2 == 1, :3] = 220
    image[..., 3] = 255
    return image


def test_a_preview_made_for_the_view_is_drawn_in_place_of_the_full_picture(
        qtbot: QtBot) -> None:
    from app.convert.camera.display import preview_of

    full = pattern_image(1920, 1080)
    shown = {}
    for name in ("full", "preview"):
        view = CameraView()
        qtbot.addWidget(view)
        view.resize(640, 400)
        preview, scale = preview_of(full, view.fit_size()) if name == "preview" else (None, 1)
        view.set_image(full, preview, scale)
        view.set_overlays([box_overlay()])
        shown[name] = grab(view).astype(int)
        box_at = on_screen(view, *BOX[0])
        if name == "preview":
            assert preview is not None and scale == pytest.approx(view.view_scale(), rel=1e-3)
            assert (view.image_size(), view.snapshot().width()) == ((1920, 1080), 1920)
            view.one_to_one()  # zoomed past the preview: the full picture's own pixels
            pixels = grab(view)
            x, y = on_screen(view, 964, 540)  # the middle of a dark stripe, ...
            x_light, _ = on_screen(view, 972, 540)  # ... and of a light one
            assert pixels[y, x].max() < 40 and pixels[y, x_light].min() > 200
    # the same picture, the overlay on the same pixels
    above_stripes = slice(0, box_at[1] + 100)  # the box's corner is at row 60 of 1080
    assert np.abs(shown["full"] - shown["preview"])[above_stripes].mean() < 4
    assert red_near(shown["preview"].astype(np.uint8), *box_at)


def test_a_preview_is_only_made_when_the_picture_is_bigger_than_the_view() -> None:
    from app.convert.camera.display import preview_of

    image = pattern_image(1920, 1080)
    preview, scale = preview_of(image, (960, 1000))
    assert preview is not None and preview.shape == (540, 960, 4) and scale == 0.5
    assert preview_of(image, (2000, 1200)) == (None, 1.0)
    assert preview_of(image, None) == (None, 1.0)


def test_a_picture_shown_near_its_size_stays_sharp_and_far_below_it_is_smoothed(
        qtbot: QtBot) -> None:
    from app.convert.camera.display import UNRESAMPLED_FROM, preview_of

    stripes = np.zeros((500, 1000, 4), np.uint8)
    stripes[:, 1::2, :3] = 255  # one-pixel black and white columns
    stripes[..., 3] = 255
    view = CameraView()
    qtbot.addWidget(view)
    view.show()
    for width, sharp in ((985, True), (500, False)):
        view.resize(width, width // 2)
        preview, scale = preview_of(stripes, view.fit_size())
        assert (preview is None) == sharp  # near its size, not resampled for the view
        view.set_image(stripes, preview, scale)
        assert (view.view_scale() >= UNRESAMPLED_FROM) == sharp
        row = grab(view)[width // 4, 10:-10, 0].astype(int)
        pure = np.mean((row < 30) | (row > 225))
        # every pixel shown is one of the picture's own, or stripes blend into grey
        assert pure > 0.99 if sharp else pure < 0.2


def test_labels_at_the_same_place_are_stacked_not_drawn_over_each_other(
        view: CameraView) -> None:
    def label(fill: tuple[float, float, float, float]) -> Shape:
        return Shape("text", np.array([[40.0, 40.0]]), color=(1, 1, 1, 1), fill=fill,
                     text="person 0.90", size=14.0)

    blue = (0.0, 0.0, 1.0, 1.0)
    view.set_overlays([DrawnOverlay(ImageOverlay((label(RED),))),
                       DrawnOverlay(ImageOverlay((label(blue),)))])
    pixels = grab(view)
    reds = np.argwhere([[is_red(p) for p in row] for row in pixels])
    blues = np.argwhere((pixels[..., 2] > 180) & (pixels[..., 0] < 90) & (pixels[..., 1] < 90))
    assert len(reds) > 100 and len(blues) > 100  # both readable ...
    assert blues[:, 0].min() >= reds[:, 0].max() - 1  # ... the second just below the first


def test_a_label_drawn_again_in_another_colour_or_out_of_sync_changes_with_it(
        view: CameraView) -> None:
    """Labels are kept drawn between frames: the same text in another colour, or faded out
    of sync, is not the one kept."""
    def label(color: tuple[float, float, float, float], in_sync: bool = True) -> DrawnOverlay:
        shape = Shape("text", np.array([[40.0, 40.0]]), color=color, fill=(0, 0, 0, 1),
                      text="pallet 0.84", size=14.0)
        return DrawnOverlay(ImageOverlay((shape,)), in_sync)

    def reds() -> int:
        return int(sum(is_red(p) for row in grab(view) for p in row))

    view.set_overlays([label(RED)])
    assert reds() > 30
    view.set_overlays([label((0.0, 1.0, 0.0, 1.0))])
    assert reds() == 0
    view.set_overlays([label(RED, in_sync=False)])
    assert reds() == 0  # faded towards the picture


def test_a_picture_decoded_only_at_the_view_size(qtbot: QtBot) -> None:
    from app.convert.camera.display import preview_of

    full = pattern_image(1920, 1080)
    asked = []
    view = CameraView()
    qtbot.addWidget(view)
    view.resize(640, 400)
    preview, scale = preview_of(full, view.fit_size())
    view.set_image(None, preview, scale, size=(1920, 1080),
                   full=lambda: asked.append(1) or full)
    view.set_overlays([box_overlay()])
    assert view.image_size() == (1920, 1080) and view.fit_size() == (640, 400)
    assert red_near(grab(view), *on_screen(view, *BOX[0])) and not asked
    reference = CameraView()
    qtbot.addWidget(reference)
    reference.resize(640, 400)
    reference.set_image(full)
    for shown in (view, reference):
        shown.zoom_by(2.0, QPointF(0, 0))  # the top-left corner stays
    # zoomed past it, the preview stands in for the full picture (blurred, not blank) ...
    top = slice(0, 100)  # above the fine stripes
    assert np.abs(grab(view)[top].astype(int) - grab(reference)[top]).mean() < 10
    assert red_near(grab(view), *on_screen(view, *BOX[0]))
    # ... and the view asks for one at the size it now shows
    assert view.fit_size() == (math.ceil(1920 * view.view_scale()),
                               math.ceil(1080 * view.view_scale()))
    view.one_to_one()
    assert view.fit_size() == (1920, 1080)
    assert view.snapshot().width() == 1920 and asked == [1]  # decoded for the snapshot
    view.set_image(None)
    assert view.image_size() == (0, 0) and not view.has_picture()


def coloured_image(value: tuple[int, int, int]) -> np.ndarray:
    image = np.empty((HEIGHT, WIDTH, 4), np.uint8)
    image[..., :3] = value[::-1]  # B, G, R
    image[..., 3] = 255
    return image


def raw_pixels(view: CameraView) -> np.ndarray:
    """What a paint shows right now (no waiting for a layer being drawn)."""
    image = view.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    return np.array(image.constBits(), np.uint8).reshape(
        image.height(), image.bytesPerLine())[:, :image.width() * 3].reshape(
        image.height(), image.width(), 3)


def test_a_new_picture_waits_for_its_overlays_and_never_shows_the_old_ones(
        view: CameraView) -> None:
    """The overlays are drawn on their own thread: until that layer is ready the previous
    picture stays, with its own overlays — never the new picture with stale boxes."""
    assert corners_are_red(view)  # the grey picture with BOX, settled
    moved = ((20.0, 20.0), (60.0, 50.0))
    view.set_image(coloured_image((40, 40, 160)))
    view.set_overlays([DrawnOverlay(ImageOverlay((Shape("box", np.array(moved), color=RED,
                                                        thickness=3.0),)))])
    assert not view.overlays_ready()
    held = raw_pixels(view)  # the layer's arrival is an event not yet handled
    centre = on_screen(view, 250.0, 200.0)
    assert abs(int(held[centre[1], centre[0], 2]) - 90) < 6  # still the grey picture ...
    assert red_near(held, *on_screen(view, BOX[0][0], (BOX[0][1] + BOX[1][1]) / 2))
    shown = grab(view)  # ... until the layer comes: then both at once
    assert abs(int(shown[centre[1], centre[0], 2]) - 160) < 6
    assert red_near(shown, *on_screen(view, moved[0][0], (moved[0][1] + moved[1][1]) / 2))
    assert not red_near(shown, *on_screen(view, BOX[0][0], (BOX[0][1] + BOX[1][1]) / 2))


def test_overlays_are_painted_on_the_gui_thread_when_their_layer_cannot_be_drawn(
        view: CameraView, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> QImage:
        raise RuntimeError("no memory for the layer")

    monkeypatch.setattr(overlay_layers, "draw_layer", broken)
    view.set_image(coloured_image((40, 40, 160)))
    view.set_overlays([box_overlay()])
    assert corners_are_red(view)
    centre = on_screen(view, 250.0, 200.0)
    assert abs(int(grab(view)[centre[1], centre[0], 2]) - 160) < 6


def test_a_picture_is_shown_even_if_its_layer_never_comes(
        view: CameraView, monkeypatch: pytest.MonkeyPatch, qtbot: QtBot) -> None:
    monkeypatch.setattr(overlay_layers.LayerThread, "submit", lambda *args: None)
    view.set_image(coloured_image((40, 40, 160)))
    view.set_overlays([box_overlay()])
    centre = on_screen(view, 250.0, 200.0)
    qtbot.wait(round(MAX_HOLD_S * 1000) + 50)
    pixels = raw_pixels(view)
    assert abs(int(pixels[centre[1], centre[0], 2]) - 160) < 6
    assert corners_are_red(view)  # painted here instead


def test_an_overlay_made_by_a_function_is_made_once_off_the_gui_thread(
        view: CameraView) -> None:
    """3D boxes are projected where the overlays are drawn, not in the panel's tick."""
    made: list[str] = []

    def project() -> ImageOverlay:
        made.append(threading.current_thread().name)
        return ImageOverlay((Shape("box", np.array(BOX), color=RED, thickness=3.0),))

    view.set_overlays([DrawnOverlay(project)])
    assert corners_are_red(view)
    view.snapshot()
    assert made == ["camera-overlays"]


def test_an_overlay_whose_function_fails_draws_nothing_and_costs_nothing_else(
        view: CameraView) -> None:
    def broken() -> ImageOverlay:
        raise ValueError("camera_from_model must be a finite 4x4 matrix")

    view.set_overlays([DrawnOverlay(broken), box_overlay()])
    assert corners_are_red(view)  # the other overlay is still drawn


EXIT_WHILE_DRAWING = """
import numpy as np
from app.qt.application import create_application
app = create_application([])
from app.convert.camera.model import ImageOverlay, Shape
from widgets.camera_view import CameraView
from widgets.overlay_painter import DrawnOverlay
view = CameraView()
view.resize(960, 540)
view.show()
for _ in range(5):
    app.processEvents()
view.set_image(np.full((1080, 1920, 4), 90, np.uint8))
labels = tuple(Shape("text", np.array([[i % 1900, i * 7 % 1000]], float), text=f"label {i}",
                     size=14.0) for i in range(40000))  # seconds of drawing
view.set_overlays([DrawnOverlay(ImageOverlay(labels))])
app.processEvents()  # the layer is being drawn on its thread as the script ends
"""


@pytest.mark.slow
def test_the_process_exits_cleanly_while_a_layer_is_being_drawn() -> None:
    # not cut short, the layer aborted the process in 2 exits of 4
    assert_exits_cleanly(EXIT_WHILE_DRAWING, runs=2)
