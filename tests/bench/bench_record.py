"""Recording: (a) the recorder's throughput writing the simulated fleet's samples (a 1M-point
isaac cloud with its attachment at 10 Hz, 1080p JPEG-sized images, many small messages)
against a bare ``mcap`` Writer loop writing the same file content with the same compression
and chunk size; (b) samples dropped when the full fleet's load is offered in real time
(target 0); (c) a seek in the middle of a 1 GB log (short mode: 50 MB): the newest sample of
each key there, against reading the one chunk at that time with the mcap library."""

from __future__ import annotations

import struct
import tempfile
import time
from pathlib import Path

from mcap.reader import make_reader
from mcap.writer import CompressionType, Writer

from app.record import format as fmt
from app.record.reader import LogReader
from app.record.sink import CHUNK_BYTES, McapSink
from app.record.writer import Recorder
from tests.bench.common import MISSED, fmt_seconds, iterations, median, report, short_mode
from tests.record.fleet import FleetSample, fleet_samples

THROUGHPUT_TARGET = 1.2
SEEK_TARGET_S = 0.5
T0 = 1_700_000_000.0
JPEG_1080P_BYTES = 400_000  # a 1080p JPEG of a street scene at quality ~90
IMAGE = "application/capnp;foxglove.CompressedImage"


