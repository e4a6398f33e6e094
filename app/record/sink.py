"""One MCAP file being written in Fieldstation's mapping: channels and schemas registered on
first use, chunks closed at a size or a span of log time (or when the owner says)."""

from __future__ import annotations

import time
from typing import BinaryIO

from mcap.writer import CompressionType, Writer

from app.codec.buffers import Attachment
from app.record import format as fmt

COMPRESSIONS = {"lz4": CompressionType.LZ4, "zstd": CompressionType.ZSTD,
                "none": CompressionType.NONE}
CHUNK_BYTES = 4 * 1024 * 1024
CHUNK_S = 1.0  # a chunk spans at most this much log time (what a SIGKILL can lose)
_RECORD_OVERHEAD = 40  # a message record's header and its message index entry


def compression_type(name: str) -> CompressionType:
    try:
        return COMPRESSIONS[name]
    except KeyError:
        raise ValueError(f"unknown compression {name!r}; choose from "
                         f"{', '.join(COMPRESSIONS)}") from None


class McapSink:
    def __init__(self, stream: BinaryIO, compression: str = "lz4",
                 chunk_bytes: int = CHUNK_BYTES, chunk_s: float = CHUNK_S) -> None:
        self._stream = stream
        # The writer never closes a chunk by itself: write() does, so each chunk is flushed
        # to the file as it closes.
        self._writer = Writer(stream, chunk_size=2**62, compression=compression_type(compression))
        self._writer.start(profile=fmt.PROFILE, library="fieldstation")
        stream.flush()  # a file killed before its first chunk still says what it is
        self._chunk_bytes = chunk_bytes
        self._chunk_ns = int(chunk_s * 1e9)
        self._channels: dict[tuple[str, str, bool], int] = {}
        self._schemas: dict[str, int] = {}
        self._pending = 0  # bytes in the open chunk
        self._chunk_first_ns = 0
        self._chunk_opened = 0.0  # time.monotonic() of the open chunk's first message
        self.messages = 0

    def write_sample(self, key: str, encoding: str, payload: bytes,
                     attachment: Attachment | None,
                     log_time_ns: int, publish_time_ns: int) -> None:
        attached = attachment is not None
        channel = self._channels.get((key, encoding, attached))
        if channel is None:
            channel = self._add_channel(key, encoding, attached)
        _, data = fmt.encode_message(payload, attachment, encoding)
        self._add(channel, data, log_time_ns, publish_time_ns)

    def write_liveliness(self, key: str, alive: bool, log_time_ns: int) -> None:
        channel = self._channels.get((key, "", False))
        if channel is None:
            channel = self._writer.register_channel(key, fmt.LIVELINESS, 0, {})
            self._channels[(key, "", False)] = channel
        self._add(channel, fmt.ALIVE if alive else fmt.GONE, log_time_ns, log_time_ns)

    def _add_channel(self, key: str, encoding: str, attached: bool) -> int:
        type_name = fmt.type_name_of(encoding)
        schema = 0
        if type_name is not None:
            schema = self._schemas.get(type_name, -1)
            if schema < 0:
                text = fmt.schema_text(type_name)
                schema = 0 if text is None else self._writer.register_schema(
                    type_name, fmt.SCHEMA_ENCODING, text)
                self._schemas[type_name] = schema
        channel = self._writer.register_channel(
            key, fmt.message_encoding(encoding, attached), schema,
            fmt.channel_metadata(encoding, attached))
        self._channels[(key, encoding, attached)] = channel
        return channel

    def _add(self, channel: int, data: bytes, log_time_ns: int, publish_time_ns: int) -> None:
        if self._pending == 0:
            self._chunk_first_ns = log_time_ns
            self._chunk_opened = time.monotonic()
        self._writer.add_message(channel, log_time_ns, data, publish_time_ns)
        self.messages += 1
        self._pending += len(data) + _RECORD_OVERHEAD
        if (self._pending >= self._chunk_bytes
                or abs(log_time_ns - self._chunk_first_ns) >= self._chunk_ns):
            self.end_chunk()

    def chunk_age_s(self) -> float:
        """How long ago the open chunk took its first message (0 when none is open)."""
        return time.monotonic() - self._chunk_opened if self._pending else 0.0

    def end_chunk(self) -> None:
        """Closes the open chunk (if any) and flushes the file."""
        self._writer.flush()
        self._pending = 0

    def size(self) -> int:
        """Bytes in the file, counting the open chunk as if it were written uncompressed."""
        return self._stream.tell() + self._pending

    def finish(self) -> None:
        """Writes the summary and footer (the stream stays open)."""
        self._writer.finish()
        self._pending = 0
        self._stream.flush()
