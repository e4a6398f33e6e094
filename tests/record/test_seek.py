"""A seek: the newest sample of each key at a time, from only the chunks that hold them,
on a cleanly closed file and on one indexed by a scan."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.record import reader as reader_module
from app.record.format import LoggedSample
from app.record.index import ChunkInfo
from app.record.reader import LogReader
from app.record.writer import Recorder
from tests.record.conftest import T0, ns

RATES = {"fleet/rover-1/fast": 50.0, "fleet/rover-1/slow": 2.0, "fleet/car-1/rare": 0.2}
SECONDS = 120.0
STOPS_AT = {"fleet/car-1/rare": 30.0}  # this key goes quiet after 30 s


def offers() -> list[tuple[str, bytes, float]]:
    found = []
    for key, rate in RATES.items():
        n = 0
        while n / rate < min(SECONDS, STOPS_AT.get(key, SECONDS)):
            found.append((key, f"{key}#{n}".encode() + bytes(200), T0 + n / rate))
            n += 1
    return sorted(found, key=lambda o: o[2])


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("seek") / "long.mcap"
    recorder = Recorder(path)  # a chunk per second of log time: 120 chunks
    for key, payload, at in offers():
        recorder.offer(key, "application/octet-stream", payload, None, at, None)
    recorder.close()
    return path


def oracle(t: float, lookback: float) -> dict[str, bytes]:
    best: dict[str, bytes] = {}
    for key, payload, at in offers():
        if ns(t) - ns(lookback) <= ns(at) <= ns(t):
            best[key] = payload
    return best


class Counting:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reads = 0
        original = reader_module.chunk_records

        def counted(fd: int, chunk: ChunkInfo) -> bytes:
            self.reads += 1
            return original(fd, chunk)

        monkeypatch.setattr(reader_module, "chunk_records", counted)


@pytest.mark.parametrize("damaged", [False, True])
def test_latest_before_gives_each_keys_newest_sample_reading_few_chunks(
        tmp_path: Path, log: Path, monkeypatch: pytest.MonkeyPatch, damaged: bool) -> None:
    path = log
    if damaged:  # the summary cut away: the same answers from an index built by a scan
        path = tmp_path / "cut.mcap"
        path.write_bytes(log.read_bytes()[:-500])
    with LogReader(path) as reader:
        assert reader.closed_cleanly is not damaged
        counter = Counting(monkeypatch)
        for t, lookback in [(60.0, 100.0), (60.0, 5.0), (29.99, 100.0), (119.5, 1.0),
                            (0.0, 1.0), (-1.0, 1.0)]:
            counter.reads = 0
            found: list[LoggedSample] = reader.latest_before(ns(T0 + t), ns(lookback))
            want = oracle(T0 + t, lookback)
            assert {s.key: s.payload for s in found} == want, (t, lookback)
            assert [s.log_time_ns for s in found] == sorted(s.log_time_ns for s in found)
            assert counter.reads <= len(want)  # one chunk per key at most, of 120


def test_latest_before_takes_the_last_of_equal_times(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "ties.mcap")
    for payload in (b"first", b"second"):
        recorder.offer("fleet/rover-1/x", "text/plain", payload, None, T0, None)
    recorder.close()
    with LogReader(tmp_path / "ties.mcap") as reader:
        assert [s.payload for s in reader.latest_before(ns(T0), 0)] == [b"second"]
