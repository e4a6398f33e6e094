"""The recorder: samples offered from any thread go through a queue bounded in bytes to a
writer thread of its own, which writes them into chunked MCAP files (split at a size or a
duration limit). Offering never blocks: a full queue drops the sample and counts it."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from app.bus.subscription import RawSample
from app.codec.buffers import Attachment
from app.record import format as fmt
from app.record.sink import CHUNK_BYTES, CHUNK_S, McapSink, compression_type

MAX_QUEUE_BYTES = 512 * 1024 * 1024
FSYNC_EVERY_S = 1.0  # at most this often, so a power cut loses about as much as a SIGKILL
_ITEM_OVERHEAD = 200  # what a queued item costs beyond its bytes

# (key, encoding, payload, attachment, log ns, publish ns); liveliness: (key, alive, log ns)
_Sample = tuple[str, str, bytes, Attachment | None, int, int]
_Liveliness = tuple[str, bool, int]


@dataclass(frozen=True)
class RecorderStatus:
    path: Path  # the file being written
    files: tuple[Path, ...]  # every file so far (more than one after splits)
    bytes_written: int
    messages: int  # samples, as ``fieldstation info`` counts them (liveliness events apart)
    duration_s: float  # log time from the first sample to the last
    dropped: Mapping[str, int] = field(default_factory=dict)  # per key
    behind: bool = False  # the queue is more than half full: the disk is not keeping up
    error: str = ""  # one line; the recorder stopped writing
    liveliness_events: int = 0


def open_part(path: Path) -> BinaryIO:
    return open(path, "wb")


def part_path(path: Path, index: int) -> Path:
    """NAME.mcap -> NAME-001.mcap, NAME-002.mcap, ..."""
    return path.with_name(f"{path.stem}-{index:03d}{path.suffix or '.mcap'}")


class Recorder:
    def __init__(self, path: str | Path, compression: str = "lz4",
                 split_bytes: int | None = None, split_s: float | None = None,
                 max_queue_bytes: int = MAX_QUEUE_BYTES, *, chunk_bytes: int = CHUNK_BYTES,
                 chunk_s: float = CHUNK_S) -> None:
        compression_type(compression)  # refuse an unknown name here, not on the thread
        self._base = Path(path)
        self._split = split_bytes is not None or split_s is not None
        self._split_bytes = split_bytes
        self._split_ns = None if split_s is None else int(split_s * 1e9)
        self._compression = compression
        self._chunk_bytes = chunk_bytes
        self._chunk_s = chunk_s
        self._max_queue = max_queue_bytes
        self._lock = threading.Condition(threading.Lock())
        self._queue: deque[tuple[int, _Sample | _Liveliness]] = deque()
        self._queued = 0
        self._waiting = False
        self._closing = False
        self._dropped: dict[str, int] = {}
        # written by the writer thread, read under the lock by status()
        self._files: list[Path] = []
        self._bytes_done = 0  # bytes of the finished parts
        self._bytes = 0
        self._messages = 0
        self._events = 0
        self._first_ns: int | None = None
        self._last_ns = 0
        self._error = ""
        # the state each new part restates at its head, so it plays alone
        self._alive: dict[str, bool] = {}
        self._catalogs: dict[str, _Sample] = {}
        self._sink: McapSink | None = None
        self._stream: BinaryIO | None = None
        self._part_first_ns = 0
        self._synced = time.monotonic()
        self._open_part()
        self._thread = threading.Thread(target=self._run, name="recorder", daemon=True)
        self._thread.start()

    # -- any thread ---------------------------------------------------------------
    def offer(self, key: str, encoding: str, payload: bytes, attachment: Attachment | None,
              received_s: float, source_time_s: float | None) -> bool:
        """Queues one sample; False when it was dropped (queue full, writing stopped by an
        error), counted per key. After close() it is refused, not counted."""
        log_ns = int(received_s * 1e9)
        publish_ns = log_ns if source_time_s is None else int(source_time_s * 1e9)
        size = len(payload) + (len(attachment) if attachment is not None else 0) + _ITEM_OVERHEAD
        return self._put((key, encoding, payload, attachment, log_ns, publish_ns), key, size)

    def offer_sample(self, sample: RawSample) -> bool:
        return self.offer(sample.key, sample.encoding, sample.payload, sample.attachment,
                          sample.received, sample.source_time)

    def offer_liveliness(self, key: str, alive: bool, received_s: float) -> None:
        self._put((key, alive, int(received_s * 1e9)), key, _ITEM_OVERHEAD)

    def _put(self, item: _Sample | _Liveliness, key: str, size: int) -> bool:
        with self._lock:
            if self._closing:
                return False
            if self._error or self._queued + size > self._max_queue:
                self._dropped[key] = self._dropped.get(key, 0) + 1
                return False
            self._queue.append((size, item))
            self._queued += size
            if self._waiting:
                self._lock.notify()
            return True

    def status(self) -> RecorderStatus:
        with self._lock:
            return RecorderStatus(
                path=self._files[-1] if self._files else self._base,
                files=tuple(self._files),
                bytes_written=self._bytes_done + self._bytes,
                messages=self._messages,
                liveliness_events=self._events,
                duration_s=(self._last_ns - self._first_ns) / 1e9 if self._first_ns else 0.0,
                dropped=dict(self._dropped),
                behind=self._queued > self._max_queue // 2,
                error=self._error,
            )

    def close(self) -> RecorderStatus:
        """Writes what is queued, finishes the file (summary, indexes) and stops."""
        with self._lock:
            self._closing = True
            self._lock.notify()
        self._thread.join()
        return self.status()

    # -- the writer thread ------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._queue and not self._closing:
                    self._waiting = True
                    self._lock.wait(self._wait_s())
                    self._waiting = False
                    if not self._queue and self._chunk_due():
                        break
                batch = self._queue
                self._queue = deque()
                closing = self._closing
            if not self._error:
                self._write(batch)
            with self._lock:
                self._queued -= sum(size for size, _ in batch)
            if closing and not self._queue:
                break
        if not self._error:
            self._guarded(self._finish_part)
        self._close_stream()

    def _wait_s(self) -> float:
        assert self._sink is not None
        age = self._sink.chunk_age_s()
        return self._chunk_s if age == 0.0 else max(0.0, self._chunk_s - age)

    def _chunk_due(self) -> bool:
        return self._sink is not None and self._sink.chunk_age_s() >= self._chunk_s

    def _guarded(self, action: Callable[[], None]) -> bool:
        try:
            action()
        except OSError as exc:
            self._fail(f"cannot write {self._files[-1]}: {exc.strerror or exc}")
            return False
        except Exception as exc:  # the thread must not die silently
            self._fail(f"recording stopped: {type(exc).__name__}: {exc}")
            return False
        return True

    def _fail(self, line: str) -> None:
        with self._lock:
            self._error = line.replace("\n", " ")
            for size, item in self._queue:
                self._dropped[item[0]] = self._dropped.get(item[0], 0) + 1
                self._queued -= size
            self._queue.clear()
        self._close_stream()

    def _write(self, batch: deque[tuple[int, _Sample | _Liveliness]]) -> None:
        written = events = 0
        first_ns: int | None = None
        last_ns = 0

        def write_all() -> None:
            nonlocal written, events, first_ns, last_ns
            for _, item in batch:
                self._write_one(item)
                log_ns = item[2] if len(item) == 3 else item[4]
                written += 1
                events += len(item) == 3
                if first_ns is None:
                    first_ns = log_ns
                last_ns = max(last_ns, log_ns)
            sink = self._sink
            assert sink is not None
            if sink.chunk_age_s() >= self._chunk_s:
                sink.end_chunk()
            self._after_write()

        ok = self._guarded(write_all)
        with self._lock:
            self._messages += written - events
            self._events += events
            if first_ns is not None and self._first_ns is None:
                self._first_ns = first_ns
            self._last_ns = max(self._last_ns, last_ns)
            if not ok:
                for _, item in list(batch)[written:]:
                    self._dropped[item[0]] = self._dropped.get(item[0], 0) + 1

    def _write_one(self, item: _Sample | _Liveliness) -> None:
        if len(item) == 3:
            key, alive, log_ns = item
            self._roll_if_due(log_ns)
            self._alive[key] = alive
            assert self._sink is not None
            self._sink.write_liveliness(key, alive, log_ns)
            return
        sample = item
        self._roll_if_due(sample[4])
        if sample[1] == fmt.CATALOG_ENCODING:
            self._catalogs[sample[0]] = sample
        assert self._sink is not None
        self._sink.write_sample(*sample)

    def _after_write(self) -> None:
        assert self._sink is not None and self._stream is not None
        now = time.monotonic()
        if now - self._synced >= FSYNC_EVERY_S and self._sink.chunk_age_s() == 0.0:
            os.fsync(self._stream.fileno())
            self._synced = now
        size = self._sink.size()
        with self._lock:
            self._bytes = size

    def _roll_if_due(self, log_ns: int) -> None:
        sink = self._sink
        assert sink is not None
        if not self._split or sink.messages == 0:
            if sink.messages == 0:
                self._part_first_ns = log_ns
            return
        over_size = self._split_bytes is not None and sink.size() >= self._split_bytes
        over_time = self._split_ns is not None and log_ns - self._part_first_ns >= self._split_ns
        if not (over_size or over_time):
            return
        self._finish_part()
        self._open_part()
        self._part_first_ns = log_ns
        self._write_head(log_ns)

    def _write_head(self, log_ns: int) -> None:
        """Restates presence and each robot's latest catalog, so the new part plays alone."""
        assert self._sink is not None
        for key, alive in self._alive.items():
            self._sink.write_liveliness(key, alive, log_ns)
        for key, encoding, payload, attachment, _, publish_ns in self._catalogs.values():
            self._sink.write_sample(key, encoding, payload, attachment, log_ns, publish_ns)

    def _open_part(self) -> None:
        path = part_path(self._base, len(self._files) + 1) if self._split else self._base
        with self._lock:
            self._files.append(path)
        self._stream = open_part(path)
        self._sink = McapSink(self._stream, self._compression, self._chunk_bytes,
                              self._chunk_s)

    def _finish_part(self) -> None:
        assert self._sink is not None and self._stream is not None
        self._sink.finish()
        size = self._stream.tell()
        self._close_stream()
        with self._lock:
            self._bytes_done += size
            self._bytes = 0

    def _close_stream(self) -> None:
        if self._stream is None:
            return
        with contextlib.suppress(OSError):  # a full disk refuses the buffered bytes too
            self._stream.close()
        self._stream = None
