"""The recorder under pressure: splits into parts that each play alone, drops counted when
the disk cannot keep up (offering never blocks), and a full disk."""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path
from typing import BinaryIO

import pytest

from app.record import writer
from app.record.reader import LogReader
from app.record.writer import Recorder
from tests.record.conftest import T0, ns, offer_all
from tests.record.fleet import FleetSample

CATALOGS = {"fleet/rover-1/catalog", "fleet/humanoid-1/catalog", "fleet/car-1/catalog"}


class Disk:
    """A real file whose writes are slowed, or fail with ENOSPC past ``limit`` bytes (the
    bytes up to the limit are written, as a full disk does)."""

    def __init__(self, path: Path, delay_s: float = 0.0, limit: int | None = None) -> None:
        self._file: BinaryIO = open(path, "wb")  # noqa: SIM115 (closed by close())
        self._delay_s = delay_s
        self._limit = limit
        self.written = 0

    def write(self, data: bytes) -> int:
        time.sleep(self._delay_s)
        if self._limit is not None and self.written + len(data) > self._limit:
            room = self._limit - self.written
            self._file.write(data[:room])
            self._file.flush()
            self.written += room
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.written += len(data)
        return self._file.write(data)

    def tell(self) -> int:
        return self._file.tell()

    def flush(self) -> None:
        self._file.flush()

    def fileno(self) -> int:
        return self._file.fileno()

    def close(self) -> None:
        self._file.close()


def non_catalog(samples: list) -> list[tuple]:
    return [(s.key, s.payload, s.attachment) for s in samples if s.key not in CATALOGS]


@pytest.mark.parametrize("limit", [{"split_bytes": 300_000}, {"split_s": 1.0}])
def test_split_parts_each_play_alone_and_together_hold_every_sample(
        tmp_path: Path, fleet: list[FleetSample], limit: dict[str, float]) -> None:
    recorder = Recorder(tmp_path / "run.mcap", **limit)
    recorder.offer_liveliness("fleet/rover-1", True, T0 - 0.1)
    offer_all(recorder, fleet)
    status = recorder.close()
    assert status.error == "" and len(status.files) >= 3
    assert [p.name for p in status.files] == [f"run-{i:03d}.mcap"
                                              for i in range(1, len(status.files) + 1)]
    assert status.bytes_written == sum(p.stat().st_size for p in status.files)
    found = []
    for path in status.files:
        with LogReader(path) as reader:
            assert reader.closed_cleanly and reader.problems == []
            samples = list(reader.samples())
            # each part starts with presence and every robot's latest catalog
            assert {s.key for s in samples[:3]} == CATALOGS
            assert reader.liveliness()[0].key == "fleet/rover-1"
            assert reader.liveliness()[0].alive
            if "split_s" in limit:
                assert (reader.end_ns - reader.start_ns) / 1e9 < 1.0
            found += non_catalog(samples)
    assert found == non_catalog(fleet)


def test_a_slow_disk_drops_samples_counted_per_key_and_offers_never_block(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer, "open_part", lambda path: Disk(path, delay_s=0.05))
    recorder = Recorder(tmp_path / "slow.mcap", max_queue_bytes=200_000, chunk_bytes=20_000)
    refused: dict[str, int] = {}
    slowest = 0.0
    behind = False
    for n in range(600):
        key = f"fleet/rover-1/k{n % 3}"
        started = time.perf_counter()
        ok = recorder.offer(key, "application/octet-stream", n.to_bytes(4, "little") * 2500,
                            None, T0 + n * 0.001, None)
        slowest = max(slowest, time.perf_counter() - started)
        if not ok:
            refused[key] = refused.get(key, 0) + 1
        behind = behind or recorder.status().behind
    status = recorder.close()
    assert refused and status.dropped == refused
    assert behind and not status.behind
    assert slowest < 0.02  # never waits for the disk
    with LogReader(tmp_path / "slow.mcap") as reader:
        kept = sum(1 for _ in reader.samples())
    assert kept == status.messages == 600 - sum(refused.values())


def test_a_full_disk_stops_with_one_line_and_leaves_a_readable_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fleet: list[FleetSample]) -> None:
    monkeypatch.setattr(writer, "open_part", lambda path: Disk(path, limit=400_000))
    recorder = Recorder(tmp_path / "full.mcap", chunk_s=0.25)
    offered = offer_all(recorder, fleet)
    deadline = time.monotonic() + 10
    while not recorder.status().error and time.monotonic() < deadline:
        time.sleep(0.01)
    late = recorder.offer("fleet/rover-1/late", "text/plain", b"x", None, T0 + 9, None)
    status = recorder.close()
    assert status.error == f"cannot write {tmp_path / 'full.mcap'}: No space left on device"
    assert not late and status.dropped["fleet/rover-1/late"] == 1
    assert status.messages + sum(status.dropped.values()) == len(offered) + 1  # all counted
    assert (tmp_path / "full.mcap").stat().st_size == 400_000
    with LogReader(tmp_path / "full.mcap") as reader:
        assert not reader.closed_cleanly
        samples = list(reader.samples())
        assert any("inside a" in p for p in reader.problems), reader.problems
    got = [(s.key, s.payload, s.attachment) for s in samples]
    assert 0 < len(got) < len(fleet)
    want = [(s.key, s.payload, s.attachment) for s in fleet]
    assert got == want[:len(got)]  # a prefix: everything up to the last complete chunk
    assert status.messages >= len(samples)  # what went into the cut chunk is counted too


def test_an_idle_chunk_is_written_within_a_second(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "idle.mcap")
    recorder.offer("fleet/rover-1/x", "text/plain", b"only", None, T0, None)
    time.sleep(1.6)
    with LogReader(tmp_path / "idle.mcap") as reader:  # still open: read by a scan
        assert [s.payload for s in reader.samples()] == [b"only"]
        assert reader.start_ns == ns(T0)
    recorder.close()
