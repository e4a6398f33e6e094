"""The black box keeps the last N seconds within its byte bound and saves exactly that
window (after its head) as a complete MCAP file."""

from __future__ import annotations

import threading
from pathlib import Path

from app.record.blackbox import BlackBox
from app.record.format import LivelinessEvent, LoggedSample
from app.record.reader import LogReader
from tests.record.conftest import T0, ns, offer_all
from tests.record.fleet import FleetSample


def test_evicts_by_age(fleet: list[FleetSample]) -> None:
    box = BlackBox(seconds=1.0)
    offer_all(box, fleet)
    newest = max(ns(T0 + s.at_s) for s in fleet)
    kept = box.window()
    want = [s for s in fleet if ns(T0 + s.at_s) >= newest - ns(1.0)]
    assert [(e.key, e.payload) for e in kept] == [(s.key, s.payload) for s in want]
    assert abs(box.span_s() - 1.0) < 1e-6
    assert box.bytes() >= sum(len(s.payload) + len(s.attachment or b"") for s in want)


def test_evicts_by_bytes() -> None:
    box = BlackBox(seconds=60.0, max_bytes=50_000)
    for n in range(100):
        box.offer("fleet/rover-1/x", "text/plain", bytes([n]) * 1000, None, T0 + n * 0.01, None)
    kept = box.window()
    assert box.bytes() <= 50_000
    assert 30 < len(kept) < 50
    assert [e.payload[0] for e in kept] == list(range(100 - len(kept), 100))


def test_saves_exactly_the_window_after_its_head(tmp_path: Path,
                                                 fleet: list[FleetSample]) -> None:
    box = BlackBox(seconds=1.5)
    box.offer_liveliness("fleet/rover-1", True, T0 - 5)  # older than the window: evicted
    offer_all(box, fleet)
    window = box.window()
    catalog = next(s for s in fleet if s.key == "fleet/rover-1/catalog")
    head = [LivelinessEvent("fleet/rover-1", True, ns(T0 - 5)),
            LoggedSample(catalog.key, catalog.encoding, catalog.payload, None, ns(T0), ns(T0))]
    path = box.save(tmp_path / "incident.mcap", head)
    with LogReader(path) as reader:
        assert reader.closed_cleanly and reader.problems == []
        samples = list(reader.samples())
        start = window[0].log_time_ns
        assert samples[0].key == catalog.key and samples[0].log_time_ns == start
        assert samples[0].publish_time_ns == ns(T0)  # restated at the window's start
        assert [(s.key, s.payload, s.attachment, s.log_time_ns) for s in samples[1:]] == [
            (e.key, e.payload, e.attachment, e.log_time_ns) for e in window]
        assert [(e.key, e.alive, e.log_time_ns) for e in reader.liveliness()] == [
            ("fleet/rover-1", True, start)]
        assert reader.start_ns == start


def test_keeps_taking_samples_while_saving(tmp_path: Path) -> None:
    box = BlackBox(seconds=60.0)
    big = bytes(4_000_000)
    for n in range(20):
        box.offer("fleet/rover-1/cloud", "text/plain", big, big, T0 + n * 0.1, None)
    offered = threading.Event()

    def offer_during_save() -> None:
        box.offer("fleet/rover-1/x", "text/plain", b"during", None, T0 + 5, None)
        offered.set()

    saver = threading.Thread(target=box.save, args=(tmp_path / "big.mcap",))
    saver.start()
    offer_during_save()
    assert offered.is_set() and saver.is_alive()  # the offer did not wait for the file
    saver.join()
    with LogReader(tmp_path / "big.mcap") as reader:
        assert sum(1 for _ in reader.samples()) in (20, 21)
