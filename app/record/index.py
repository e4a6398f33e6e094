"""The index of one MCAP file: its schemas, channels and chunks with the log time and offset
of every message in each chunk. It comes from the summary when the file was closed cleanly,
else from one scan of the records that can be read (a killed recorder, a truncated or
corrupt file); what cannot be read is listed in ``problems``, one line each."""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import lz4.frame
import numpy as np
import zstandard
from mcap.data_stream import ReadDataStream
from mcap.opcode import Opcode
from mcap.records import Channel, ChunkIndex, Schema

MAGIC = b"\x89MCAP0\r\n"
LOOSE = "(records)"  # a run of messages outside any chunk, indexed like a chunk
LOOSE_RUN_BYTES = 4 * 1024 * 1024
RECORD = struct.Struct("<BQ")  # opcode, body length
FOOTER = struct.Struct("<BQQQI")  # opcode, length, summary start, summary offset start, crc
FOOTER_BYTES = FOOTER.size
CHUNK_HEAD = struct.Struct("<QQQII")  # start, end, uncompressed size, crc, compression length
MESSAGE_HEAD = struct.Struct("<HIQQ")  # channel, sequence, log time, publish time
INDEX_HEAD = struct.Struct("<HI")  # channel, entries length
_ENTRIES = np.dtype([("t", "<u8"), ("o", "<u8")])
_READ_AHEAD = 1024 * 1024


@dataclass
class ChunkInfo:
    offset: int  # of the chunk record (of the first record of a loose run)
    end: int  # where its record (run) ends in the file
    start_ns: int
    end_ns: int
    compression: str  # "", "lz4", "zstd", or LOOSE
    uncompressed_size: int
    data_offset: int  # where its (compressed) records start in the file
    data_length: int
    # channel id -> (log times, offsets of the message records within the records), file order
    messages: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def count(self) -> int:
        return sum(len(times) for times, _ in self.messages.values())


@dataclass
class FileIndex:
    size: int
    schemas: dict[int, Schema]
    channels: dict[int, Channel]
    chunks: list[ChunkInfo]  # by start time
    closed_cleanly: bool
    problems: list[str]


class ChunkError(Exception):
    """A chunk whose records cannot be read (one line)."""


def pread(fd: int, length: int, offset: int) -> bytes:
    data = os.pread(fd, length, offset)
    while len(data) < length:  # pread may return less than asked on some file systems
        more = os.pread(fd, length - len(data), offset + len(data))
        if not more:
            break
        data += more
    return data


def chunk_records(fd: int, chunk: ChunkInfo) -> bytes:
    """The uncompressed records of one chunk (or loose run)."""
    data = pread(fd, chunk.data_length, chunk.data_offset)
    if len(data) < chunk.data_length:
        raise ChunkError(f"chunk at byte {chunk.offset} is cut short")
    try:
        if chunk.compression == "lz4":
            records = lz4.frame.decompress(data)
        elif chunk.compression == "zstd":
            records = zstandard.ZstdDecompressor().decompress(
                data, max_output_size=chunk.uncompressed_size)
        elif chunk.compression in ("", LOOSE):
            records = data
        else:
            raise ChunkError(f"chunk at byte {chunk.offset} uses compression "
                             f"{chunk.compression!r}, which is not supported")
    except (RuntimeError, zstandard.ZstdError) as exc:
        raise ChunkError(f"chunk at byte {chunk.offset} cannot be decompressed: {exc}") from exc
    if chunk.compression != LOOSE and len(records) != chunk.uncompressed_size:
        raise ChunkError(f"chunk at byte {chunk.offset} holds {len(records)} bytes, "
                         f"its header says {chunk.uncompressed_size}")
    return records


def read_index(fd: int, size: int, on_progress: Callable[[float], None] | None = None,
               ) -> FileIndex:
    """The index of a file that starts with the MCAP magic."""
    problems: list[str] = []
    summary_start = _footer(fd, size)
    if summary_start:
        try:
            index = _from_summary(fd, size, summary_start, on_progress)
        except (ValueError, struct.error, ChunkError) as exc:
            problems.append(f"the summary cannot be read ({exc}): indexed by a scan")
        else:
            if index is not None:
                return index
    elif summary_start is None:
        problems.append("not closed cleanly (no summary): indexed by a scan")
    index = _scan(fd, size, on_progress, problems)
    index.closed_cleanly = summary_start is not None
    return index


