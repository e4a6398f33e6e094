"""The 3D view: a 1M-point isaac cloud arriving at 10 Hz, bytes on the bus to pixels.

A robot session puts ``isaac.PointCloudProto`` samples (positions and intensities in the
attachment) at 10 Hz. The app side is the real path: the station's lane decodes and converts
each newest sample (off the GUI thread), a 30 Hz tick hands the newest to the 3D panel's
view, which uploads it once and renders; the frame is read back, so its pixels exist.
Per frame: put -> pixels. Baseline, same run: a bare vispy gloo program uploading the same
points from a numpy array already in memory and drawing them (target at most 1.3x).
Also: GUI-thread time per tick spent on the cloud (handing it to the view, turning the scene
into GL commands; the view draws on its render thread), and the frames the lane dropped.
Under Mesa (llvmpipe, ~170 ns a point) 1M points cannot reach 10 Hz; the 10 Hz goal is a GPU
figure.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from app.bus.config import BusConfig
from app.bus.publisher import Publisher, Traffic
from app.bus.session import BusSession
from app.codec.buffers import encode_buffers, fill_tensor
from app.codec.registry import registry
from app.qt.application import create_application
from app.station.interests import Converted
from app.station.station import Station
from tests.bench.bench_scene_view import bare_points_frame_s
from tests.bench.common import iterations, median, report, short_mode
from tests.conftest import free_port

KEY = "fleet/bench-1/lidar/points"
RATE_HZ = 10.0
TICK_S = 1 / 30
SIZE = (960, 540)


def cloud_sample(points: int, seed: int = 0) -> tuple[bytes, bytes, np.ndarray]:
    rng = np.random.default_rng(seed)
    xyz = rng.uniform(-10, 10, (points, 3)).astype(np.float32)
    xyz[:, 2] *= 0.2
    intensity = rng.uniform(0, 1, points).astype(np.float32)
    cloud = registry().structs["isaac.PointCloudProto"].new_message()
    fill_tensor(cloud.init("positions"), xyz, 0)
    fill_tensor(cloud.init("intensities"), intensity, 1)
    return cloud.to_bytes(), bytes(encode_buffers([xyz, intensity])), xyz


def publish(robot: BusSession, payload: bytes, attachment: bytes, count: int,
            stop: threading.Event) -> None:
    publisher = Publisher(robot, KEY, "isaac.PointCloudProto", Traffic.TELEMETRY)
    next_at = time.monotonic()
    for _ in range(count):
        if stop.is_set():
            break
        time.sleep(max(0.0, next_at - time.monotonic()))
        publisher.put(payload, attachment=attachment)
        next_at += 1 / RATE_HZ
    publisher.close()


def view_pipeline(points: int, frames: int) -> tuple[list[float], list[float], int]:
    """(put -> pixels per shown frame, GUI-thread seconds per tick with a new cloud, dropped)."""
    from widgets.scene_view import SceneView

    app = create_application()
    payload, attachment, _ = cloud_sample(points)
    endpoint = f"tcp/127.0.0.1:{free_port()}"
    view = SceneView()
    view.resize(*SIZE)
    view.show()
    view.look_at((0.0, 0.0, 0.0), 30.0)
    group = view.group("cloud")
    # as the panel draws a cloud with intensities by default: coloured by intensity
    group.set_point_style("value", (1.0, 1.0, 1.0, 1.0), 2.0, None)
    latencies, gui = [], []
    with BusSession(BusConfig(listen=[endpoint])) as robot:
        station = Station(BusConfig(connect=[endpoint]))
        interest = Converted(KEY, "isaac.point_cloud")
        consumer = station.consumer("bench")
        consumer.want({interest})
        stop = threading.Event()
        try:
            while station.status.session != "online":
                app.processEvents()
                time.sleep(0.01)
            time.sleep(0.5)
            putter = threading.Thread(target=publish, args=(robot, payload, attachment,
                                                            frames, stop))
            putter.start()
            shown = -1
            next_tick = time.monotonic()
            while putter.is_alive():  # the GUI thread's frame clock
                next_tick += TICK_S
                time.sleep(max(0.0, next_tick - time.monotonic()))
                app.processEvents()
                value = station.feeds.converted.get(interest)
                station.feeds.frame_taken()
                if value is None or value.version == shown or value.value is None:
                    continue
                shown = value.version
                started = time.perf_counter()
                group.set_points(value.value.xyz, value.version, value.value.intensity)
                handed = time.perf_counter() - started
                view.render_image()  # drawn and read back: the pixels exist
                # the GUI thread's part: handing over and walking the scene; the drawing is
                # the render thread's (here waited for, as the app never does)
                gui.append(handed + view.canvas.native.walk_seconds[-1])
                # the sample's zenoh timestamp is its put (the robot's session stamps it)
                latencies.append(time.time() - value.stamp)
            stop.set()
            putter.join()
            dropped = station.feeds.lane_stats().get(KEY)
        finally:
            consumer.close()
            station.close()
            view.close()
    return latencies, gui, dropped.dropped if dropped is not None else 0


def run() -> list[str]:
    points = 100_000 if short_mode() else 1_000_000
    frames = iterations(40, 6)
    _, _, xyz = cloud_sample(points)
    create_application()
    bare = bare_points_frame_s(xyz, size=SIZE, frames=iterations(10, 2))
    latencies, gui, dropped = view_pipeline(points, frames)
    label = f"{points // 1000}k" if points < 1_000_000 else "1M"
    lines = [
        report(f"3D view {label} points at 10 Hz, bus to pixels per frame "
               "(put -> read back / bare gloo upload + draw)", median(latencies), bare, 1.3),
        report(f"3D view {label} points, GUI-thread time per tick with a new cloud "
               "(hand to view + scene to GL commands; drawn on the render thread / bare gloo "
               "upload + draw)", median(gui), bare),
    ]
    print(f"  {len(latencies)} frames shown of {frames} sent, {dropped} dropped by the lane "
          f"(newest won); Mesa llvmpipe: the 10 Hz goal is a GPU figure", flush=True)
    return lines


if __name__ == "__main__":
    run()
