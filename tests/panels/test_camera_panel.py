"""The camera panel on real zenoh with real bytes: images shown, overlays where they say,
bad images explained on the panel at no other cost, the rover's camera with its detections
and its 3D boxes projected."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QImage

from app.bus.publisher import Publisher, Traffic
from app.bus.session import BusSession
from app.codec.buffers import encode_buffers
from app.codec.registry import registry
from tests.bus.helpers import wait_until_heard
from tests.widgets.view_pixels import shown_pixels as grab

TIMEOUT_MS = 20_000
CAMERA = "fleet/cam-1/camera/image"
ANNOTATIONS = "fleet/cam-1/camera/annotations"
WIDTH, HEIGHT = 320, 240
BOX = (60.0, 40.0, 200.0, 160.0)  # x0, y0, x1, y1 image pixels


def new(type_name: str, **fields: object):
    return registry().struct(type_name).new_message(**fields)


def stamp_of(message, seconds: float) -> None:
    message.timestamp.sec, message.timestamp.nsec = int(seconds), int(seconds % 1 * 1e9)


def jpeg_image(stamp: float, grey: int = 100) -> bytes:
    image = np.full((HEIGHT, WIDTH, 3), grey, np.uint8)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    message = new("foxglove.CompressedImage", frameId="cam", format="jpeg", data=data.tobytes())
    stamp_of(message, stamp)
    return message.to_bytes()


def box_annotation(stamp: float) -> bytes:
    message = new("foxglove.ImageAnnotations")
    [points] = message.init("points", 1)
    stamp_of(points, stamp)
    points.type = "lineLoop"
    x0, y0, x1, y1 = BOX
    corners = points.init("points", 4)
    for point, (x, y) in zip(corners, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), strict=True):
        point.x, point.y = x, y
    points.outlineColor.r, points.outlineColor.a = 1.0, 1.0
    points.thickness = 3.0
    return message.to_bytes()


class Robot:
    """Puts samples on keys of a robot session, again and again until told to stop."""

    def __init__(self, session: BusSession) -> None:
        self.session = session
        self.publishers: dict[str, Publisher] = {}

    def put(self, key: str, type_name: str, payload: bytes,
            attachment: bytes | None = None) -> None:
        if key not in self.publishers:
            self.publishers[key] = Publisher(self.session, key, type_name, Traffic.TELEMETRY)
            wait_until_heard(self.session, key)
        self.publishers[key].put(payload, attachment=attachment)

    def close(self) -> None:
        for publisher in self.publishers.values():
            publisher.close()


@pytest.fixture
def robot(open_session: Callable[..., BusSession], free_endpoint: str):
    robot = Robot(open_session(listen=[free_endpoint]))
    robot.session.declare_token("fleet/cam-1")  # the station hears robots it has seen
    yield robot
    robot.close()


def red_at(view, pixels: np.ndarray, x: float, y: float) -> bool:
    point = view.image_transform().map(QPointF(x, y))
    col, row = round(point.x()), round(point.y())
    patch = pixels[max(row - 2, 0):row + 3, max(col - 2, 0):col + 3].reshape(-1, 3)
    return any(p[0] > 170 and p[1] < 90 and p[2] < 90 for p in patch)


def box_on_screen(view) -> bool:
    pixels = grab(view)
    x0, y0, x1, y1 = BOX
    mid_x, mid_y = (x0 + x1) / 2, (y0 + y1) / 2
    edges = ((x0, mid_y), (x1, mid_y), (mid_x, y0), (mid_x, y1))
    return all(red_at(view, pixels, x, y) for x, y in edges) and \
        not red_at(view, pixels, mid_x, mid_y)


def keep_sending(qtbot, robot: Robot, until: Callable[[], bool], bad: bool = False,
                 sample: Callable[[float], None] | None = None) -> None:
    def step() -> bool:
        now = time.time()
        (sample or (lambda t: send_frame(robot, t)))(now)
        return until()

    qtbot.waitUntil(step, timeout=TIMEOUT_MS)


def send_frame(robot: Robot, stamp: float) -> None:
    robot.put(CAMERA, "foxglove.CompressedImage", jpeg_image(stamp))
    robot.put(ANNOTATIONS, "foxglove.ImageAnnotations", box_annotation(stamp))


def in_sync_overlays(panel) -> int:
    return sum(1 for d in panel.view._overlays if d.in_sync and d.overlay.shapes)


def test_an_annotation_lands_on_its_pixels_at_two_zoom_levels(make_main_window, robot, qtbot,
                                                             tmp_path: Path) -> None:
    window = make_main_window(show=True)
    panel = window.open_panel("camera", {"camera": CAMERA})
    keep_sending(qtbot, robot, lambda: panel.view.image_size() == (WIDTH, HEIGHT)
                 and in_sync_overlays(panel) == 1)
    assert panel.view.is_fit()
    qtbot.waitUntil(lambda: box_on_screen(panel.view))
    fitted = panel.view.view_scale()
    panel.view.zoom_by(1.5, QPointF(panel.view.width() / 2, panel.view.height() / 2))
    qtbot.waitUntil(lambda: box_on_screen(panel.view))
    assert panel.view.view_scale() == pytest.approx(fitted * 1.5)
    assert "320×240" in panel.status_line.text() and "jpeg" in panel.status_line.text()
    snapshot = tmp_path / "shot.png"
    assert panel.save_snapshot(str(snapshot))
    saved = QImage(str(snapshot))
    assert (saved.width(), saved.height()) == (WIDTH, HEIGHT)
    edge = saved.pixelColor(int(BOX[0]), int((BOX[1] + BOX[3]) / 2))
    assert edge.red() > 170 and edge.green() < 90


def test_a_new_picture_is_painted_in_the_tick_that_brings_it(make_main_window, robot,
                                                              qtbot, monkeypatch) -> None:
    """Not after the window's other panels and repaints: a camera is the operator's view of
    the robot, and waiting for Qt's next repaint added about a millisecond to each frame."""
    from widgets.camera_view import CameraView

    window = make_main_window(show=True)
    panel = window.open_panel("camera", {"camera": CAMERA})
    in_tick, painted_in_tick = [False], [False]
    new_pictures: list[bool] = []  # whether each was painted before its tick returned
    on_frame, paint_event = panel.on_frame, CameraView.paintEvent

    def tick(batch: object) -> None:
        shown = panel._shown.frame
        in_tick[0], painted_in_tick[0] = True, False
        on_frame(batch)
        in_tick[0] = False
        if panel._shown.frame is not shown:
            new_pictures.append(painted_in_tick[0])

    def paint(view: CameraView, event: object) -> None:
        if view is panel.view and in_tick[0]:
            painted_in_tick[0] = True
        paint_event(view, event)

    monkeypatch.setattr(panel, "on_frame", tick)
    monkeypatch.setattr(CameraView, "paintEvent", paint)
    keep_sending(qtbot, robot, lambda: len(new_pictures) >= 3,
                 sample=lambda t: robot.put(CAMERA, "foxglove.CompressedImage",
                                            jpeg_image(t)))
    assert all(new_pictures)