def _footer(fd: int, size: int) -> int | None:
    """The summary start the footer gives (0: no summary), None when there is no footer."""
    if size < 2 * len(MAGIC) + FOOTER_BYTES:
        return None
    tail = pread(fd, FOOTER_BYTES + len(MAGIC), size - FOOTER_BYTES - len(MAGIC))
    if tail[FOOTER_BYTES:] != MAGIC:
        return None
    opcode, length, summary_start, _, _ = FOOTER.unpack_from(tail)
    if opcode != Opcode.FOOTER or length != FOOTER_BYTES - RECORD.size:
        return None
    if summary_start >= size - FOOTER_BYTES - len(MAGIC):
        return None
    return int(summary_start)


def _records(data: bytes | memoryview, start: int = 0) -> Iterator[tuple[int, int, int]]:
    """(opcode, body start, body end) of each whole record in ``data``."""
    pos = start
    while pos + RECORD.size <= len(data):
        opcode, length = RECORD.unpack_from(data, pos)
        body = pos + RECORD.size
        if body + length > len(data):
            raise ValueError(f"record at {pos} runs past the end")
        yield opcode, body, body + length
        pos = body + length


def _parse(kind: Any, data: bytes | memoryview, body: int, end: int) -> Any:
    return kind.read(ReadDataStream(io.BytesIO(bytes(data[body:end]))))


def _from_summary(fd: int, size: int, summary_start: int,
                  on_progress: Callable[[float], None] | None) -> FileIndex | None:
    """The index from the summary; None when it holds no chunk index (an unchunked file)."""
    data = pread(fd, size - FOOTER_BYTES - len(MAGIC) - summary_start, summary_start)
    schemas: dict[int, Schema] = {}
    channels: dict[int, Channel] = {}
    indexes: list[ChunkIndex] = []
    for opcode, body, end in _records(data):
        if opcode == Opcode.SCHEMA:
            schema = _parse(Schema, data, body, end)
            schemas[schema.id] = schema
        elif opcode == Opcode.CHANNEL:
            channel = _parse(Channel, data, body, end)
            channels[channel.id] = channel
        elif opcode == Opcode.CHUNK_INDEX:
            indexes.append(_parse(ChunkIndex, data, body, end))
    if not indexes:
        return None
    chunks = []
    for number, entry in enumerate(indexes):
        if entry.chunk_start_offset + entry.chunk_length > summary_start:
            raise ValueError(f"a chunk index points past the data, to byte "
                             f"{entry.chunk_start_offset}")
        header = RECORD.size + CHUNK_HEAD.size + len(entry.compression.encode()) + 8
        chunk = ChunkInfo(
            offset=entry.chunk_start_offset,
            end=entry.chunk_start_offset + entry.chunk_length,
            start_ns=entry.message_start_time, end_ns=entry.message_end_time,
            compression=entry.compression, uncompressed_size=entry.uncompressed_size,
            data_offset=entry.chunk_start_offset + header, data_length=entry.compressed_size)
        if entry.message_index_length and entry.message_index_offsets:
            block = pread(fd, entry.message_index_length, chunk.end)
            _add_message_indexes(chunk, block)
        else:
            _index_records(chunk, chunk_records(fd, chunk), schemas, channels)
        if any(channel not in channels for channel in chunk.messages):
            return None  # channels only inside the chunks: a scan finds them
        chunks.append(chunk)
        if on_progress is not None and number % 64 == 0:
            on_progress(number / len(indexes))
    chunks.sort(key=lambda c: (c.start_ns, c.offset))
    return FileIndex(size, schemas, channels, chunks, True, [])


