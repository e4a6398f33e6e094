"""Reads a Fieldstation MCAP log (or a foreign one, through a translator) for playback:
samples in log-time order, the newest sample of each key at a time (a seek), presence."""

from __future__ import annotations

import heapq
import os
import re
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.record import format as fmt
from app.record.format import (
    ForeignChannel,
    ForeignChannelInfo,
    ForeignError,
    LivelinessEvent,
    LogError,
    LoggedSample,
    Translated,
    Translator,
)
from app.record.index import (
    MAGIC,
    MESSAGE_HEAD,
    RECORD,
    ChunkError,
    ChunkInfo,
    FileIndex,
    chunk_records,
    read_index,
)

__all__ = ["ChannelSummary", "LogError", "LogReader"]


@dataclass(frozen=True)
class ChannelSummary:
    key: str
    encoding: str  # the zenoh encoding its samples play with
    type_name: str  # "" when the encoding is not Cap'n Proto
    count: int
    first_ns: int
    last_ns: int
    foreign: bool  # written by another tool, translated


@dataclass(frozen=True)
class _Route:
    """Where one MCAP channel's messages go."""

    key: str
    encoding: str
    attached: bool = False
    liveliness: bool = False
    foreign: ForeignChannel | None = None


def robot_id_for(path: Path) -> str:
    """A file's stem as one key chunk: what a foreign file's robot is called."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", path.stem).strip("-") or "log"


class LogReader:
    def __init__(self, path: str | Path, on_progress: Callable[[float], None] | None = None,
                 translate: Translator | None = None, robot_id: str | None = None) -> None:
        self.path = Path(path)
        try:
            self._fd = os.open(self.path, os.O_RDONLY)
        except OSError as exc:
            raise LogError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        try:
            size = os.fstat(self._fd).st_size
            if os.pread(self._fd, len(MAGIC), 0) != MAGIC:
                raise LogError(f"not an MCAP file: {self.path}")
            index = read_index(self._fd, size, on_progress)
        except OSError as exc:
            os.close(self._fd)
            raise LogError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        except BaseException:
            os.close(self._fd)
            raise
        if on_progress is not None:
            on_progress(1.0)
        self.size = size
        self.closed_cleanly = index.closed_cleanly
        self.problems: list[str] = index.problems
        self._chunks = index.chunks
        self._routes = self._route(index, translate, robot_id or robot_id_for(self.path))
        self._translate_failures: dict[int, int] = {}
        self.start_ns = min((c.start_ns for c in self._chunks), default=0)
        self.end_ns = max((c.end_ns for c in self._chunks), default=0)

    def _route(self, index: FileIndex, translate: Translator | None,
               robot_id: str) -> dict[int, _Route]:
        routes: dict[int, _Route] = {}
        file_topics = tuple(sorted({c.topic for c in index.channels.values()}))
        for channel_id, channel in sorted(index.channels.items()):
            encoding = channel.message_encoding
            if encoding == fmt.LIVELINESS:
                routes[channel_id] = _Route(channel.topic, "", liveliness=True)
            elif encoding in fmt.OUR_ENCODINGS:
                zenoh_encoding = channel.metadata.get(fmt.META_ZENOH_ENCODING, "")
                routes[channel_id] = _Route(channel.topic, zenoh_encoding,
                                            fmt.is_attached(encoding, channel.metadata))
            else:
                schema = index.schemas.get(channel.schema_id)
                info = ForeignChannelInfo(
                    topic=channel.topic, message_encoding=encoding,
                    schema_name=schema.name if schema else "",
                    schema_encoding=schema.encoding if schema else "",
                    schema_data=bytes(schema.data) if schema else b"",
                    metadata=dict(channel.metadata), file_topics=file_topics)
                try:
                    foreign = translate(info, robot_id) if translate is not None else None
                except ForeignError as exc:  # the translator says why not
                    self.problems.append(f"{channel.topic}: {exc}")
                    continue
                if foreign is None:
                    self.problems.append(f"{channel.topic}: {encoding} {info.schema_name} "
                                         "is not readable here".replace("  ", " "))
                    continue
                routes[channel_id] = _Route(foreign.key, foreign.encoding, foreign=foreign)
        return routes

    # -- what is in the file ------------------------------------------------------------
    def channels(self) -> list[ChannelSummary]:
        """Every channel that plays (not presence, not unreadable foreign ones), by key."""
        counts: dict[int, list[int]] = {}
        for chunk in self._chunks:
            for channel_id, (times, _) in chunk.messages.items():
                if len(times) == 0:
                    continue
                entry = counts.setdefault(channel_id, [0, int(times.min()), int(times.max())])
                entry[0] += len(times)
                entry[1] = min(entry[1], int(times.min()))
                entry[2] = max(entry[2], int(times.max()))
        found = []
        for channel_id, (count, first, last) in counts.items():
            route = self._routes.get(channel_id)
            if route is None or route.liveliness:
                continue
            found.append(ChannelSummary(route.key, route.encoding,
                                        fmt.type_name_of(route.encoding) or "", count, first,
                                        last, route.foreign is not None))
        return sorted(found, key=lambda c: (c.key, c.encoding))

    def liveliness(self) -> list[LivelinessEvent]:
        """Every presence change in the file, by log time."""
        wanted = {cid for cid, route in self._routes.items() if route.liveliness}
        events = []
        for channel_id, data, log_ns, _ in self._messages(self._chunks, wanted):
            events.append(LivelinessEvent(self._routes[channel_id].key, bytes(data) == fmt.ALIVE,
                                          log_ns))
        events.sort(key=lambda e: e.log_time_ns)
        return events

    # -- samples ----------------------------------------------------------------------
    def samples(self, start_ns: int | None = None, end_ns: int | None = None,
                keys: Collection[str] | None = None) -> Iterator[LoggedSample]:
        """The samples with log time in [start_ns, end_ns), in log-time order (file order
        among equal times)."""
        wanted = {cid for cid, route in self._routes.items()
                  if not route.liveliness and (keys is None or route.key in keys)}
        low = -1 if start_ns is None else start_ns
        high = 2**64 if end_ns is None else end_ns
        chunks = [c for c in self._chunks if c.end_ns >= low and c.start_ns < high
                  and not wanted.isdisjoint(c.messages)]
        # (log time, chunk, message in it, sample of the message, sample)
        pending: list[tuple[int, int, int, int, LoggedSample]] = []
        for chunk in chunks:
            while pending and pending[0][0] < chunk.start_ns:
                yield heapq.heappop(pending)[-1]
            found = self._messages([chunk], wanted, low, high)
            for order, (channel_id, data, log_ns, publish_ns) in enumerate(found):
                for part, sample in enumerate(self._samples(channel_id, data, log_ns,
                                                            publish_ns)):
                    heapq.heappush(pending, (log_ns, chunk.offset, order, part, sample))
        while pending:
            yield heapq.heappop(pending)[-1]

    def latest_before(self, t_ns: int, lookback_ns: int) -> list[LoggedSample]:
        """The newest sample of each key with log time in [t - lookback, t], by log time.
        Reads only the chunks that hold one of them."""
        low = max(0, t_ns - lookback_ns)
        # key -> log time, chunk offset, message offset (newest, then last in the file), channel
        best: dict[str, tuple[int, int, int, int]] = {}
        chunks = {chunk.offset: chunk for chunk in self._chunks}
        for chunk in self._chunks:
            if chunk.start_ns > t_ns or chunk.end_ns < low:
                continue
            for channel_id, (times, offsets) in chunk.messages.items():
                route = self._routes.get(channel_id)
                if route is None or route.liveliness:
                    continue
                inside = np.flatnonzero((times <= t_ns) & (times >= low))
                if len(inside) == 0:
                    continue
                newest = inside[np.flatnonzero(times[inside] == times[inside].max())[-1]]
                candidate = (int(times[newest]), chunk.offset, int(offsets[newest]), channel_id)
                if candidate > best.get(route.key, (-1, 0, 0, 0)):
                    best[route.key] = candidate
        by_chunk: dict[int, list[tuple[int, int]]] = {}
        for _, chunk_offset, offset, channel_id in best.values():
            by_chunk.setdefault(chunk_offset, []).append((offset, channel_id))
        found = []
        for chunk_offset, wanted in by_chunk.items():
            records = self._records(chunks[chunk_offset])
            if records is None:
                continue
            for offset, channel_id in wanted:
                _, data, log_ns, publish_ns = _message_at(records, offset)
                found += self._samples(channel_id, data, log_ns, publish_ns)
        found.sort(key=lambda s: s.log_time_ns)
        return found

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> LogReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals ------------------------------------------------------------------
    def _records(self, chunk: ChunkInfo) -> bytes | None:
        try:
            return chunk_records(self._fd, chunk)
        except ChunkError as exc:
            line = f"{exc}: its messages are skipped"
            if line not in self.problems:
                self.problems.append(line)
            return None

    def _messages(self, chunks: list[ChunkInfo], wanted: set[int], low: int = -1,
                  high: int = 2**64,
                  ) -> Iterator[tuple[int, memoryview, int, int]]:
        """(channel, data, log ns, publish ns) of the wanted channels' messages with log
        time in [low, high), in log-time order within each chunk."""
        for chunk in chunks:
            picks = []
            for channel_id, (times, offsets) in chunk.messages.items():
                if channel_id in wanted:
                    keep = (times >= max(low, 0)) & (times < min(high, 2**64 - 1))
                    picks.append((times[keep], offsets[keep]))
            if not picks or not any(len(t) for t, _ in picks):
                continue
            records = self._records(chunk)
            if records is None:
                continue
            times = np.concatenate([t for t, _ in picks])
            offsets = np.concatenate([o for _, o in picks])
            view = memoryview(records)
            for position in np.lexsort((offsets, times)):
                yield _message_at(view, int(offsets[position]))

    def _samples(self, channel_id: int, data: memoryview | bytes, log_ns: int,
                 publish_ns: int) -> list[LoggedSample]:
        """The samples one message makes: one, none when it is broken, or for a foreign
        message as many as its translation makes."""
        route = self._routes[channel_id]
        if route.foreign is not None:
            try:
                translated = route.foreign.translate(bytes(data))
            except ForeignError as exc:
                failures = self._translate_failures.get(channel_id, 0)
                self._translate_failures[channel_id] = failures + 1
                if not failures:
                    self.problems.append(f"{route.key}: a message cannot be translated: {exc}")
                return []
            parts: Sequence[Translated] = [translated] if isinstance(translated, tuple) \
                else translated
        else:
            try:
                parts = [fmt.decode_message(data, route.attached)]
            except ValueError as exc:
                self.problems.append(f"{route.key}: a message at {log_ns} ns is broken: {exc}")
                return []
        return [LoggedSample(route.key, route.encoding, payload, attachment, log_ns, publish_ns)
                for payload, attachment in parts]


def _message_at(records: bytes | memoryview, offset: int,
                ) -> tuple[int, memoryview, int, int]:
    """(channel, data, log ns, publish ns) of the message record at ``offset``."""
    _, length = RECORD.unpack_from(records, offset)
    body = offset + RECORD.size
    channel_id, _, log_ns, publish_ns = MESSAGE_HEAD.unpack_from(records, body)
    data = memoryview(records)[body + MESSAGE_HEAD.size:body + length]
    return channel_id, data, log_ns, publish_ns