BIG = (2560, 1440)
SQUARE = (1200, 600, 1400, 800)  # x0, y0, x1, y1: white on grey
CHECKS = (100, 100, 200, 200)  # a one-pixel black and white checkerboard


def big_jpeg(stamp: float) -> bytes:
    image = np.full((BIG[1], BIG[0]), 100, np.uint8)
    x0, y0, x1, y1 = SQUARE
    image[y0:y1, x0:x1] = 255
    x0, y0, x1, y1 = CHECKS
    image[y0:y1, x0:x1] = np.indices((y1 - y0, x1 - x0)).sum(axis=0) % 2 * 255
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 100])
    assert ok
    message = new("foxglove.CompressedImage", frameId="cam", format="jpeg", data=data.tobytes())
    stamp_of(message, stamp)
    return message.to_bytes()


def test_a_big_jpeg_shown_small_is_decoded_small_and_in_full_when_needed(
        make_main_window, robot, qtbot, tmp_path: Path) -> None:
    window = make_main_window(show=True)
    panel = window.open_panel("camera", {"camera": CAMERA})
    payload = big_jpeg(time.time())
    shown = lambda: panel._shown.frame  # noqa: E731
    keep_sending(qtbot, robot, lambda: shown() is not None and shown().deferred,
                 sample=lambda t: robot.put(CAMERA, "foxglove.CompressedImage", payload))
    view = panel.view
    assert view.width() * 2 <= BIG[0], "the view must show the picture below half its size"
    assert view.image_size() == BIG and f"{BIG[0]}×{BIG[1]}" in panel.status_line.text()
    assert shown().preview.shape[1] <= view.width()  # decoded at the view's size

    def white_at(x: float, y: float) -> bool:
        point = view.image_transform().map(QPointF(x, y))
        return bool(grab(view)[round(point.y()), round(point.x())].min() > 200)

    x0, y0, x1, y1 = SQUARE
    qtbot.waitUntil(lambda: white_at((x0 + x1) / 2, (y0 + y1) / 2))
    assert not white_at(x0 - 60, (y0 + y1) / 2) and not white_at((x0 + x1) / 2, y1 + 60)
    # the readout under the cursor reads the full picture: one pixel black, the next white
    panel._on_hover(CHECKS[0] + 10.5, CHECKS[1] + 10.5)
    assert panel.pixel_line.text().startswith(f"({CHECKS[0] + 10}, {CHECKS[1] + 10}): ")
    dark = float(panel.pixel_line.text().split(": ")[1])
    panel._on_hover(CHECKS[0] + 11.5, CHECKS[1] + 10.5)
    light = float(panel.pixel_line.text().split(": ")[1])
    assert light - dark > 100  # (a picture at half size reads about 128 for both)
    snapshot = tmp_path / "shot.png"
    assert panel.save_snapshot(str(snapshot))
    saved = QImage(str(snapshot))
    assert (saved.width(), saved.height()) == BIG
    assert saved.pixelColor(1300, 700).red() > 200 and saved.pixelColor(1100, 700).red() < 150
    # at 1:1 the picture is needed in full: the next frames come decoded in full
    view.one_to_one()
    keep_sending(qtbot, robot, lambda: not shown().deferred,
                 sample=lambda t: robot.put(CAMERA, "foxglove.CompressedImage", payload))
    assert shown().image.shape == (BIG[1], BIG[0])
    view.fit()
    keep_sending(qtbot, robot, lambda: shown().deferred,
                 sample=lambda t: robot.put(CAMERA, "foxglove.CompressedImage", payload))