def _add_message_indexes(chunk: ChunkInfo, block: bytes) -> None:
    for opcode, body, end in _records(block):
        if opcode != Opcode.MESSAGE_INDEX:
            continue
        channel, length = INDEX_HEAD.unpack_from(block, body)
        start = body + INDEX_HEAD.size
        if start + length > end or length % _ENTRIES.itemsize:
            raise ValueError(f"broken message index after the chunk at byte {chunk.offset}")
        entries = np.frombuffer(block, _ENTRIES, length // _ENTRIES.itemsize, start)
        chunk.messages[channel] = (entries["t"].copy(), entries["o"].copy())


def _index_records(chunk: ChunkInfo, records: bytes, schemas: dict[int, Schema],
                   channels: dict[int, Channel]) -> None:
    """Indexes a chunk by walking its records (it has no message index, or it may hold
    channel definitions nobody has seen yet)."""
    times: dict[int, list[int]] = {}
    offsets: dict[int, list[int]] = {}
    try:
        for opcode, body, end in _records(records):
            if opcode == Opcode.MESSAGE:
                channel, _, log_time, _ = MESSAGE_HEAD.unpack_from(records, body)
                times.setdefault(channel, []).append(log_time)
                offsets.setdefault(channel, []).append(body - RECORD.size)
            elif opcode == Opcode.SCHEMA:
                schema = _parse(Schema, records, body, end)
                schemas[schema.id] = schema
            elif opcode == Opcode.CHANNEL:
                found = _parse(Channel, records, body, end)
                channels[found.id] = found
    except (ValueError, struct.error) as exc:
        raise ChunkError(f"chunk at byte {chunk.offset} holds broken records: {exc}") from exc
    chunk.messages = {channel: (np.array(times[channel], np.uint64),
                                np.array(offsets[channel], np.uint64)) for channel in times}


class _Window:
    """Reads a file forwards through a read-ahead buffer (few system calls for small
    records)."""

    def __init__(self, fd: int, size: int) -> None:
        self._fd = fd
        self._size = size
        self._start = 0
        self._data = b""

    def get(self, pos: int, length: int) -> bytes:
        if not (self._start <= pos and pos + length <= self._start + len(self._data)):
            self._start = pos
            self._data = pread(self._fd, max(length, _READ_AHEAD), pos)
        return self._data[pos - self._start:pos - self._start + length]


class _LooseRun:
    """Messages found outside chunks, gathered into runs indexed like chunks."""

    def __init__(self, pos: int) -> None:
        self.start = pos
        self.end = pos
        self.times: dict[int, list[int]] = {}
        self.offsets: dict[int, list[int]] = {}

    def add(self, pos: int, end: int, channel: int, log_time: int) -> None:
        self.times.setdefault(channel, []).append(log_time)
        self.offsets.setdefault(channel, []).append(pos - self.start)
        self.end = end

    def chunk(self) -> ChunkInfo | None:
        if not self.times:
            return None
        every = [t for times in self.times.values() for t in times]
        return ChunkInfo(
            offset=self.start, end=self.end, start_ns=min(every), end_ns=max(every),
            compression=LOOSE, uncompressed_size=self.end - self.start,
            data_offset=self.start, data_length=self.end - self.start,
            messages={channel: (np.array(self.times[channel], np.uint64),
                                np.array(self.offsets[channel], np.uint64))
                      for channel in self.times})


def _scan(fd: int, size: int, on_progress: Callable[[float], None] | None,
          problems: list[str]) -> FileIndex:
    window = _Window(fd, size)
    schemas: dict[int, Schema] = {}
    channels: dict[int, Channel] = {}
    chunks: list[ChunkInfo] = []
    loose: _LooseRun | None = None
    last_chunk: ChunkInfo | None = None
    pos = len(MAGIC)
    reported = 0.0
    while pos < size:
        if on_progress is not None and pos - reported > size / 100:
            on_progress(pos / size)
            reported = pos
        if pos + RECORD.size > size:
            problems.append(f"the file ends at byte {size} inside a record header: "
                            "what was written after it is lost")
            break
        opcode, length = RECORD.unpack(window.get(pos, RECORD.size))
        body = pos + RECORD.size
        end = body + length
        if end > size:
            problems.append(_cut_short(window, opcode, pos, size, chunks))
            break
        if opcode == Opcode.CHUNK:
            last_chunk = _chunk_at(window, pos, body, end)
            chunks.append(last_chunk)
        elif opcode == Opcode.MESSAGE_INDEX and last_chunk is not None:
            try:
                _add_message_indexes(last_chunk, window.get(pos, end - pos))
            except ValueError as exc:
                problems.append(str(exc))
                last_chunk.messages = {}
        elif opcode in (Opcode.SCHEMA, Opcode.CHANNEL):
            record = window.get(pos, end - pos)
            if opcode == Opcode.SCHEMA:
                schema = _parse(Schema, record, RECORD.size, len(record))
                schemas[schema.id] = schema
            else:
                channel = _parse(Channel, record, RECORD.size, len(record))
                channels[channel.id] = channel
        elif opcode == Opcode.MESSAGE:
            if loose is None:
                loose = _LooseRun(pos)
            channel_id, _, log_time, _ = MESSAGE_HEAD.unpack(window.get(body, MESSAGE_HEAD.size))
            loose.add(pos, end, channel_id, log_time)
        elif opcode in (Opcode.DATA_END, Opcode.FOOTER):
            break  # the summary section follows: unreadable, or we would not scan
        if loose is not None and (opcode == Opcode.CHUNK or end - loose.start >= LOOSE_RUN_BYTES):
            if (run := loose.chunk()) is not None:
                chunks.append(run)
            loose = None
        pos = end
    if loose is not None and (run := loose.chunk()) is not None:
        chunks.append(run)
    readable = []
    for number, chunk in enumerate(chunks):
        # A chunk without a (complete) message index, or that may define new channels, is
        # indexed from its records.
        if (not chunk.messages or chunk is last_chunk
                or any(channel not in channels for channel in chunk.messages)):
            try:
                _index_records(chunk, chunk_records(fd, chunk), schemas, channels)
            except ChunkError as exc:
                problems.append(f"{exc}: its messages from {_span(chunk)} are lost")
                continue
        readable.append(chunk)
        if on_progress is not None and number % 64 == 0:
            on_progress(min(1.0, chunk.end / size))
    readable.sort(key=lambda c: (c.start_ns, c.offset))
    return FileIndex(size, schemas, channels, readable, False, problems)


def _chunk_at(window: _Window, pos: int, body: int, end: int) -> ChunkInfo:
    start_ns, end_ns, usize, _, name_length = CHUNK_HEAD.unpack(
        window.get(body, CHUNK_HEAD.size))
    name_at = body + CHUNK_HEAD.size
    compression = window.get(name_at, name_length).decode("utf-8", "replace")
    (data_length,) = struct.unpack("<Q", window.get(name_at + name_length, 8))
    data_offset = name_at + name_length + 8
    return ChunkInfo(offset=pos, end=end, start_ns=start_ns, end_ns=end_ns,
                     compression=compression, uncompressed_size=usize,
                     data_offset=data_offset, data_length=min(data_length, end - data_offset))


def _cut_short(window: _Window, opcode: int, pos: int, size: int,
               chunks: list[ChunkInfo]) -> str:
    if opcode == Opcode.CHUNK and pos + RECORD.size + CHUNK_HEAD.size <= size:
        start_ns, end_ns, *_ = CHUNK_HEAD.unpack(window.get(pos + RECORD.size, CHUNK_HEAD.size))
        before = max((c.end_ns for c in chunks), default=start_ns)
        lost_s = max(0, end_ns - before) / 1e9
        return (f"the file ends at byte {size} inside a chunk (from byte {pos}): "
                f"its last {lost_s:.1f} s are lost")
    return (f"the file ends at byte {size} inside a record (from byte {pos}): "
            "what was written after it is lost")


def _span(chunk: ChunkInfo) -> str:
    return f"{chunk.start_ns / 1e9:.3f} s to {chunk.end_ns / 1e9:.3f} s (unix)"
