"""A synthetic head camera: a ray-cast view of a tiled field, a ridge on the horizon and a
few coloured posts, rendered with numpy from the camera's world pose and JPEG-encoded.

World frame: X east, Y up, Z north (the bow seed's axes with forward = north).
"""

from __future__ import annotations

import fractions
import math
from typing import Any

import cv2
import numpy as np

# Posts standing in the field: (east m, north m, BGR colour).
POSTS = (
    (6.0, 4.0, (40, 40, 220)),
    (-5.0, 9.0, (220, 120, 30)),
    (10.0, -7.0, (30, 200, 230)),
    (-9.0, -6.0, (200, 60, 200)),
    (2.0, 15.0, (240, 240, 240)),
)
POST_HEIGHT_M = 2.0
POST_WIDTH_M = 0.25
FOG_DISTANCE_M = 60.0
JPEG_QUALITY = 80
KEY_FRAME_EVERY = 15  # pictures: 1.5 s at the humanoid's 10 Hz

_SKY_ZENITH = (190.0, 120.0, 60.0)  # BGR
_SKY_HORIZON = (235.0, 215.0, 190.0)
_RIDGE = (120.0, 130.0, 110.0)
_GRASS = ((60.0, 140.0, 70.0), (45.0, 115.0, 55.0))  # the two tiles of the 1 m checkerboard


class HeadCamera:
    def __init__(self, width: int = 320, height: int = 240, hfov_deg: float = 90.0) -> None:
        self.width = width
        self.height = height
        self.focal = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
        self.hfov_deg = hfov_deg
        self.vfov_deg = math.degrees(2 * math.atan((height / 2) / self.focal))
        u, v = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
        # Per-pixel ray in the camera frame (X right, Y up, Z forward = 1), flattened.
        self._ray_x = ((u - width / 2) / self.focal).astype(np.float32).ravel()
        self._ray_y = ((height / 2 - v) / self.focal).astype(np.float32).ravel()
        self._encoder: Any = None
        self._pts = 0

    def render(self, position: np.ndarray, rotation: np.ndarray, caption: str) -> np.ndarray:
        """BGR image seen from ``position`` (world, m) with camera-to-world ``rotation``."""
        r = rotation.astype(np.float32)
        dx = r[0, 0] * self._ray_x + r[0, 1] * self._ray_y + r[0, 2]
        dy = r[1, 0] * self._ray_x + r[1, 1] * self._ray_y + r[1, 2]
        dz = r[2, 0] * self._ray_x + r[2, 1] * self._ray_y + r[2, 2]
        horizontal = np.hypot(dx, dz)

        ground = dy < -1e-4
        t = np.float32(position[1]) / -np.minimum(dy, np.float32(-1e-4))
        east = np.float32(position[0]) + t * dx
        north = np.float32(position[2]) + t * dz
        checker = ((np.floor(east) + np.floor(north)).astype(np.int32) & 1).astype(np.float32)
        fog = np.clip(t * horizontal / FOG_DISTANCE_M, 0.0, 1.0)
        up = np.clip(dy / np.hypot(horizontal, dy), 0.0, 1.0)
        tan_elevation = dy / np.maximum(horizontal, np.float32(1e-6))
        azimuth = np.arctan2(dx, dz)
        ridge = ~ground & (
            tan_elevation < 0.03 + 0.02 * np.sin(3 * azimuth) + 0.012 * np.sin(7 * azimuth + 1)
        )
        channels = []
        for c in range(3):
            grass = _GRASS[1][c] + (_GRASS[0][c] - _GRASS[1][c]) * checker
            field = grass + (_SKY_HORIZON[c] - grass) * fog
            sky = _SKY_HORIZON[c] + (_SKY_ZENITH[c] - _SKY_HORIZON[c]) * up
            channels.append(np.where(ground, field, np.where(ridge, _RIDGE[c], sky)))
        frame = np.stack(channels, axis=-1).astype(np.uint8).reshape(self.height, self.width, 3)
        self._draw_posts(frame, position, rotation)
        cv2.putText(frame, caption, (6, self.height - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    (255, 255, 255), 1, cv2.LINE_AA)
        return frame

    def _draw_posts(self, frame: np.ndarray, position: np.ndarray, rotation: np.ndarray) -> None:
        world_to_camera = rotation.T
        visible = []
        for east, north, colour in POSTS:
            foot = world_to_camera @ (np.array([east, 0.0, north]) - position)
            if foot[2] > 0.3:
                visible.append((foot[2], foot, colour))
        for depth, foot, colour in sorted(visible, key=lambda item: -item[0]):  # far first
            top = foot + world_to_camera @ np.array([0.0, POST_HEIGHT_M, 0.0])
            half = 0.5 * POST_WIDTH_M * self.focal / depth
            u = self.width / 2 + self.focal * foot[0] / foot[2]
            v_foot = self.height / 2 - self.focal * foot[1] / foot[2]
            v_top = self.height / 2 - self.focal * top[1] / max(top[2], 0.3)
            cv2.rectangle(frame, (int(u - half), int(v_top)), (int(u + half), int(v_foot)),
                          colour, thickness=-1)

    def h264(self, frame: np.ndarray) -> bytes:
        """The next access unit (Annex B) of the camera's live H.264 stream: x264 without
        B-frames or look-ahead, so each picture leaves as it is encoded; SPS/PPS with every
        key frame (IDR), as foxglove CompressedVideo asks."""
        if self._encoder is None:
            self._encoder = _h264_encoder(self.width, self.height)
        picture = _av().VideoFrame.from_ndarray(frame, format="bgr24")
        picture.pts = self._pts
        self._pts += 1
        return b"".join(bytes(packet) for packet in self._encoder.encode(picture))

    def jpeg(self, frame: np.ndarray) -> bytes:
        ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            raise RuntimeError("JPEG encoding failed")
        return encoded.tobytes()


def _av() -> Any:
    import av  # here: the app's start-up path (which may start the sim) stays without PyAV

    return av


def _h264_encoder(width: int, height: int) -> Any:
    encoder = _av().CodecContext.create("libx264", "w")
    encoder.width, encoder.height = width, height
    encoder.pix_fmt = "yuv420p"
    encoder.time_base = fractions.Fraction(1, 10)
    encoder.gop_size = KEY_FRAME_EVERY
    encoder.max_b_frames = 0
    encoder.thread_count = 1  # the sim shares two cores with the station
    encoder.options = {"preset": "ultrafast", "tune": "zerolatency"}
    return encoder
