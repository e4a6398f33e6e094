"""A log another tool wrote (the Foxglove SDK, protobuf schemas) opened in the window: its
camera image and its point cloud are on screen, pixels read back under Xvfb."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import foxglove
import foxglove.channels as fc
import foxglove.messages as fm
import numpy as np
import pytest
from PySide6.QtCore import QPointF

from app.qt.main_window import MainWindow
from tests.panels.test_camera_panel import grab

pytestmark = [pytest.mark.gl, pytest.mark.slow]
T0_NS = 1_760_000_000 * 1_000_000_000
WIDTH, HEIGHT = 160, 120
POINTS = 40_000


def red_left_blue_right() -> np.ndarray:
    image = np.zeros((HEIGHT, WIDTH, 3), np.uint8)  # BGR, as cv2 encodes
    image[:, : WIDTH // 2] = (0, 0, 230)
    image[:, WIDTH // 2:] = (230, 0, 0)
    return image


def cloud() -> fm.PointCloud:
    rng = np.random.default_rng(7)
    xyz = np.column_stack([rng.uniform(-8, 8, POINTS), rng.uniform(-8, 8, POINTS),
                           rng.uniform(0, 1, POINTS)]).astype(np.float32)
    return fm.PointCloud(
        timestamp=fm.Timestamp(sec=T0_NS // 10**9, nsec=0), frame_id="map",
        pose=fm.Pose(position=fm.Vector3(x=0, y=0, z=0),
                     orientation=fm.Quaternion(x=0, y=0, z=0, w=1)),
        point_stride=12,
        fields=[fm.PackedElementField(name=n, offset=4 * i,
                                      type=fm.PackedElementFieldNumericType.Float32)
                for i, n in enumerate("xyz")],
        data=xyz.tobytes())


@pytest.fixture
def sdk_log(tmp_path: Path) -> Path:
    path = tmp_path / "foxbot.mcap"
    context = foxglove.Context()
    with foxglove.open_mcap(path, context=context):
        camera = fc.CompressedImageChannel("/camera/front", context=context)
        points = fc.PointCloudChannel("/lidar/points", context=context)
        ok, jpeg = cv2.imencode(".jpg", red_left_blue_right(), [cv2.IMWRITE_JPEG_QUALITY, 95])
        assert ok
        for n in range(20):  # 2 s at 10 Hz
            at = T0_NS + n * 100_000_000
            stamp = fm.Timestamp(sec=at // 10**9, nsec=at % 10**9)
            camera.log(fm.CompressedImage(timestamp=stamp, frame_id="camera",
                                          data=jpeg.tobytes(), format="jpeg"), log_time=at)
            points.log(cloud(), log_time=at)
    return path


def test_a_foxglove_sdk_log_shows_its_image_and_its_point_cloud(
        make_main_window: Callable[..., MainWindow], qtbot: Any, sdk_log: Path) -> None:
    window = make_main_window(show=True)
    window.playback.open_log(sdk_log)
    qtbot.waitUntil(lambda: any(r.robot_id == "foxbot" and r.online
                                for r in window.station.robots()), timeout=10_000)
    window.set_active_robot("foxbot")
    camera = window.open_panel("camera")
    scene = window.open_panel("scene3d", {"camera": "top"})
    window.station.player.play()
    key = "fleet/foxbot/camera/front"

    def image_shown() -> bool:
        pixels = grab(camera.view)
        transform = camera.view.image_transform()
        left = transform.map(QPointF(WIDTH * 0.25, HEIGHT / 2))
        right = transform.map(QPointF(WIDTH * 0.75, HEIGHT / 2))
        r = pixels[round(left.y()), round(left.x())]
        b = pixels[round(right.y()), round(right.x())]
        return r[0] > 180 and r[2] < 60 and b[2] > 180 and b[0] < 60

    qtbot.waitUntil(lambda: camera._camera is not None and camera._camera.key == key
                    and image_shown(), timeout=15_000)

    def cloud_drawn() -> bool:
        layer = scene._wanted.get("fleet/foxbot/lidar/points")
        if layer is None or layer.version < 0 or layer.error:
            return False
        image = scene.view.render_image()
        background = image[0, 0, :3].astype(int)
        drawn = np.abs(image[..., :3].astype(int) - background).sum(axis=-1) > 40
        return drawn.mean() > 0.02

    qtbot.waitUntil(cloud_drawn, timeout=15_000)