def test_a_full_picture_that_does_not_decode_is_said_and_costs_nothing(
        make_main_window, tmp_path: Path) -> None:
    from app.convert.camera.model import CameraFrame, FullPicture
    from app.convert.registry import ConversionError

    def fails() -> tuple[np.ndarray, None]:
        raise ConversionError("corrupt jpeg: bad Huffman table")

    window = make_main_window(show=True)
    panel = window.open_panel("camera", {"camera": CAMERA})
    preview = np.full((54, 96, 4), 120, np.uint8)
    panel._show(CameraFrame(FullPicture(960, 540, fails), preview=preview,
                            preview_scale=0.1), "")
    assert panel.view.image_size() == (960, 540)
    panel._on_hover(10.5, 10.5)
    assert panel.pixel_line.text() == "no pixel values: corrupt jpeg: bad Huffman table"
    assert not panel.save_snapshot(str(tmp_path / "shot.png"))
    assert window.statusBar().currentMessage() == "Snapshot: corrupt jpeg: bad Huffman table"
    assert not (tmp_path / "shot.png").exists()


def test_an_overlay_from_another_time_is_marked_not_in_sync(make_main_window, robot,
                                                            qtbot) -> None:
    window = make_main_window(show=True)
    panel = window.open_panel("camera", {"camera": CAMERA})

    def late(stamp: float) -> None:
        robot.put(CAMERA, "foxglove.CompressedImage", jpeg_image(stamp))
        robot.put(ANNOTATIONS, "foxglove.ImageAnnotations", box_annotation(stamp - 2.0))

    keep_sending(qtbot, robot, lambda: any(not d.in_sync for d in panel.view._overlays),
                 sample=late)
    assert in_sync_overlays(panel) == 0


def raw_image(width: int, height: int, encoding: str, data: bytes) -> bytes:
    message = new("foxglove.RawImage", frameId="cam", width=width, height=height,
                  encoding=encoding, step=0, data=data)
    stamp_of(message, time.time())
    return message.to_bytes()


