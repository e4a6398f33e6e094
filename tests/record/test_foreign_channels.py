"""Channels another tool wrote: played through the translator the reader is given, or
listed as problems; messages outside chunks (an unchunked file) are read too."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcap.writer import Writer

from app.record.format import ForeignChannel, ForeignChannelInfo, ForeignError
from app.record.reader import LogReader


class Upper:
    """A stand-in translation: the data upper-cased, the length as attachment."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.encoding = "application/capnp;foxglove.Log"

    def translate(self, data: bytes) -> tuple[bytes, bytes | None]:
        if data == b"bad":
            raise ForeignError("bad is not a log line")
        return data.upper(), len(data).to_bytes(2, "little")


def write_foreign(path: Path, chunked: bool) -> None:
    with open(path, "wb") as stream:
        writer = Writer(stream, use_chunking=chunked)
        writer.start(profile="", library="another tool")
        schema = writer.register_schema("foxglove.Log", "protobuf", b"\x0a\x03abc")
        logs = writer.register_channel("/log", "protobuf", schema, {"a": "b"})
        other = writer.register_channel("/pose", "json", 0)
        for n, data in enumerate([b"one", b"bad", b"two"]):
            writer.add_message(logs, 1000 + n, data, 1000 + n)
            writer.add_message(other, 1000 + n, b"{}", 1000 + n)
        writer.finish()


@pytest.mark.parametrize("chunked", [True, False])
def test_foreign_channels_go_through_the_translator(tmp_path: Path, chunked: bool) -> None:
    path = tmp_path / "field test #3.mcap"
    write_foreign(path, chunked)
    seen: list[tuple[ForeignChannelInfo, str]] = []

    def translate(info: ForeignChannelInfo, robot_id: str) -> ForeignChannel | None:
        seen.append((info, robot_id))
        if info.message_encoding != "protobuf":
            return None
        return Upper(f"fleet/{robot_id}/log")

    with LogReader(path, translate=translate) as reader:
        assert reader.closed_cleanly
        samples = list(reader.samples())
        assert [(s.key, s.payload, s.attachment, s.log_time_ns) for s in samples] == [
            ("fleet/field-test-3/log", b"ONE", b"\x03\x00", 1000),
            ("fleet/field-test-3/log", b"TWO", b"\x03\x00", 1002)]
        assert samples[0].encoding == "application/capnp;foxglove.Log"
        [channel] = reader.channels()
        assert (channel.key, channel.count, channel.foreign) == ("fleet/field-test-3/log", 3,
                                                                 True)
        assert reader.problems == [
            "/pose: json is not readable here",
            "fleet/field-test-3/log: a message cannot be translated: bad is not a log line"]
    info = seen[0][0]
    assert (info.topic, info.schema_name, info.schema_encoding, info.schema_data,
            info.metadata) == ("/log", "foxglove.Log", "protobuf", b"\x0a\x03abc", {"a": "b"})


def test_without_a_translator_foreign_channels_are_problems(tmp_path: Path) -> None:
    path = tmp_path / "other.mcap"
    write_foreign(path, chunked=True)
    with LogReader(path, robot_id="bot") as reader:
        assert reader.channels() == [] and list(reader.samples()) == []
        assert reader.problems == ["/log: protobuf foxglove.Log is not readable here",
                                   "/pose: json is not readable here"]
