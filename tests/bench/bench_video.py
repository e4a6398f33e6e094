"""1080p H.264 through the camera's video path — foxglove CompressedVideo bytes, as a key's
lane hands them over, decoded to the message, through the VideoFeed's decoder to the RGB
picture in its snapshot — against bare PyAV decoding the same packets into the same RGB
arrays (h264, SLICE threading, ``to_ndarray("rgb24")``), same run.

The ratio is of the process's CPU time (the decoder's slice threads included): what the path
costs the machine. Wall time per frame is printed beside it; on a shared machine it swings by
more than the difference between the two."""

from __future__ import annotations

import time
from collections.abc import Callable

import av
import numpy as np

from app.bus.subscription import RawSample
from app.camera.video_stream import VideoFeed
from app.codec.decode import encoding_for
from app.codec.registry import registry
from app.station.lane import Delivery
from tests.bench.common import iterations, median, report
from tests.convert.camera.streams import encode

WIDTH, HEIGHT = 1920, 1080
SLICES = 4  # live H.264 encoders cut pictures in slices (x264 zerolatency: one a thread)
TARGET = 1.2


def pictures(count: int) -> list[np.ndarray]:
    """Detailed moving content (a drifting colour pattern and a square), so the decoder has
    real work, not a still frame's skipped blocks."""
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float32)
    out = []
    for i in range(count):
        phase = i * 0.15
        image = np.empty((HEIGHT, WIDTH, 3), np.uint8)
        image[..., 0] = 128 + 100 * np.sin(x / 37 + phase) * np.cos(y / 53)
        image[..., 1] = 128 + 100 * np.sin((x + y) / 71 - phase)
        image[..., 2] = 128 + 100 * np.cos(x / 97 - y / 41 + 2 * phase)
        left = (i * 24) % (WIDTH - 200)
        image[400:600, left:left + 200] = (230, 50, 40)
        out.append(image)
    return out


def payloads(packets: list[bytes]) -> list[bytes]:
    out = []
    for index, packet in enumerate(packets):
        msg = registry().struct("foxglove.CompressedVideo").new_message()
        msg.timestamp.sec = 1_700_000_000 + index
        msg.frameId = "camera"
        msg.data = packet
        msg.format = "h264"
        out.append(msg.to_bytes())
    return out


def ours(messages: list[bytes]) -> None:
    feed = VideoFeed()
    encoding = encoding_for("foxglove.CompressedVideo")
    for seq, payload in enumerate(messages, 1):
        sample = RawSample("robot/camera", encoding, payload, None, 0.0, 0.0, None, seq)
        feed.on_delivery(Delivery(sample, _no_errors))
        assert feed.latest().version == seq


def bare(packets: list[bytes]) -> None:
    context = av.CodecContext.create("h264", "r")
    context.thread_type = "SLICE"
    for packet in packets:
        for frame in context.decode(av.Packet(packet)):
            frame.to_ndarray(format="rgb24")


def _no_errors(key: str, exc: Exception) -> None:
    raise AssertionError(f"{key}: {exc}")


def _timed(action: Callable[[], None]) -> tuple[float, float]:
    """(CPU, wall) seconds."""
    cpu, wall = time.process_time(), time.perf_counter()
    action()
    return time.process_time() - cpu, time.perf_counter() - wall


def run() -> list[str]:
    count = iterations(30, 8)
    packets = encode("h264", pictures(count), gop=30, slices=SLICES)
    messages = payloads(packets)
    ours(messages)  # warm: codec tables, schema plans
    bare(packets)
    mine: list[tuple[float, float]] = []
    baseline: list[tuple[float, float]] = []
    for round_ in range(iterations(11, 1)):  # interleaved, alternating which goes first,
        pair = [(baseline, lambda: bare(packets)), (mine, lambda: ours(messages))]
        for times, action in pair[::-1] if round_ % 2 else pair:  # so load drifts hit both
            cpu, wall = _timed(action)
            times.append((cpu / count, wall / count))
    kib = sum(map(len, packets)) / count / 1024
    print(f"video: 1080p H.264, {SLICES} slices, {kib:.0f} KiB a frame; wall per frame "
          f"{median([w for _, w in mine]) * 1e3:.2f} ms ours, "
          f"{median([w for _, w in baseline]) * 1e3:.2f} ms bare PyAV")
    return [report("video 1080p H.264 -> RGB picture, CPU (CompressedVideo path / bare PyAV)",
                   median([c for c, _ in mine]), median([c for c, _ in baseline]), TARGET)]


if __name__ == "__main__":
    run()