BAD_IMAGES = {
    "corrupt jpeg": ("foxglove.CompressedImage", lambda: new(
        "foxglove.CompressedImage", format="jpeg",
        data=b"\xff\xd8\xff\xe0" + bytes(range(256)) * 4).to_bytes(), None, "jpeg"),
    "size mismatch": ("foxglove.RawImage", lambda: raw_image(
        WIDTH, HEIGHT, "rgb8", bytes(1000)), None, "needs"),
    "unknown encoding": ("foxglove.RawImage", lambda: raw_image(
        4, 4, "xyz42", bytes(48)), None, "unknown encoding"),
    "missing attachment": ("isaac.ImageProto", lambda: new(
        "isaac.ImageProto", elementType="uint8", rows=HEIGHT, cols=WIDTH, channels=3,
        dataBufferIndex=0).to_bytes(), None, "attachment"),
}


@pytest.mark.parametrize("case", sorted(BAD_IMAGES))
def test_a_bad_image_is_explained_on_the_panel_over_the_last_good_frame(
        make_main_window, robot, qtbot, case: str) -> None:
    type_name, payload, attachment, words = BAD_IMAGES[case]
    key = f"fleet/cam-1/bad/{case.replace(' ', '_')}"
    good = {
        "foxglove.CompressedImage": lambda: jpeg_image(time.time()),
        "foxglove.RawImage": lambda: raw_image(WIDTH, HEIGHT, "rgb8",
                                               bytes(WIDTH * HEIGHT * 3)),
        "isaac.ImageProto": lambda: new(
            "isaac.ImageProto", elementType="uint8", rows=HEIGHT, cols=WIDTH, channels=3,
            dataBufferIndex=0).to_bytes(),
    }[type_name]
    good_attachment = bytes(encode_buffers([np.zeros((HEIGHT, WIDTH, 3), np.uint8)])) \
        if type_name == "isaac.ImageProto" else None
    window = make_main_window(show=True)
    panel = window.open_panel("camera", {"camera": key})
    keep_sending(qtbot, robot, lambda: panel.view.image_size() == (WIDTH, HEIGHT),
                 sample=lambda _: robot.put(key, type_name, good(), good_attachment))
    keep_sending(qtbot, robot, lambda: words in panel.view._message.lower(),
                 sample=lambda _: robot.put(key, type_name, payload(), attachment))
    assert panel.view._greyed  # the last good frame stays, greyed behind the message
    assert panel.view.image_size() == (WIDTH, HEIGHT)
    assert window.station.status.internal_errors == 0  # a bad image is not our bug
    keep_sending(qtbot, robot, lambda: panel.view._message == "",
                 sample=lambda _: robot.put(key, type_name, good(), good_attachment))


def test_a_depth_image_is_colour_mapped_and_reads_metres(make_main_window, robot,
                                                        qtbot) -> None:
    key = "fleet/cam-1/depth"
    depth = np.tile(np.linspace(0.5, 8.0, WIDTH, dtype=np.float32), (HEIGHT, 1))
    window = make_main_window(show=True)
    panel = window.open_panel("camera", {"camera": key})
    keep_sending(qtbot, robot, lambda: panel.view.image_size() == (WIDTH, HEIGHT),
                 sample=lambda _: robot.put(key, "foxglove.RawImage", raw_image(
                     WIDTH, HEIGHT, "32FC1", depth.tobytes())))
    frame = panel._shown.frame
    assert frame.values is not None and frame.value_unit == "m"
    assert not np.array_equal(frame.image[:, 10], frame.image[:, -10])  # near and far differ
    panel._on_hover(WIDTH - 1.5, 10.5)
    assert panel.pixel_line.text() == f"({WIDTH - 2}, 10): {depth[10, WIDTH - 2]:.4g} m"
    assert "range" in panel.status_line.text()
    assert panel.set_depth_range("1 4")

    def fixed_range() -> bool:
        robot.put(key, "foxglove.RawImage", raw_image(WIDTH, HEIGHT, "32FC1", depth.tobytes()))
        shown = panel._shown.frame
        return shown is not None and shown.value_range == (1.0, 4.0)

    qtbot.waitUntil(fixed_range, timeout=TIMEOUT_MS)
    assert not panel.set_depth_range("4 1")  # refused, said why
    assert panel.save_state()["depth_range"] == [1.0, 4.0]


