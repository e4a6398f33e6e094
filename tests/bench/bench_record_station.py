"""Recording and playback through the station: (d) the app's CPU while it records the full
simulated fleet, against the same station not recording; (e) a seek to the middle of a 1 GB
log (short mode: 50 MB) until the camera frame there is ready to paint, against the reader
alone finding the newest sample of every key there."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from app.logbook.station_tap import StationTap
from app.record.reader import LogReader
from app.record.writer import Recorder
from app.station.embedded_sim import EmbeddedSim
from app.station.interests import Converted
from app.station.station import Station
from tests.bench.bench_record import MISSED, SEEK_TARGET_S, build_log, load
from tests.bench.common import (
    fmt_seconds,
    iterations,
    median,
    process_cpu_per_s,
    report,
    short_mode,
)
from tests.conftest import free_port

CAMERA = Converted("fleet/rover-1/camera/image", "camera.image", prompt=True)


def recording_cpu(folder: Path) -> list[str]:
    seconds = iterations(15, 2)
    fleet = EmbeddedSim(f"tcp/127.0.0.1:{free_port()}")
    station = Station(fleet.bus_config())
    try:
        time.sleep(iterations(3, 2))  # connected, robots and catalogs found
        quiet = process_cpu_per_s(seconds)
        recorder = Recorder(folder / "fleet.mcap")
        tap = StationTap(station, recorder)
        busy = process_cpu_per_s(seconds)
        tap.close()
        status = recorder.close()
    finally:
        station.close()
        fleet.stop()
    dropped = sum(status.dropped.values())
    line = report("app CPU recording the full fleet / the same station not recording",
                  busy, quiet)
    detail = (f"  (CPU: {100 * busy:.1f} % of a core recording, {100 * quiet:.1f} % not; "
              f"{status.messages} messages, {status.bytes_written / 2**20:.0f} MiB, "
              f"{dropped} dropped)")
    print(detail, flush=True)
    return [line, detail]


def seek_to_frame(folder: Path) -> list[str]:
    samples = load()
    size = (50 if short_mode() else 1024) * 1024 * 1024
    path = folder / "big.mcap"
    start_ns, end_ns = build_log(samples, path, size)
    station = Station(EmbeddedSim(f"tcp/127.0.0.1:{free_port()}", start=False).bus_config())
    viewer = station.consumer("camera")
    viewer.want({CAMERA})
    times, bare = [], []
    try:
        station.play(LogReader(path))
        deadline = time.monotonic() + 30
        while station.player is None and time.monotonic() < deadline:
            time.sleep(0.01)
        player = station.player
        assert player is not None, station.status
        for n in range(iterations(5, 2)):
            target = start_ns + (end_ns - start_ns) * (n + 2) // (iterations(5, 2) + 3)
            seen = station.feeds.converted.get(CAMERA)
            started = time.perf_counter()
            player.seek(target)
            while True:
                value = station.feeds.converted.get(CAMERA)
                if value is not seen and value is not None and value.value is not None \
                        and abs(value.stamp - target / 1e9) < 1.0:
                    break
                if time.perf_counter() - started > 10:
                    raise RuntimeError("the frame never came after the seek")
                time.sleep(0.0005)
            times.append(time.perf_counter() - started)
            started = time.perf_counter()
            player.reader.latest_before(target, 10 * 10**9)
            bare.append(time.perf_counter() - started)
    finally:
        viewer.close()
        station.close()
    label = f"{path.stat().st_size / 2**30:.2f} GiB" if not short_mode() else (
        f"{path.stat().st_size / 2**20:.0f} MiB")
    line = report(f"seek in a {label} log until its camera frame is ready to paint / the "
                  "reader finding every key's newest sample there", median(times), median(bare))
    verdict = "met" if median(times) < SEEK_TARGET_S else "MISSED"
    absolute = (f"seek to a frame in a {label} log: {fmt_seconds(median(times))} "
                f"[target < {SEEK_TARGET_S} s: {verdict}]")
    print(absolute, flush=True)
    if verdict == "MISSED":
        MISSED.append(absolute)
    return [line, absolute]


def run() -> list[str]:
    with tempfile.TemporaryDirectory(prefix="bench-record-station-") as folder:
        return recording_cpu(Path(folder)) + seek_to_frame(Path(folder))


if __name__ == "__main__":
    run()