def load() -> list[FleetSample]:
    """One second of the fleet with a 1M-point cloud at 10 Hz (short mode: 100k points) and
    a 1080p JPEG-sized image at 10 Hz."""
    points = 100_000 if short_mode() else 1_000_000
    samples = fleet_samples(1.0, points=points, lidar_hz=10.0, camera_size=(640, 480))
    jpeg = bytes(range(256)) * (JPEG_1080P_BYTES // 256)
    samples += [FleetSample("fleet/rover-1/camera/front_1080p", IMAGE, jpeg, None, n / 10)
                for n in range(10)]
    return sorted(samples, key=lambda s: s.at_s)


def record(samples: list[FleetSample], path: Path) -> float:
    started = time.perf_counter()
    recorder = Recorder(path)
    for s in samples:
        recorder.offer(s.key, s.encoding, s.payload, s.attachment, T0 + s.at_s, T0 + s.at_s)
    status = recorder.close()
    assert status.messages == len(samples) and not status.dropped, status
    return time.perf_counter() - started


def bare(samples: list[FleetSample], path: Path) -> float:
    """The same file content from a plain mcap Writer loop."""
    started = time.perf_counter()
    with open(path, "wb") as stream:
        writer = Writer(stream, chunk_size=CHUNK_BYTES, compression=CompressionType.LZ4)
        writer.start(profile=fmt.PROFILE)
        schemas: dict[str, int] = {}
        channels: dict[tuple[str, str, bool], int] = {}
        for s in samples:
            attached = s.attachment is not None
            channel = channels.get((s.key, s.encoding, attached))
            if channel is None:
                type_name = fmt.type_name_of(s.encoding) or ""
                if type_name not in schemas:
                    schemas[type_name] = writer.register_schema(
                        type_name, "capnp", fmt.schema_text(type_name) or b"")
                channel = channels[(s.key, s.encoding, attached)] = writer.register_channel(
                    s.key, "capnp+attachment" if attached else "capnp", schemas[type_name],
                    {"zenoh_encoding": s.encoding})
            data = s.payload if s.attachment is None else b"".join(
                (struct.pack("<I", len(s.payload)), s.payload, s.attachment))
            log_ns = int((T0 + s.at_s) * 1e9)
            writer.add_message(channel, log_ns, data, log_ns)
        writer.finish()
    return time.perf_counter() - started


def throughput(samples: list[FleetSample], folder: Path) -> str:
    ours, baseline = [], []
    for round_ in range(iterations(5, 1)):  # interleaved, so load drifts hit both alike
        baseline.append(bare(samples, folder / f"bare-{round_}.mcap"))
        ours.append(record(samples, folder / f"ours-{round_}.mcap"))
    megabytes = sum(len(s.payload) + len(s.attachment or b"") for s in samples) / 1e6
    line = report(f"recording {megabytes:.0f} MB of fleet samples (Recorder / bare mcap Writer "
                  "loop, lz4, same chunk size)", median(ours), median(baseline),
                  THROUGHPUT_TARGET)
    print(f"  ({megabytes / median(ours):.0f} MB/s recorded)", flush=True)
    return line


def realtime_drops(samples: list[FleetSample], folder: Path) -> str:
    seconds = iterations(5, 2)
    recorder = Recorder(folder / "realtime.mcap")
    start = time.time()
    behind = 0
    for second in range(seconds):
        for s in samples:
            due = start + second + s.at_s
            if (wait := due - time.time()) > 0:
                time.sleep(wait)
            recorder.offer(s.key, s.encoding, s.payload, s.attachment, time.time(), due)
        behind += recorder.status().behind
    closing = time.perf_counter()
    status = recorder.close()
    close_s = time.perf_counter() - closing
    dropped = sum(status.dropped.values())
    points = "100k" if short_mode() else "1M"
    line = (f"recording the full fleet + a {points}-point cloud at 10 Hz in real time for "
            f"{seconds} s: {dropped} samples dropped of {len(samples) * seconds}, behind in "
            f"{behind} of {seconds} s, close (the rest of the queue + summary) "
            f"{fmt_seconds(close_s)} "
            f"[target 0 dropped: {'met' if dropped == 0 else 'MISSED'}]")
    print(line, flush=True)
    if dropped:
        MISSED.append(line)
    return line


def build_log(samples: list[FleetSample], path: Path, size: int) -> tuple[int, int]:
    """A log of at least ``size`` bytes: the fleet's second repeated; (start, end) ns."""
    with open(path, "wb") as stream:
        sink = McapSink(stream)
        second = 0
        while stream.tell() < size:
            for s in samples:
                log_ns = int((T0 + second + s.at_s) * 1e9)
                sink.write_sample(s.key, s.encoding, s.payload, s.attachment, log_ns, log_ns)
            second += 1
        sink.finish()
    return int(T0 * 1e9), int((T0 + second) * 1e9)


def seek(samples: list[FleetSample], folder: Path) -> list[str]:
    size = (50 if short_mode() else 1024) * 1024 * 1024
    path = folder / "big.mcap"
    start_ns, end_ns = build_log(samples, path, size)
    middle = (start_ns + end_ns) // 2
    opened = time.perf_counter()
    reader = LogReader(path)
    open_s = time.perf_counter() - opened
    keys = {c.key for c in reader.channels()}
    times, baseline = [], []
    for _ in range(iterations(5, 2)):
        started = time.perf_counter()
        found = reader.latest_before(middle, 10 * 10**9)
        times.append(time.perf_counter() - started)
        assert {s.key for s in found} == keys
        with open(path, "rb") as stream:  # the mcap library reading the chunks at `middle`
            started = time.perf_counter()
            sum(1 for _ in make_reader(stream).iter_messages(starting_at=middle,
                                                             ending_at=middle))
            baseline.append(time.perf_counter() - started)
    reader.close()
    label = f"{path.stat().st_size / 2**30:.2f} GiB" if not short_mode() else (
        f"{path.stat().st_size / 2**20:.0f} MiB")
    lines = [report(f"seek to the middle of a {label} log, newest sample of {len(keys)} keys "
                    "(latest_before / mcap reading the chunks at that instant)",
                    median(times), median(baseline))]
    verdict = "met" if median(times) < SEEK_TARGET_S else "MISSED"
    absolute = (f"seek to the middle of a {label} log: {fmt_seconds(median(times))} "
                f"[target < {SEEK_TARGET_S} s: {verdict}]; opening it (index from the summary) "
                f"{fmt_seconds(open_s)}")
    print(absolute, flush=True)
    if verdict == "MISSED":
        MISSED.append(absolute)
    return [*lines, absolute]


def run() -> list[str]:
    samples = load()
    with tempfile.TemporaryDirectory(prefix="bench-record-") as folder:
        lines = [throughput(samples, Path(folder)), realtime_drops(samples, Path(folder))]
        lines += seek(samples, Path(folder))
    return lines


if __name__ == "__main__":
    run()
