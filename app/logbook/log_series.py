"""Plotted series read from a whole log at once (the plot's "Whole log" window).

Qt-free. Every sample of a key is read from the log in log-time order and made into points
by the code the feeds use for played and live samples (``append_points``), so the whole log
draws exactly what playing it through would. A :class:`LogSeriesLoader` does this on a
thread of its own, one series after another, and can be cancelled (the panel closed,
another log opened)."""

from __future__ import annotations

import functools
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from app.codec.decode import decode
from app.record.reader import LogReader
from app.station.series import SeriesBuffer
from app.station.series_points import append_points

# A whole log may hold more points than a live series keeps; the buffer grows as it fills,
# so this bounds memory (16 bytes a point) without costing anything up front.
LOG_SERIES_CAPACITY = 10_000_000
PROGRESS_EVERY = 512  # samples between progress reports


def series_from_log(reader: LogReader, key: str, path: str,
                    cancelled: Callable[[], bool] = lambda: False,
                    into: SeriesBuffer | None = None,
                    on_progress: Callable[[float], None] | None = None) -> SeriesBuffer:
    """The points a plot of ``path`` on ``key`` shows, from every sample of the key in the
    log. Appends to ``into`` if given (a plot may draw it while it fills). Stops, keeping
    what it read, once ``cancelled()``. ``on_progress`` hears the log-time fraction read."""
    buffer = into if into is not None else SeriesBuffer(LOG_SERIES_CAPACITY)
    targets = [(path, buffer)]
    span = max(reader.end_ns - reader.start_ns, 1)
    for n, logged in enumerate(reader.samples(keys=[key])):
        if cancelled():
            break
        message = functools.partial(decode, logged.encoding, logged.payload, logged.attachment)
        # The times a played sample gets (app.station.playback): zenoh's = the publish time.
        append_points(targets, message, logged.publish_time_ns / 1e9, logged.log_time_ns / 1e9)
        if on_progress is not None and n % PROGRESS_EVERY == 0:
            on_progress((logged.log_time_ns - reader.start_ns) / span)
    return buffer


@dataclass
class LogSeries:
    """One series being read (or read) from the log; its buffer fills on the loader's thread."""

    buffer: SeriesBuffer
    progress: float = 0.0  # the log-time fraction read, 0..1
    done: bool = False


class LogSeriesLoader:
    """Reads the series asked for from one log, in order, on a thread of its own."""

    def __init__(self, reader: LogReader) -> None:
        self.reader = reader
        self._series: dict[tuple[str, str], LogSeries] = {}
        self._queue: deque[tuple[str, str]] = deque()
        self._cond = threading.Condition()
        self._cancelled = threading.Event()
        self._thread = threading.Thread(target=self._run, name="log series", daemon=True)
        self._thread.start()

    def series(self, key: str, path: str) -> LogSeries:
        """The series of ``path`` on ``key``: queued for reading the first time it is asked for."""
        with self._cond:
            found = self._series.get((key, path))
            if found is None:
                found = self._series[(key, path)] = LogSeries(SeriesBuffer(LOG_SERIES_CAPACITY))
                self._queue.append((key, path))
                self._cond.notify()
            return found

    def close(self) -> None:
        """Stops reading at the next sample (does not wait for it: a chunk may be large)."""
        self._cancelled.set()
        with self._cond:
            self._cond.notify()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._cancelled.is_set():
                    self._cond.wait()
                if self._cancelled.is_set():
                    return
                key, path = self._queue.popleft()
                entry = self._series[(key, path)]
            try:
                series_from_log(self.reader, key, path, self._cancelled.is_set, entry.buffer,
                                functools.partial(setattr, entry, "progress"))
            except Exception as exc:  # a damaged or closed file: said on the series
                entry.buffer.error = f"cannot read the log: {exc}"
            entry.progress, entry.done = 1.0, True
