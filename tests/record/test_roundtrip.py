"""Recording real samples and reading them back: byte-identical, in order per key, with
their times; the file is plain MCAP another tool reads with the documented strings."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from mcap.reader import make_reader

from app.record import format as fmt
from app.record.reader import LogReader
from app.record.writer import Recorder
from tests.record.conftest import SKEW_S, T0, ns, offer_all
from tests.record.fleet import FleetSample

OPAQUE = [  # samples whose encoding is not Cap'n Proto, with and without attachments
    FleetSample("fleet/rover-1/log", "text/plain", b"hello", None, 0.5),
    FleetSample("fleet/rover-1/blob", "application/octet-stream", b"\x00\x01", b"tail", 0.6),
    FleetSample("fleet/rover-1/lidar/points", "application/capnp;isaac.PointCloudProto",
                b"", b"", 0.7),  # empty payload and attachment are kept as such
]


def per_key(samples: list[tuple]) -> dict[str, list[tuple]]:
    grouped = defaultdict(list)
    for sample in samples:
        grouped[sample[0]].append(sample[1:])
    return dict(grouped)


def expected(samples: list[FleetSample]) -> dict[str, list[tuple]]:
    return per_key([(s.key, s.encoding, s.payload, s.attachment, ns(T0 + s.at_s),
                     ns(T0 + s.at_s - SKEW_S)) for s in samples])


def got(reader: LogReader) -> dict[str, list[tuple]]:
    return per_key([(s.key, s.encoding, s.payload, s.attachment, s.log_time_ns,
                     s.publish_time_ns) for s in reader.samples()])


@pytest.mark.parametrize("compression", ["lz4", "zstd", "none"])
def test_samples_come_back_byte_identical_in_order_per_key(
        tmp_path: Path, fleet: list[FleetSample], compression: str) -> None:
    samples = sorted(fleet + OPAQUE, key=lambda s: s.at_s)
    recorder = Recorder(tmp_path / "log.mcap", compression=compression)
    assert all(offer_all(recorder, samples))
    status = recorder.close()
    assert status.error == "" and status.messages == len(samples) and not status.dropped
    assert status.files == (tmp_path / "log.mcap",)
    assert status.bytes_written == (tmp_path / "log.mcap").stat().st_size
    assert status.duration_s == pytest.approx(samples[-1].at_s, abs=1e-6)

    with LogReader(tmp_path / "log.mcap") as reader:
        assert reader.closed_cleanly and reader.problems == []
        assert got(reader) == expected(samples)
        times = [s.log_time_ns for s in reader.samples()]
        assert times == sorted(times)
        attached = {s.key for s in samples if s.attachment}
        assert any("isaac" in s.encoding for s in samples if s.key in attached)
        counts = {(c.key, c.encoding): c.count for c in reader.channels()}
        for key, entries in expected(samples).items():
            for encoding in {e[0] for e in entries}:
                assert counts[(key, encoding)] == sum(e[0] == encoding for e in entries)


def test_another_tool_reads_our_strings(tmp_path: Path, fleet: list[FleetSample]) -> None:
    recorder = Recorder(tmp_path / "log.mcap")
    offer_all(recorder, fleet + OPAQUE[:2])
    recorder.close()
    with open(tmp_path / "log.mcap", "rb") as stream:
        reader = make_reader(stream)
        assert reader.get_header().profile == "fieldstation"
        summary = reader.get_summary()
        assert summary is not None
        assert {s.encoding for s in summary.schemas.values()} == {"capnp"}
        names = {s.name for s in summary.schemas.values()}
        assert "isaac.PointCloudProto" in names and "transport.Catalog" in names
        cloud_schema = next(s for s in summary.schemas.values()
                            if s.name == "isaac.PointCloudProto")
        assert b"struct PointCloudProto" in cloud_schema.data
        autoware = next(s for s in summary.schemas.values() if s.name.startswith("autoware."))
        package = autoware.name.split(".")[1]
        assert autoware.data == (Path("schemas/autoware") / f"{package}.capnp").read_bytes()
        channels = {(c.topic, c.message_encoding): c for c in summary.channels.values()}
        cloud = channels[("fleet/rover-1/lidar/points", "capnp+attachment")]
        assert cloud.metadata == {"zenoh_encoding": "application/capnp;isaac.PointCloudProto"}
        assert channels[("fleet/rover-1/log", "zenoh")].schema_id == 0
        assert channels[("fleet/rover-1/blob", "zenoh")].metadata["attachment"] == "true"
        first = {}
        for _, channel, message in reader.iter_messages():
            first.setdefault((channel.topic, channel.message_encoding), message)
    status = next(s for s in fleet if s.key.endswith("uplink/status"))
    assert first[(status.key, "capnp")].data == status.payload  # plain capnp, readable as is
    cloud_sample = next(s for s in fleet if s.attachment)
    framed = first[(cloud_sample.key, "capnp+attachment")].data
    length = int.from_bytes(framed[:4], "little")
    assert framed[4:4 + length] == cloud_sample.payload
    assert framed[4 + length:] == cloud_sample.attachment


def test_liveliness_round_trip(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "log.mcap")
    recorder.offer_liveliness("fleet/rover-1", True, T0)
    recorder.offer_liveliness("fleet/car-1", True, T0 + 0.5)
    recorder.offer_liveliness("fleet/rover-1", False, T0 + 1.0)
    recorder.offer("fleet/rover-1/x", "text/plain", b"x", None, T0 + 0.2, None)
    recorder.close()
    with LogReader(tmp_path / "log.mcap") as reader:
        assert [(e.key, e.alive, e.log_time_ns) for e in reader.liveliness()] == [
            ("fleet/rover-1", True, ns(T0)), ("fleet/car-1", True, ns(T0 + 0.5)),
            ("fleet/rover-1", False, ns(T0 + 1.0))]
        assert [c.key for c in reader.channels()] == ["fleet/rover-1/x"]  # presence apart
        sample = next(reader.samples())
        assert sample.publish_time_ns == sample.log_time_ns == ns(T0 + 0.2)


def test_samples_by_time_range_and_key(tmp_path: Path, fleet: list[FleetSample]) -> None:
    recorder = Recorder(tmp_path / "log.mcap")
    offer_all(recorder, fleet)
    recorder.close()
    key = "fleet/rover-1/uplink/motion"
    start, end = ns(T0 + 0.75), ns(T0 + 2.25)
    want = [(s.payload, ns(T0 + s.at_s)) for s in fleet
            if s.key == key and start <= ns(T0 + s.at_s) < end]
    with LogReader(tmp_path / "log.mcap") as reader:
        found = [(s.payload, s.log_time_ns) for s in reader.samples(start, end, keys=[key])]
    assert found == want and len(want) > 5


def test_unknown_compression_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown compression 'brotli'"):
        Recorder(tmp_path / "log.mcap", compression="brotli")


def test_encode_decode_message_framing() -> None:
    assert fmt.encode_message(b"abc", None) == ("capnp", b"abc")
    encoding, data = fmt.encode_message(b"abc", b"zz")
    assert encoding == "capnp+attachment" and data == b"\x03\x00\x00\x00abczz"
    assert fmt.decode_message(data, attached=True) == (b"abc", b"zz")
    assert fmt.encode_message(b"abc", b"", "text/plain") == ("zenoh", b"\x03\x00\x00\x00abc")
    with pytest.raises(ValueError):
        fmt.decode_message(b"\x09\x00\x00\x00abc", attached=True)