@pytest.mark.slow
def test_the_rover_camera_shows_its_detections_and_projected_boxes(make_main_window, fleet,
                                                                  qtbot) -> None:
    window = make_main_window(show=True)
    panel = window.open_panel("camera", {})
    window.set_active_robot("rover-1")

    def kinds() -> set[str]:
        return {s.kind for d in panel.view._overlays if d.in_sync for s in d.overlay.shapes}

    qtbot.waitUntil(lambda: panel._camera is not None and panel._shown.frame is not None,
                    timeout=TIMEOUT_MS)
    assert panel._camera.key == "fleet/rover-1/camera/image"  # the first camera listed
    qtbot.waitUntil(lambda: {"box", "line_list", "text"} <= kinds(), timeout=TIMEOUT_MS)
    camera = panel._camera

    def projected() -> int:  # 3D boxes in the camera's view, each its edges and a label
        frame, projector = panel._shown.frame, panel._projector
        return sum(len(project().shapes)
                   for project, _ in projector.overlays(frame, frame.stamp, camera))

    qtbot.waitUntil(lambda: projected() > 0, timeout=TIMEOUT_MS)  # the calibration is 1 Hz
    assert panel._projector.problem == ""
    assert "640×480" in panel.status_line.text()


def video_message(packet: bytes, stamp: float) -> bytes:
    message = new("foxglove.CompressedVideo", frameId="cam", format="h264", data=packet)
    stamp_of(message, stamp)
    return message.to_bytes()


def settled(qtbot, panel, quiet_ms: int = 500):
    """The frame the panel shows once it has not changed for ``quiet_ms``."""
    shown, since = panel._shown.frame, time.monotonic()
    deadline = since + TIMEOUT_MS / 1000
    while time.monotonic() - since < quiet_ms / 1000:
        assert time.monotonic() < deadline, "the camera never stopped changing its picture"
        qtbot.wait(20)
        if panel._shown.frame is not shown:
            shown, since = panel._shown.frame, time.monotonic()
    return shown


def test_an_h264_stream_with_a_lost_packet_recovers_at_the_next_key_frame(
        make_main_window, robot, qtbot) -> None:
    from tests.convert.camera.streams import encode, pictures

    key = "fleet/cam-1/camera/video"
    gop = 10
    packets = encode("h264", pictures(3 * gop), gop)
    window = make_main_window(show=True)
    panel = window.open_panel("camera", {"camera": key})
    sent = iter(range(10**6))

    def put(index: int) -> None:
        robot.put(key, "foxglove.CompressedVideo", video_message(packets[index], time.time()))

    # joined mid-stream: nothing is shown until a key frame, and the panel says so
    keep_sending(qtbot, robot, lambda: "key frame" in panel.view._message,
                 sample=lambda _: put(3 + next(sent) % 5))
    assert panel._shown.frame is None
    for index in range(gop, 2 * gop):  # a key frame and what follows: pictures
        put(index)
        qtbot.wait(15)
    qtbot.waitUntil(lambda: panel._shown.frame is not None and panel.view._message == "",
                    timeout=TIMEOUT_MS)
    shown = settled(qtbot, panel)  # the last of those pictures, not one still on its way
    for index in (2 * gop + 1, 2 * gop + 2):  # the key frame 2*gop is lost on the way
        put(index)
        qtbot.wait(15)
    qtbot.waitUntil(lambda: "recovering" in panel.view._message, timeout=TIMEOUT_MS)
    assert panel.view._greyed and panel._shown.frame is shown  # no picture of lost references
    put(0)  # the next key frame
    qtbot.waitUntil(lambda: panel.view._message == "" and panel._shown.frame is not shown,
                    timeout=TIMEOUT_MS)
    assert "h264" in panel.status_line.text()
    assert window.station.status.internal_errors == 0


@pytest.mark.slow
def test_the_humanoid_h264_camera_is_offered_and_shown(make_main_window, fleet, qtbot) -> None:
    window = make_main_window(show=True)
    panel = window.open_panel("camera", {"camera": "fleet/humanoid-1/vision#head_camera_h264"})
    window.set_active_robot("humanoid-1")
    qtbot.waitUntil(lambda: panel._shown.frame is not None, timeout=TIMEOUT_MS)
    assert panel._shown.frame.encoding == "h264"
    assert panel._shown.frame.source == "head_camera_h264"
    qtbot.waitUntil(lambda: "fleet/humanoid-1/vision#head_camera" in [  # its JPEG beside it
        panel.camera_box.itemData(i) for i in range(panel.camera_box.count())],
        timeout=TIMEOUT_MS)
