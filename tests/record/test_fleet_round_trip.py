"""The simulated fleet recorded through the station, played back onto zenoh and into the
station: byte for byte, in order per key, on time, with its robots and topics."""

from __future__ import annotations

import difflib
import statistics
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.bus import catalog as catalog_mod
from app.bus.config import BusConfig
from app.bus.session import BusSession
from app.logbook.station_tap import StationTap
from app.record.format import LoggedSample
from app.record.reader import LogReader
from app.record.republish import Republisher
from app.record.writer import Recorder
from app.sim.fleet import SimFleet
from app.station.interests import Latest
from app.station.station import Station
from tests.bus.helpers import wait_for
from tests.conftest import free_port

ROBOTS = {"rover-1", "humanoid-1", "car-1"}
RECORD_S = 3.0

pytestmark = pytest.mark.slow


class Heard:
    """Every sample a plain zenoh subscriber receives: the reference."""

    def __init__(self, bus: BusSession, key_expr: str = "fleet/**") -> None:
        self.samples: dict[str, list[tuple[str, bytes, bytes | None, float]]] = \
            defaultdict(list)
        self._lock = threading.Lock()
        bus.declare_subscriber(key_expr, self._receive)

    def _receive(self, sample: Any) -> None:
        attachment = sample.attachment.to_bytes() if sample.attachment is not None else None
        with self._lock:
            self.samples[str(sample.key_expr)].append(
                (str(sample.encoding), sample.payload.to_bytes(), attachment, time.monotonic()))


@pytest.fixture(scope="module")
def fleet_log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Heard, Any]]:
    path = tmp_path_factory.mktemp("record") / "fleet.mcap"
    endpoint = f"tcp/127.0.0.1:{free_port()}"
    with SimFleet(["rover", "humanoid", "car"], listen=[endpoint], points=20_000), \
            BusSession(BusConfig(mode="peer", connect=[endpoint])) as reference_bus:
        station = Station(BusConfig(mode="peer", connect=[endpoint]))
        try:
            wait_for(lambda: {r.robot_id for r in station.robots()
                              if r.online and r.catalog is not None} == ROBOTS, timeout=20)
            heard = Heard(reference_bus)
            recorder = Recorder(path)
            tap = StationTap(station, recorder)
            time.sleep(RECORD_S)
            tap.close()
            status = recorder.close()
            time.sleep(0.3)
        finally:
            station.close()
    yield path, heard, status


def by_key(samples: Iterator[LoggedSample]) -> dict[str, list[LoggedSample]]:
    keyed: dict[str, list[LoggedSample]] = defaultdict(list)
    for sample in samples:
        keyed[sample.key].append(sample)
    return keyed


def test_the_recording_holds_every_sample_byte_for_byte(fleet_log) -> None:
    path, heard, status = fleet_log
    assert status.error == "" and not any(status.dropped.values())
    reader = LogReader(path)
    try:
        assert reader.closed_cleanly and not reader.problems
        logged = by_key(reader.samples())
        robots = {e.key for e in reader.liveliness() if e.alive}
    finally:
        reader.close()
    assert robots == {f"fleet/{r}" for r in ROBOTS}
    assert {f"fleet/{r}/catalog" for r in ROBOTS} <= set(logged)
    data_keys = [k for k in logged if not k.endswith("/catalog")]
    assert len(data_keys) >= 20  # the fleet's topics, from every robot
    # Every topic that kept publishing while the recorder ran is in the file.
    assert {k for k, heard_ in heard.samples.items() if len(heard_) >= 4} <= set(data_keys)
    missed = total = 0
    for key in data_keys:
        recorded = [(s.encoding, s.payload, s.attachment) for s in logged[key]]
        reference = [(e, p, a) for e, p, a, _ in heard.samples[key]]
        # Telemetry is sent drop-on-congestion (PROTOCOL.md), so under load a sample may
        # reach one session and not the other: aligned, what both saw is the same, in order.
        blocks = [b for b in difflib.SequenceMatcher(None, reference, recorded,
                                                     autojunk=False).get_matching_blocks()
                  if b.size]
        matched = sum(b.size for b in blocks)
        window = blocks[-1].a + blocks[-1].size - blocks[0].a  # the reference while recording
        missed += (window - matched) + (len(recorded) - matched)
        total += window
        times = [s.log_time_ns for s in logged[key]]
        assert times == sorted(times)
    assert missed <= total * 0.05  # 1.1 % seen with the suite on both cores: drops, not bytes


def test_played_back_onto_zenoh_every_sample_comes_again_in_order_and_on_time(
        fleet_log) -> None:
    path, _, _ = fleet_log
    reader = LogReader(path)
    logged = by_key(reader.samples())
    endpoint = f"tcp/127.0.0.1:{free_port()}"
    with BusSession(BusConfig(mode="peer", listen=[endpoint])) as bus, \
            BusSession(BusConfig(mode="peer", connect=[endpoint], must_connect=True)) as other:
        heard = Heard(other)
        replay = Republisher(bus, reader)
        try:
            replay.start()
            wait_for(replay.done, timeout=RECORD_S * 4)
            time.sleep(0.5)
            catalog = catalog_mod.fetch(other, "rover-1", timeout_s=2.0)
            alive = other.zenoh.liveliness().get("fleet/*", timeout=2.0)
            tokens = {str(reply.ok.key_expr) for reply in alive if reply.ok is not None}
        finally:
            replay.close()
    assert catalog is not None and catalog.model == "sim-rover"
    assert tokens == {f"fleet/{r}" for r in ROBOTS}
    data_keys = [k for k in logged if not k.endswith("/catalog")]
    first_log = min(logged[k][0].log_time_ns for k in data_keys)
    first_heard = min(heard.samples[k][0][3] for k in data_keys if heard.samples[k])
    late = []
    for key in data_keys:
        assert [(s.encoding, s.payload, s.attachment) for s in logged[key]] == \
            [(e, p, a) for e, p, a, _ in heard.samples[key]], key
        late += [abs((at - first_heard) - (s.log_time_ns - first_log) / 1e9)
                 for s, (_, _, _, at) in zip(logged[key], heard.samples[key], strict=True)]
    assert statistics.median(late) < 0.05
    assert sorted(late)[int(len(late) * 0.95)] < 0.2


def test_the_station_shows_the_same_robots_and_topics_in_playback(fleet_log) -> None:
    path, _, _ = fleet_log
    station = Station(BusConfig(mode="peer", listen=[f"tcp/127.0.0.1:{free_port()}"]))
    watcher = station.consumer("test", on_sample=None)
    try:
        watcher.want({Latest("fleet/rover-1/uplink/battery")})
        station.play(LogReader(path))
        wait_for(lambda: station.player is not None, timeout=10)
        assert station.playback and station.bus is None
        wait_for(lambda: {r.robot_id for r in station.robots() if r.online} == ROBOTS,
                 timeout=5)
        robots = {r.robot_id: r for r in station.robots()}
        assert robots["rover-1"].model == "sim-rover"
        assert robots["car-1"].catalog is not None and robots["car-1"].catalog.topics
        player = station.player
        assert player is not None
        player.set_speed(10.0)
        player.play()
        wait_for(lambda: player.state().finished, timeout=10)
        reader = LogReader(path)
        recorded = {c.key for c in reader.channels() if not c.key.endswith("/catalog")}
        reader.close()
        assert set(station.topics()) == recorded
        assert station.feeds.latest["fleet/rover-1/uplink/battery"].tree["battery"]
    finally:
        watcher.close()
        station.close()

