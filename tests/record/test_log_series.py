"""A plotted series read from a whole log: a real MCAP of real fleet Uplink messages,
written by the recorder, read back into the points the feeds would have drawn."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from app.codec.decode import encoding_for
from app.codec.registry import registry
from app.logbook.log_series import LogSeriesLoader, series_from_log
from app.record.reader import LogReader
from app.record.writer import Recorder
from app.station.feeds import FeedHub
from app.station.interests import Series
from app.station.playback import LogTraffic
from tests.bus.helpers import wait_for

MOTION = "fleet/rover-1/uplink/motion"
BATTERY = "fleet/rover-1/uplink/battery"
SPEED = "motion.velocity.linearMps"
PERCENT = "battery.percentage"
UPLINK = encoding_for("fleet.Uplink")
T0 = 1_700_000_000.0
MOTION_HZ = 20
SECONDS = 30
UNSTAMPED = {7, 100}  # motion samples without unixTimeMs: plotted at the zenoh time


def speed_at(i: int) -> float:
    return float(np.sin(i / 10.0) * 2.0)


def uplink(member: str, unix_ms: int) -> object:
    message = registry().struct("fleet.Uplink").new_message(robotId="rover-1",
                                                            unixTimeMs=unix_ms)
    return message, message.init(member)


def write_rover_log(path: Path, seconds: int = SECONDS, offset_s: float = 0.0) -> Path:
    """``seconds`` of the rover's motion (20 Hz, linear speed sin(i/10)*2) and battery
    (1 Hz, 100 - i %) as the recorder writes them; each message stamped 5 ms before its
    receipt (the motion samples in UNSTAMPED carry no stamp), a catalog-free log."""
    recorder = Recorder(path)
    for i in range(seconds * MOTION_HZ):
        at = T0 + offset_s + i / MOTION_HZ
        message, motion = uplink("motion", 0 if i in UNSTAMPED else round((at - 0.005) * 1000))
        motion.velocity.linearMps = speed_at(i)
        assert recorder.offer(MOTION, UPLINK, message.to_bytes(), None, at, at - 0.002)
        if i % MOTION_HZ == 0:
            message, battery = uplink("battery", round((at - 0.005) * 1000))
            battery.percentage = 100.0 - i / MOTION_HZ
            assert recorder.offer(BATTERY, UPLINK, message.to_bytes(), None, at + 0.001, None)
    status = recorder.close()
    assert not status.error
    return path


@pytest.fixture(scope="module")
def rover_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_rover_log(tmp_path_factory.mktemp("log") / "rover.mcap")


@pytest.fixture
def reader(rover_log: Path) -> Iterator[LogReader]:
    with LogReader(rover_log) as opened:
        yield opened


def played_series(reader: LogReader, key: str, path: str) -> tuple[np.ndarray, np.ndarray]:
    """The series the feeds make of the log played through the station's log traffic."""
    hub = FeedHub()
    consumer = hub.consumer("plot")
    consumer.want({Series(key, path)})
    traffic = LogTraffic(hub.route, "fleet", lambda *_: None)
    try:
        for sample in reader.samples():
            traffic.deliver(sample)
        buffer = hub.series[Series(key, path)]
        expected = sum(1 for s in reader.samples(keys=[key]))
        wait_for(lambda: len(buffer) >= expected)
        return buffer.arrays()
    finally:
        hub.close()


def test_the_whole_log_gives_every_sample_as_the_feeds_plot_it(reader: LogReader) -> None:
    t, y = series_from_log(reader, MOTION, SPEED).arrays()
    count = SECONDS * MOTION_HZ
    assert len(t) == count
    stamps = np.array([T0 + i / MOTION_HZ - (0.002 if i in UNSTAMPED else 0.005)
                       for i in range(count)])
    assert np.allclose(t, stamps, atol=1e-5)  # the message stamp, else zenoh's
    assert np.allclose(y, [speed_at(i) for i in range(count)])
    assert t[0] == pytest.approx(reader.start_ns / 1e9 - 0.005, abs=1e-5)
    assert t[-1] == pytest.approx(reader.end_ns / 1e9 - 0.005, abs=1e-5)

    played_t, played_y = played_series(reader, MOTION, SPEED)
    assert np.allclose(played_t, t, rtol=0, atol=2e-6) and np.array_equal(played_y, y)

    _, battery_y = series_from_log(reader, BATTERY, PERCENT).arrays()
    assert np.allclose(battery_y, [100.0 - s for s in range(SECONDS)])


def test_a_path_the_messages_lack_is_said_on_the_series(reader: LogReader) -> None:
    buffer = series_from_log(reader, MOTION, "motion.velocity.nope")
    assert len(buffer) == 0 and "nope" in buffer.error
    text = series_from_log(reader, MOTION, "robotId")  # there, but not a number
    assert len(text) == 0 and not text.error


def test_reading_stops_when_cancelled_and_reports_progress(reader: LogReader) -> None:
    seen: list[float] = []
    calls = iter(range(10**9))
    buffer = series_from_log(reader, MOTION, SPEED, cancelled=lambda: next(calls) >= 50,
                             on_progress=seen.append)
    assert len(buffer) == 50
    assert seen == [0.0]  # reported every PROGRESS_EVERY samples: the first only

    seen.clear()
    series_from_log(reader, MOTION, SPEED, on_progress=seen.append)
    assert len(seen) == 2 and 0.0 == seen[0] < seen[1] < 1.0


def test_the_loader_reads_what_is_asked_in_turn_and_stops_when_closed(
        reader: LogReader) -> None:
    loader = LogSeriesLoader(reader)
    try:
        speed = loader.series(MOTION, SPEED)
        percent = loader.series(BATTERY, PERCENT)
        assert loader.series(MOTION, SPEED) is speed  # asked twice, read once
        wait_for(lambda: speed.done and percent.done)
        assert speed.progress == percent.progress == 1.0
        assert len(speed.buffer) == SECONDS * MOTION_HZ and len(percent.buffer) == SECONDS
        assert not speed.buffer.error
    finally:
        loader.close()
    loader.join(2)
    assert not loader._thread.is_alive()
    late = loader.series(MOTION, "motion.velocity.angularRps")
    assert not late.done and len(late.buffer) == 0  # closed: nothing more is read


def test_a_log_closed_under_the_loader_says_so_on_the_series(rover_log: Path) -> None:
    reader = LogReader(rover_log)
    loader = LogSeriesLoader(reader)
    reader.close()  # the station closed it (another log opened) before the panel noticed
    try:
        entry = loader.series(MOTION, SPEED)
        wait_for(lambda: entry.done)
    finally:
        loader.close()
    assert len(entry.buffer) == 0
    assert entry.buffer.error.startswith("cannot read the log: ")
    assert "Bad file descriptor" in entry.buffer.error
