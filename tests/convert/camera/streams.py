"""Real video streams for the camera tests and benchmarks: synthetic pictures with known
content, encoded with PyAV the way live cameras encode (no B-frames, no look-ahead)."""

from __future__ import annotations

import fractions

import av
import numpy as np

BACKGROUND = (40, 70, 110)
SQUARE = (230, 50, 40)
# test name -> PyAV encoder, its options (every one low-latency: a packet out per picture)
ENCODERS = {
    "h264": ("libx264", {"preset": "ultrafast", "tune": "zerolatency"}),
    "h265": ("libx265", {"preset": "ultrafast", "tune": "zerolatency",
                         "x265-params": "log-level=error"}),
    "vp8": ("libvpx", {"deadline": "realtime", "lag-in-frames": "0", "cpu-used": "8"}),
    "vp9": ("libvpx-vp9", {"deadline": "realtime", "lag-in-frames": "0", "cpu-used": "8"}),
    "av1": ("libsvtav1", {"preset": "10", "svtav1-params": "pred-struct=1:rtc=1"}),
}


def square_at(index: int, width: int) -> int:
    """Left edge of picture ``index``'s square: it moves 7 px a picture."""
    return (index * 7) % (width - 64)


def pictures(count: int, width: int = 320, height: int = 240) -> list[np.ndarray]:
    """RGB pictures: a flat background, a band whose grey level counts the pictures, and a
    64-pixel square moving right."""
    out = []
    for i in range(count):
        image = np.empty((height, width, 3), np.uint8)
        image[:] = BACKGROUND
        image[: height // 8] = (i * 23) % 200 + 30
        x, y = square_at(i, width), height // 3
        image[y:y + 64, x:x + 64] = SQUARE
        out.append(image)
    return out


def encode(codec: str, images: list[np.ndarray], gop: int = 10, slices: int = 0) -> list[bytes]:
    """One packet (access unit / frame) per picture; a key frame every ``gop`` pictures.
    ``slices``: H.264 slices per picture (0 = the encoder's choice)."""
    name, options = ENCODERS[codec]
    context = av.CodecContext.create(name, "w")
    height, width = images[0].shape[:2]
    context.width, context.height = width, height
    context.pix_fmt = "yuv420p"
    context.time_base = fractions.Fraction(1, 30)
    context.framerate = fractions.Fraction(30, 1)
    context.gop_size = gop
    context.max_b_frames = 0
    if slices:
        options = {**options, "x264-params": f"slices={slices}"}
    context.options = options
    packets: list[bytes] = []
    for index, image in enumerate(images):
        frame = av.VideoFrame.from_ndarray(image, format="rgb24")
        frame.pts = index
        packets += [bytes(p) for p in context.encode(frame)]
    packets += [bytes(p) for p in context.encode(None)]
    assert len(packets) == len(images), f"{codec}: {len(packets)} packets"
    return packets
