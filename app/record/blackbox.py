"""The black box: an always-on ring of the last N seconds of samples (bounded in bytes),
saved to a complete MCAP file when something goes wrong."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from pathlib import Path

from app.bus.subscription import RawSample
from app.codec.buffers import Attachment
from app.record.format import LivelinessEvent, LoggedSample
from app.record.sink import McapSink

DEFAULT_SECONDS = 60.0
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
_ITEM_OVERHEAD = 200  # what a kept sample costs beyond its bytes

Entry = LoggedSample | LivelinessEvent
# The ring holds plain tuples of strings, bytes and numbers, (log ns, size, key, encoding,
# payload, attachment, publish ns) or (log ns, size, key, alive): the garbage collector
# stops tracking such tuples, where a minute of a hundred robots' samples as objects made
# each of its full passes stall the window for half a second.
_Kept = tuple[int, int, str, str, bytes, Attachment | None, int] | tuple[int, int, str, bool]


def _entry(kept: _Kept) -> Entry:
    if len(kept) == 4:
        return LivelinessEvent(kept[2], kept[3], kept[0])
    log_ns, _, key, encoding, payload, attachment, publish_ns = kept
    return LoggedSample(key, encoding, payload, attachment, log_ns, publish_ns)


class BlackBox:
    def __init__(self, seconds: float = DEFAULT_SECONDS,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.seconds = seconds
        self.max_bytes = max_bytes
        self._window_ns = int(seconds * 1e9)
        self._ring: deque[_Kept] = deque()
        self._bytes = 0
        self._newest_ns = 0
        self._lock = threading.Lock()

    def offer(self, key: str, encoding: str, payload: bytes, attachment: Attachment | None,
              received_s: float, source_time_s: float | None) -> bool:
        log_ns = int(received_s * 1e9)
        publish_ns = log_ns if source_time_s is None else int(source_time_s * 1e9)
        size = len(payload) + (len(attachment) if attachment is not None else 0) + \
            _ITEM_OVERHEAD
        self._keep((log_ns, size, key, encoding, payload, attachment, publish_ns))
        return True

    def offer_sample(self, sample: RawSample) -> bool:
        return self.offer(sample.key, sample.encoding, sample.payload, sample.attachment,
                          sample.received, sample.source_time)

    def offer_liveliness(self, key: str, alive: bool, received_s: float) -> None:
        self._keep((int(received_s * 1e9), _ITEM_OVERHEAD, key, alive))

    def _keep(self, kept: _Kept) -> None:
        with self._lock:
            self._ring.append(kept)
            self._bytes += kept[1]
            self._newest_ns = max(self._newest_ns, kept[0])
            oldest_ns = self._newest_ns - self._window_ns
            ring = self._ring
            while ring and (self._bytes > self.max_bytes or ring[0][0] < oldest_ns):
                self._bytes -= ring.popleft()[1]

    def span_s(self) -> float:
        """Log time from the oldest kept sample to the newest."""
        with self._lock:
            if not self._ring:
                return 0.0
            return (self._newest_ns - self._ring[0][0]) / 1e9

    def bytes(self) -> int:
        with self._lock:
            return self._bytes

    def window(self) -> list[Entry]:
        """What the ring holds now, oldest first."""
        return [_entry(k) for k in self._kept()]

    def _kept(self) -> list[_Kept]:
        with self._lock:
            return list(self._ring)

    def save(self, path: str | Path, head: Sequence[Entry] = (),
             compression: str = "lz4") -> Path:
        """Writes ``head`` (e.g. each robot's catalog and presence) and then the window as
        one complete MCAP file. Head entries older than the window are restated at its
        start (their publish time is kept), so the file plays from there on its own."""
        kept = self._kept()  # the ring goes on taking samples while the file is written
        path = Path(path)
        start_ns = kept[0][0] if kept else 0
        with open(path, "wb") as stream:
            sink = McapSink(stream, compression)
            for entry in head:
                _write(sink, entry, max(entry.log_time_ns, start_ns))
            for item in kept:  # one entry at a time: a minute of a depot is 100k samples
                entry = _entry(item)
                _write(sink, entry, entry.log_time_ns)
            sink.finish()
        return path


def _write(sink: McapSink, entry: Entry, log_ns: int) -> None:
    if isinstance(entry, LivelinessEvent):
        sink.write_liveliness(entry.key, entry.alive, log_ns)
    else:
        sink.write_sample(entry.key, entry.encoding, entry.payload, entry.attachment, log_ns,
                          entry.publish_time_ns)
